package io.echomq.cli;

import io.echomq.queue.FlowControl;
import io.echomq.queue.QueueStats;
import io.echomq.queue.RateLimit;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Whether a queue's claims are throttled now, and by what: the one reading {@code emq top} and
 * {@code emq queue stats} share, so that both say the same of the same queue.
 *
 * @param kind  {@code hold} (a handler's back-off holds claims), {@code rate} (the rate limit's window
 *              is full), {@code cap} (the concurrency cap is full), or {@code no}; checked in that order
 * @param words the reason in words for a person, for example {@code cap 2 of 2 active}; empty for {@code no}
 */
record Throttle(String kind, String words) {
    /** Not throttled. */
    static final Throttle NONE = new Throttle("no", "");

    /** @return how claims of the queue are held back now, read from its flow settings and its counts */
    static Throttle of(FlowControl flow, QueueStats stats) {
        Duration hold = flow.holdRemaining();
        if (!hold.isZero()) {
            return new Throttle("hold", "a handler's back-off holds claims " + hold.toMillis() + " ms more");
        }
        Optional<RateLimit> limit = flow.rateLimit();
        if (limit.isPresent() && flow.startedInWindow() >= limit.get().max()) {
            return new Throttle("rate", "rate limit " + limit.get().max() + " per " + limit.get().window() + " reached");
        }
        OptionalInt cap = flow.concurrencyCap();
        if (cap.isPresent() && stats.active() >= cap.getAsInt()) {
            return new Throttle("cap", "cap " + cap.getAsInt() + " of " + cap.getAsInt() + " active");
        }
        return NONE;
    }
}
