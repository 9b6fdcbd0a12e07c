package io.echomq.queue;

import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Reads the live workers of a queue from their heartbeats, for tools that show them (the
 * dashboard's workers page, {@code emq queue workers}).
 *
 * <ol>
 *   <li>{@link #list(String)} reads the server's {@code TIME}, at most {@link #MAX_WORKERS} ids of
 *       the queue's ZSET {@code emq:{q}:workers} (a range by rank: never unbounded) and one HASH
 *       per id, all sent before the first answer is awaited; a sharded queue's workers beat on its
 *       partition 0, so they are read there.</li>
 *   <li>Leaves out a worker whose record has expired (its score is past, or its HASH is gone): a
 *       worker that died drops out within its record's life, three heartbeat periods (30 s with
 *       the default maintenance interval).</li>
 * </ol>
 *
 * <p>Each Java {@link Worker} writes its heartbeat when its jobs in hand (their ids included) or its paused state change and at least every
 * five maintenance runs (10 s at most), and removes it when it is closed; {@code docs/protocol.md} ("Workers' heartbeats") has the keys and fields, for
 * clients in other languages. Thread-safe.
 */
public final class WorkerDirectory {
    /** Most workers read for one queue (those whose records expire soonest, past it). */
    public static final int MAX_WORKERS = 1000;

    private final QueueContext context;

    private WorkerDirectory(QueueContext context) {
        this.context = context;
    }

    /**
     * @param client the client whose server to read; not closed by the directory
     * @return a directory of that server's workers
     * @throws NullPointerException if client is null
     */
    public static WorkerDirectory of(QueueClient client) {
        return new WorkerDirectory(Objects.requireNonNull(client, "client").context());
    }

    /**
     * @param queueName a queue's name, plain or sharded, as {@link QueueClient#open(String)} takes it
     * @return its live workers, by host, pid and name; empty when none beats
     * @throws IllegalArgumentException if the name is invalid
     * @throws IllegalStateException if a sharded queue's mark holds something other than a count
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public List<WorkerInfo> list(String queueName) {
        QueueKeys keys = PartitionSpan.read(context, queueName) > 0
                ? QueueKeys.partition(queueName, 0) : QueueKeys.ofUserName(queueName);
        var commands = context.engine().commands();
        CompletableFuture<List<String>> time = commands.time()
                .toCompletableFuture();
        List<String> ids = RedisEngine.await(commands.zrange(keys.workers(), 0, MAX_WORKERS - 1).toCompletableFuture(),
                "ZRANGE", queueName);
        List<CompletableFuture<Map<String, String>>> hashes = new ArrayList<>();
        for (String id : ids) {
            hashes.add(commands.hgetall(keys.worker(id)).toCompletableFuture());
        }
        List<String> t = RedisEngine.await(time, "TIME", queueName);
        long nowMs = Long.parseLong(t.get(0)) * 1000 + Long.parseLong(t.get(1)) / 1000;
        List<WorkerInfo> out = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            Map<String, String> h = RedisEngine.await(hashes.get(i), "HGETALL", queueName);
            long expires = number(h.get("expires_at"));
            if (h.isEmpty() || expires <= nowMs) {
                continue;   // expired: the next heartbeat on the queue trims it from the set
            }
            long beat = number(h.get("beat_at"));
            out.add(new WorkerInfo(ids.get(i), h.getOrDefault("host", ""), number(h.get("pid")),
                    h.getOrDefault("name", ""), (int) number(h.get("concurrency")), (int) number(h.get("in_hand")),
                    Instant.ofEpochMilli(number(h.get("started_at"))), Instant.ofEpochMilli(beat),
                    Instant.ofEpochMilli(expires), Duration.ofMillis(Math.max(0, nowMs - beat)),
                    jobIds(h.get("jobs")), "1".equals(h.get("paused"))));
        }
        out.sort(Comparator.comparing(WorkerInfo::host).thenComparingLong(WorkerInfo::pid)
                .thenComparing(WorkerInfo::name).thenComparing(WorkerInfo::id));
        return out;
    }

    /**
     * @return the server's clock now, to tell how long a job has run from its {@code claimed_at}
     *     (both the server's, so a client's clock skew does not enter)
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public Instant serverTime() {
        List<String> t = RedisEngine.await(context.engine().commands().time().toCompletableFuture(), "TIME", "");
        return Instant.ofEpochMilli(Long.parseLong(t.get(0)) * 1000 + Long.parseLong(t.get(1)) / 1000);
    }

    /**
     * Joins jobs to the workers that hold them, for a page or command that lists jobs: reads only
     * the workers' records, never a job.
     *
     * @param workers what {@link #list(String)} answered
     * @return each listed job id to the worker that listed it (the first, should two list one job
     *     for a moment: a job whose lease passed to another worker before the first one's next beat)
     * @throws NullPointerException if workers is null
     */
    public static Map<String, WorkerInfo> holders(List<WorkerInfo> workers) {
        Map<String, WorkerInfo> out = new java.util.HashMap<>();
        for (WorkerInfo w : workers) {
            for (String id : w.jobIds()) {
                out.putIfAbsent(id, w);
            }
        }
        return out;
    }

    /** @return the ids a {@code jobs} field lists, separated by {@code :} (no job id holds one) */
    private static List<String> jobIds(String field) {
        if (field == null || field.isEmpty()) {
            return List.of();
        }
        return java.util.Arrays.stream(field.split(":")).filter(id -> !id.isEmpty()).toList();
    }

    private static long number(String s) {
        if (s == null) {
            return 0;
        }
        try {
            return Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
