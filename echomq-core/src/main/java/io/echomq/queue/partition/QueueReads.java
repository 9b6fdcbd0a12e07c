package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.PendingBucket;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.Scripts;
import io.lettuce.core.KeyValue;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The reads of one queue (or one partition), which change nothing.
 *
 * <ol>
 *   <li>Counts, one atomic snapshot ({@code stats-6.lua}; {@link #statsAsync}, {@link #stats}),
 *       and their decoding, which a {@link ShardedQueue} reuses per partition ({@link #statsOf}).</li>
 *   <li>The oldest dead jobs with their reason, last error and payload ({@link #dead}): a
 *       {@code ZRANGE} of the dead set, then one {@code HMGET} per job, pipelined.</li>
 *   <li>One job's hash ({@link #inspect}).</li>
 * </ol>
 *
 * <p>Together because each only reads and decodes what it read; none runs on a worker's path.
 * Arguments are checked by the callers, except the id of {@link #inspect}.
 */
final class QueueReads {
    private final QueueWire wire;
    private final String[] statsKeys;

    QueueReads(QueueWire wire) {
        this.wire = wire;
        QueueKeys k = wire.keys();
        this.statsKeys = new String[] {k.pending(), k.active(), k.delayed(), k.dead(), k.stats(), k.waitList()};
    }

    /** One stats-6 call: {pending, active, delayed, dead, completed, failed, overdue, paused}. */
    CompletableFuture<List<Long>> statsAsync() {
        return wire.run(Scripts.STATS, ScriptOutputType.MULTI, statsKeys, wire.prefix());
    }

    QueueStats stats() {
        return statsOf(wire.await(statsAsync(), Scripts.STATS.label()));
    }

    /** @return the counts of a stats-6 reply */
    static QueueStats statsOf(List<Long> s) {
        return new QueueStats(s.get(0), s.get(1), s.get(2), s.get(3), s.get(4), s.get(5), s.get(6),
                s.size() > 7 && s.get(7) == 1L);
    }

    /** @return up to {@code limit} dead jobs, oldest death first */
    List<DeadJob> dead(int limit) {
        RedisClusterAsyncCommands<String, byte[]> async = wire.async();
        List<ScoredValue<byte[]>> entries = wire.await(
                async.zrangeWithScores(wire.keys().dead(), 0, limit - 1).toCompletableFuture(), "ZRANGE dead");
        List<CompletableFuture<List<KeyValue<String, byte[]>>>> reads = new ArrayList<>();
        for (ScoredValue<byte[]> e : entries) {
            String id = QueueWire.text(e.getValue());
            if (id.indexOf(':') >= 0) {
                // its would-be key belongs to another job ("7:lock" is job 7's lock subkey): never read it
                reads.add(CompletableFuture.completedFuture(null));
                continue;
            }
            reads.add(async.hmget(wire.keys().job(id), "attempts", "dead_reason", "last_error", "payload")
                    .toCompletableFuture()
                    .exceptionally(wrongType -> null));
        }
        List<DeadJob> out = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            String id = QueueWire.text(entries.get(i).getValue());
            long diedAt = (long) entries.get(i).getScore();
            List<KeyValue<String, byte[]>> h = wire.await(reads.get(i), "HMGET");
            if (h == null) {
                String why = id.indexOf(':') >= 0 ? "job id contains ':'" : "job key is not a hash";
                out.add(new DeadJob(id, diedAt, 0, why, "", null));
                continue;
            }
            String reason = h.get(1).hasValue() ? QueueWire.text(h.get(1).getValue()) : "job hash is missing";
            out.add(new DeadJob(id, diedAt, h.get(0).hasValue() ? parseLong(QueueWire.text(h.get(0).getValue())) : 0,
                    reason, h.get(2).hasValue() ? QueueWire.text(h.get(2).getValue()) : "",
                    h.get(3).hasValue() ? h.get(3).getValue() : null));
        }
        return out;
    }

    /**
     * Reads the job's bucket before its hash, in one pipeline, so a claim that moves it between
     * the two is never missed ({@link PendingBucket}).
     *
     * @throws IllegalArgumentException if the id is invalid
     */
    Optional<JobInfo> inspect(String id) {
        Checks.jobId(id);
        String bucket = wire.keys().bucket(id);
        CompletableFuture<byte[]> inBucket = bucket == null ? CompletableFuture.completedFuture(null)
                // a bucket of another type (foreign data) holds no job
                : wire.async().hget(bucket, id).toCompletableFuture().exceptionally(wrongType -> null);
        CompletableFuture<Map<String, byte[]>> hash = wire.async().hgetall(wire.keys().job(id)).toCompletableFuture();
        byte[] bucketed = wire.await(inBucket, "HGET");
        Map<String, byte[]> h = wire.await(hash, "HGETALL");
        if (h == null || h.isEmpty()) {
            if (bucketed == null) {
                return Optional.empty();
            }
            h = PendingBucket.fields(bucketed);
        }
        Map<String, byte[]> copy = new LinkedHashMap<>(h);
        String state = copy.containsKey("state") ? QueueWire.text(copy.get("state")) : "pending";
        long attempts = copy.containsKey("attempts") ? parseLong(QueueWire.text(copy.get("attempts"))) : 0;
        return Optional.of(new JobInfo(id, state, attempts, Collections.unmodifiableMap(copy)));
    }

    private static long parseLong(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
