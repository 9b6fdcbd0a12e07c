package io.echomq.queue;

import io.echomq.MonotonicClock;
import java.util.function.LongConsumer;

/**
 * What a claimed job reaches of its partition, and nothing more: its fenced calls
 * ({@link AttemptCalls}), the claim that may follow a complete ({@link Claims}), the line to the
 * partition's keys, its names and the client's clock. One per partition, built by it and shared by
 * its jobs.
 *
 * <p>A complete may claim the next job (complete-and-claim-next, the worker's group commit), so the
 * settle and the claim sit side by side here, under the partition's other parts and its
 * instrumentation, which a job never reaches. Both work on bare {@link Attempt}s: the public
 * {@code Job} handle that holds this line is built one layer up, so the recursion is no circle.
 * Immutable and thread-safe.
 */
final class JobLine {
    private final QueueWire wire;
    private final String logicalName;
    private final String idPrefix;
    private final MonotonicClock clock;
    private final AttemptCalls attempts;
    private final Claims claims;

    /**
     * @param logicalName the name users know the queue by (a sharded queue's, for a partition)
     * @param idPrefix    what the partition puts before its jobs' ids ({@code "<partition>-"}), else ""
     * @param claimWaits  told how long each first claim waited, in ms; null when nobody listens
     */
    JobLine(QueueWire wire, String logicalName, String idPrefix, MonotonicClock clock, long retainCompletedMs,
            int maxPayloadBytes, LongConsumer claimWaits) {
        this.wire = wire;
        this.logicalName = logicalName;
        this.idPrefix = idPrefix;
        this.clock = clock;
        this.attempts = new AttemptCalls(retainCompletedMs, maxPayloadBytes, wire);
        this.claims = new Claims(clock, retainCompletedMs, wire, claimWaits);
    }

    /** @return the partition's own queue name ({@code <q>#<i>} for a partition of a sharded queue) */
    String name() {
        return wire.name();
    }

    /** @return the name users know the queue by: a partition answers its sharded queue's name */
    String logicalName() {
        return logicalName;
    }

    /** @return what the partition puts before its jobs' ids ({@code "<partition>-"}), else "" */
    String idPrefix() {
        return idPrefix;
    }

    /** @return the client's clock, which times the jobs' local deadlines */
    MonotonicClock clock() {
        return clock;
    }

    /** @return the line to the partition's keys */
    QueueWire wire() {
        return wire;
    }

    /** @return the fenced calls of an attempt */
    AttemptCalls attempts() {
        return attempts;
    }

    /** @return the partition's claim script, which may complete jobs first */
    Claims claims() {
        return claims;
    }

    @Override
    public String toString() {
        return "JobLine[" + name() + "]";
    }
}
