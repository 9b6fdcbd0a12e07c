package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import io.lettuce.core.KeyValue;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One job's events, read back from its queue's events stream {@code emq:{q}:events}
 * (docs/protocol.md, "Events") for tools that show a job's history (the dashboard).
 *
 * <ol>
 *   <li>Reads a bounded window: the last {@code window} entries of the stream
 *       ({@code XREVRANGE + - COUNT window}, never an unbounded {@code XRANGE}), pipelined with the
 *       queue's events settings ({@code HMGET retention events_max}), in one round trip.</li>
 *   <li>Keeps the entries whose {@code id} field is the job's (for a sharded queue, the stream of
 *       the job's partition and its own id there) and returns them oldest first.</li>
 *   <li>Says what the window could not see: whether it reached the oldest entry the stream keeps
 *       ({@link Read#reachedStart()}), the oldest entry it read, and whether the queue writes
 *       events at all, so that a caller can say when a job's history is cut rather than show a
 *       part of it as the whole.</li>
 * </ol>
 *
 * <p>Redrive, promotion and purge write no event (docs/protocol.md), so a timeline never shows
 * them. Stateless and thread-safe.
 */
public final class JobTimeline {
    /** Entries read when the caller names no window. */
    public static final int DEFAULT_WINDOW = 1000;
    /** Most entries one read may look at. */
    public static final int MAX_WINDOW = 10_000;

    private JobTimeline() {
    }

    /**
     * What one read found.
     *
     * @param events       the job's events in the window, oldest first
     * @param window       how many of the stream's last entries the read looked at, at most
     * @param scanned      how many entries it read (fewer than {@code window} when the stream
     *                     holds fewer)
     * @param reachedStart whether the window reached the oldest entry the stream keeps; when false,
     *                     older events of the job may lie before the window
     * @param oldestRead   the stream id ({@code <ms>-<seq>}, ms of the server's clock) of the oldest
     *                     entry read, or null when the stream is empty or missing
     * @param eventsOn     whether the queue (the job's partition) writes events now
     *                     ({@link QueueEventSettings#maxLength()} above 0)
     */
    public record Read(List<QueueEvent> events, int window, int scanned, boolean reachedStart, String oldestRead,
                       boolean eventsOn) {
        /** Copies the list. */
        public Read {
            events = List.copyOf(events);
        }
    }

    /**
     * Reads job {@code id}'s events among the last {@code window} entries of its queue's stream.
     *
     * @param queue  a {@link Queue} or a {@link ShardedQueue}
     * @param id     the job's id as the queue names it ({@code <partition>-<id>} for a sharded queue)
     * @param window 1..{@value #MAX_WINDOW}: how many of the stream's last entries to look at
     * @return the job's events in the window, and what the window could not see
     * @throws IllegalArgumentException if queue or id is null, the id is invalid (or, for a sharded
     *     queue, not of the form {@code <partition>-<id>}, or of a partition beyond its span), or
     *     window is out of range
     * @throws io.echomq.RedisCommandException if Redis fails, or the events key is no stream
     */
    public static Read read(QueueOperations queue, String id, int window) {
        Checks.notNull(queue, "queue");
        Checks.notNull(id, "id");
        if (window < 1 || window > MAX_WINDOW) {
            throw new IllegalArgumentException("window must be in 1.." + MAX_WINDOW + ", was " + window);
        }
        JobHome at = QueueFacade.of(queue).home(id);
        String localId = at.localId();
        QueueKeys keys = at.wire().keys();
        RedisClusterAsyncCommands<String, byte[]> commands = at.wire().async();
        RedisFuture<List<StreamMessage<String, byte[]>>> last = commands.xrevrange(keys.prefix() + "events",
                Range.create("-", "+"), Limit.from(window));
        RedisFuture<List<KeyValue<String, byte[]>>> settings = commands.hmget(keys.retention(), "events_max");
        List<StreamMessage<String, byte[]>> entries = RedisEngine.await(last.toCompletableFuture(), "XREVRANGE events",
                keys.queue());
        List<KeyValue<String, byte[]>> max = RedisEngine.await(settings.toCompletableFuture(), "HMGET retention",
                keys.queue());
        List<QueueEvent> mine = new ArrayList<>();
        for (StreamMessage<String, byte[]> m : entries) {
            QueueEvent e = QueueEvents.decode(m);
            if (e.jobId().equals(localId)) {
                mine.add(e);
            }
        }
        Collections.reverse(mine);
        String oldest = entries.isEmpty() ? null : entries.get(entries.size() - 1).getId();
        return new Read(mine, window, entries.size(), entries.size() < window, oldest, eventsOn(max.get(0)));
    }

    /** @return whether a stored {@code events_max} leaves events on, read as the scripts read it */
    private static boolean eventsOn(KeyValue<String, byte[]> max) {
        if (!max.hasValue()) {
            return true;
        }
        try {
            return Double.parseDouble(QueueWire.text(max.getValue())) > 0;
        } catch (NumberFormatException e) {
            return true;
        }
    }
}
