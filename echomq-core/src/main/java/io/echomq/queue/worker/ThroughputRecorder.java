package io.echomq.queue;

import io.echomq.MonotonicClock;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps each maintained queue's throughput history, from its maintenance lock's holder. Its
 * duties:
 *
 * <ol>
 *   <li>{@link #record(QueueKeys)}, when this worker holds a queue's (or partition's) maintenance
 *       lock: one {@code throughput-2.lua} call, which samples the counters {@code completed} and
 *       {@code failed} once per minute of the server's clock into the queue's bounded ZSET
 *       {@code emq:{q}:throughput} and drops samples older than {@link #KEEP}.</li>
 *   <li>Sends that call only once the minute the last reply named has ended (the reply says how
 *       far off the next minute is), so a holder costs one round trip per minute and queue, not
 *       one per maintenance run; any other holder of the same minute only reads, so the history
 *       keeps one sample per minute whoever holds the lock.</li>
 * </ol>
 *
 * <p>So any dashboard, started at any time, shows the same past: completed and failed per minute
 * are the differences of consecutive samples ({@link ThroughputHistory}). Asynchronous; a failed
 * call is logged at DEBUG (the maintenance reports an outage) and tried again at the next run.
 * Thread-safe.
 */
final class ThroughputRecorder {
    /** How much history the queue keeps: two hours of minutes. */
    static final Duration KEEP = Duration.ofHours(2);

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ThroughputRecorder.class);
    private static final String KEEP_MS = Long.toString(KEEP.toMillis());

    private final String name;
    private final RedisEngine engine;
    private final MonotonicClock clock;
    /** By history key: the clock's nanoTime before which that queue's minute is known to be sampled. */
    private final Map<String, Long> due = new ConcurrentHashMap<>();

    ThroughputRecorder(String name, QueueContext context) {
        this.name = name;
        this.engine = context.engine();
        this.clock = context.clock();
    }

    /** Samples {@code queue}'s counters unless its current minute is known to be sampled. Never blocks. */
    void record(QueueKeys queue) {
        String history = queue.throughput();
        long now = clock.nanoTime();
        Long next = due.get(history);
        if (next != null && now - next < 0) {
            return;
        }
        due.put(history, now + Duration.ofSeconds(1).toNanos());   // no second call while this one is out
        String[] keys = {queue.stats(), history};
        try {
            engine.<List<Object>>run(Scripts.THROUGHPUT, ScriptOutputType.MULTI, keys, KEEP_MS)
                    .whenComplete((reply, failure) -> {
                        if (failure != null) {
                            due.remove(history);
                            LOG.debug("{}: throughput sample failed: {}", name, RedisEngine.unwrap(failure).toString());
                        } else {
                            due.put(history, now + Duration.ofMillis((Long) reply.get(1)).toNanos());
                        }
                    });
        } catch (RuntimeException e) {
            due.remove(history);
            LOG.debug("{}: throughput sample failed: {}", name, e.toString());
        }
    }
}
