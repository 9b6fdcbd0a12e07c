package io.echomq.cli;

import io.echomq.queue.FlowControl;
import io.echomq.queue.QueueStats;
import io.echomq.queue.RateLimit;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A queue's flow settings as read now, and whether its claims are throttled, and by what: the one
 * reading {@code emq top}, {@code emq queue stats} and {@code emq queue show} share, so that all three
 * say the same of the same queue and none reads a setting twice.
 *
 * @param kind            {@code hold} (a handler's back-off holds claims), {@code rate} (the rate limit's
 *                        window is full), {@code cap} (the concurrency cap is full), or {@code no}; checked
 *                        in that order
 * @param words           the reason in words for a person, for example {@code cap 2 of 2 active}; empty for
 *                        {@code no}
 * @param limit           the stored rate limit, if any
 * @param startedInWindow the claims the rate limit's window counts now; 0 without a limit
 * @param cap             the stored concurrency cap, if any
 */
record Throttle(String kind, String words, Optional<RateLimit> limit, long startedInWindow, OptionalInt cap) {
    /** @return the queue's flow settings, and how its claims are held back now, read once each */
    static Throttle of(FlowControl flow, QueueStats stats) {
        Duration hold = flow.holdRemaining();
        Optional<RateLimit> limit = flow.rateLimit();
        long started = limit.isPresent() ? flow.startedInWindow() : 0;
        OptionalInt cap = flow.concurrencyCap();
        if (!hold.isZero()) {
            return new Throttle("hold", "a handler's back-off holds claims " + hold.toMillis() + " ms more", limit,
                    started, cap);
        }
        if (limit.isPresent() && started >= limit.get().max()) {
            return new Throttle("rate", "rate limit " + limit.get().max() + " per " + limit.get().window() + " reached",
                    limit, started, cap);
        }
        if (cap.isPresent() && stats.active() >= cap.getAsInt()) {
            return new Throttle("cap", "cap " + cap.getAsInt() + " of " + cap.getAsInt() + " active", limit, started,
                    cap);
        }
        return new Throttle("no", "", limit, started, cap);
    }

    /** @return whether nothing holds claims back now */
    boolean none() {
        return kind.equals("no");
    }

    /** @return the rate limit as {@code N/Nms}, or {@code none} */
    String limitText() {
        return limit.map(RateLimit::toString).orElse("none");
    }

    /** @return the cap as a number, or {@code none} */
    String capText() {
        return cap.isPresent() ? Integer.toString(cap.getAsInt()) : "none";
    }
}
