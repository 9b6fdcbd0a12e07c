package io.echomq.queue;

import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link RetryPolicy} rule does with a failed attempt. Immutable; made by its factories,
 * which check their input at once.
 *
 * <ul>
 *   <li>{@link #retry()}: a retry after the backoff stored in the job by its producer;</li>
 *   <li>{@link #retryWithBackoff(Duration, Duration)}: a retry after this backoff instead, grown and
 *       jittered exactly as the job's own ({@code d = min(cap, base × 2^(spent − 1))}, then a wait
 *       of {@code d/2 + jitter × d/2});</li>
 *   <li>{@link #retryAfter(Duration)}: a retry after exactly this delay, on the server's clock;</li>
 *   <li>{@link #noRetry()}: the job goes to dead now, whatever attempts it has left.</li>
 * </ul>
 *
 * <p>No action adds attempts: a retry happens only while the job has spent fewer attempts than the
 * {@code max_attempts} its producer stored; past that, the job goes to dead.
 */
public final class RetryAction {
    enum Kind { RETRY, BACKOFF, AFTER, NO_RETRY }

    private static final RetryAction RETRY = new RetryAction(Kind.RETRY, 0, 0);
    private static final RetryAction NO_RETRY = new RetryAction(Kind.NO_RETRY, 0, 0);

    private final Kind kind;
    private final long aMs;
    private final long bMs;

    private RetryAction(Kind kind, long aMs, long bMs) {
        this.kind = kind;
        this.aMs = aMs;
        this.bMs = bMs;
    }

    /** @return a retry after the backoff the job's producer stored (1 s doubling to 1 h by default) */
    public static RetryAction retry() {
        return RETRY;
    }

    /** @return the job goes to dead now, whatever attempts it has left */
    public static RetryAction noRetry() {
        return NO_RETRY;
    }

    /**
     * @param delay the exact wait before the retry, 0..{@link EnqueueOptions#MAX_DELAY}
     * @return a retry after exactly {@code delay}, counted from the server's now
     * @throws IllegalArgumentException if {@code delay} is null, negative or over {@link EnqueueOptions#MAX_DELAY}
     */
    public static RetryAction retryAfter(Duration delay) {
        return new RetryAction(Kind.AFTER, delayMillis(delay, "retryAfter delay"), 0);
    }

    /**
     * @param base the first retry's wait before jitter, 1 ms..{@link EnqueueOptions#MAX_DELAY}
     * @param cap  the longest wait before jitter, base..{@link EnqueueOptions#MAX_DELAY}
     * @return a retry after this exponential backoff instead of the job's own
     * @throws IllegalArgumentException if either is null, under 1 ms, over {@link EnqueueOptions#MAX_DELAY}, or cap &lt; base
     */
    public static RetryAction retryWithBackoff(Duration base, Duration cap) {
        long b = io.echomq.internal.Checks.ttlMillis(base, EnqueueOptions.MAX_DELAY, "retry backoff base");
        long c = io.echomq.internal.Checks.ttlMillis(cap, EnqueueOptions.MAX_DELAY, "retry backoff cap");
        if (c < b) {
            throw new IllegalArgumentException("retry backoff cap " + cap + " is below its base " + base);
        }
        return new RetryAction(Kind.BACKOFF, b, c);
    }

    /** @return {@code delay} in ms, checked to be in 0..{@link EnqueueOptions#MAX_DELAY}; the message names {@code what} */
    static long delayMillis(Duration delay, String what) {
        if (delay == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        if (delay.isNegative() || delay.compareTo(EnqueueOptions.MAX_DELAY) > 0) {
            throw new IllegalArgumentException(what + " must be in 0.." + EnqueueOptions.MAX_DELAY + ", was " + delay);
        }
        return delay.toMillis();
    }

    Kind kind() {
        return kind;
    }

    /**
     * @param spent  the attempts the job has spent, this one included
     * @param jitter a number in [0, 1]
     * @return the delay in ms to send with the fail, or -1 for the job's own backoff (or no retry)
     */
    long delayMs(long spent, double jitter) {
        switch (kind) {
            case AFTER:
                return aMs;
            case BACKOFF:
                double d = aMs * Math.pow(2, Math.min(Math.max(spent - 1, 0), 40));
                if (d > bMs) {
                    d = bMs;
                }
                return (long) Math.floor(d / 2 + jitter * d / 2);
            default:
                return -1;
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RetryAction a && a.kind == kind && a.aMs == aMs && a.bMs == bMs;
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, aMs, bMs);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case RETRY -> "retry";
            case NO_RETRY -> "noRetry";
            case AFTER -> "retryAfter(" + aMs + " ms)";
            case BACKOFF -> "retryWithBackoff(" + aMs + " ms, " + bMs + " ms)";
        };
    }
}
