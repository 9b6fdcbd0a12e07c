package io.echomq.queue;

import io.echomq.internal.Checks;
import java.time.Duration;

/**
 * A queue's rate limit: at most {@link #max()} jobs started in any {@link #window()}, counted by
 * the claim on the server's clock over a sliding window (every claim in the last window counts,
 * whatever its worker process).
 *
 * @param max    the most jobs started per window, 1..{@value #MAX_JOBS}
 * @param window the window, 1 ms..{@link #MAX_WINDOW}
 */
public record RateLimit(int max, Duration window) {
    /** The most jobs one window may allow. */
    public static final int MAX_JOBS = 1_000_000;
    /** The longest window: one day. */
    public static final Duration MAX_WINDOW = Duration.ofDays(1);

    /**
     * @throws IllegalArgumentException if {@code max} is not in 1..{@value #MAX_JOBS}, or the window is
     *     null, zero, negative, under 1 ms or over one day
     */
    public RateLimit {
        if (max < 1 || max > MAX_JOBS) {
            throw new IllegalArgumentException("a rate limit's max must be in 1.." + MAX_JOBS + " jobs per window, was "
                    + max);
        }
        Checks.ttlMillis(window, MAX_WINDOW, "a rate limit's window");
    }

    /** @return the window in whole ms, as stored in {@code rate_window_ms} */
    public long windowMillis() {
        return window.toMillis();
    }

    /** @return {@code <max>/<window>} with the window in ms, for example {@code 50/1000ms} */
    @Override
    public String toString() {
        return max + "/" + windowMillis() + "ms";
    }
}
