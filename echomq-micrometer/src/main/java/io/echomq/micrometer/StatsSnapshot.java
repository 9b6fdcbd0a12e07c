package io.echomq.micrometer;

import io.echomq.queue.QueueStats;
import io.micrometer.core.instrument.Clock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One queue's counts, read by one shared stats call at most once per interval, for all of that
 * queue's gauges.
 *
 * <ol>
 *   <li>{@link #get()} answers the last snapshot while it is younger than the interval; the first
 *       caller after that reads the stats (one script, {@code stats-6}), the others wait for it
 *       and share its answer. So a scrape of five gauges costs at most one call, and scrapes more
 *       often than the interval cost none.</li>
 *   <li>A failed read keeps the last snapshot (the gauges show the last known counts, or NaN
 *       before the first success) and is retried at the next interval, not at the next gauge;
 *       its first failure is logged at WARN, later ones at DEBUG.</li>
 * </ol>
 */
final class StatsSnapshot {
    private static final Logger LOG = LoggerFactory.getLogger(StatsSnapshot.class);

    private final String queue;
    private final Supplier<QueueStats> read;
    private final Clock clock;
    private final long intervalNanos;
    private QueueStats last;        // guarded by this
    private long readAt;            // guarded by this
    private boolean everRead;       // guarded by this
    private boolean warned;         // guarded by this

    StatsSnapshot(String queue, Supplier<QueueStats> read, Clock clock, long intervalNanos) {
        this.queue = queue;
        this.read = read;
        this.clock = clock;
        this.intervalNanos = intervalNanos;
    }

    /** @return the counts no older than the interval, the last known ones after a failure, or null before any */
    synchronized QueueStats get() {
        long now = clock.monotonicTime();
        if (everRead && now - readAt < intervalNanos) {
            return last;
        }
        everRead = true;
        readAt = now;
        try {
            last = read.get();
        } catch (RuntimeException e) {
            if (!warned) {
                warned = true;
                LOG.warn("echomq: stats of queue {} could not be read; its gauges keep their last value: {}", queue,
                        e.toString());
            } else {
                LOG.debug("echomq: stats of queue {} could not be read", queue, e);
            }
        }
        return last;
    }
}
