package io.echomq.queue;

import io.echomq.internal.Checks;
import java.time.Instant;
import java.util.Optional;

/**
 * The fire times of an {@code every:} schedule: every whole multiple of the interval since the
 * epoch (1970-01-01T00:00Z). Aligning to the epoch rather than to the upsert makes the times a pure
 * function of the spec, the same in every client, and an interval is an exact duration that no
 * time zone or DST change bends (for wall-clock times, use a cron schedule).
 */
final class FixedInterval implements FireTimes {
    private final long intervalMs;

    FixedInterval(long intervalMs) {
        this.intervalMs = intervalMs;
    }

    @Override
    public Optional<Instant> nextAfter(Instant after) {
        Checks.notNull(after, "after");
        long ms = after.toEpochMilli();
        return Optional.of(Instant.ofEpochMilli(Math.floorDiv(ms, intervalMs) * intervalMs + intervalMs));
    }

    @Override
    public String toString() {
        return "every " + intervalMs + " ms since the epoch";
    }
}
