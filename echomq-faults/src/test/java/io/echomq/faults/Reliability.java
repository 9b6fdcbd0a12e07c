package io.echomq.faults;

import io.echomq.testkit.QueueHistory;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** What the scenarios share: the report line, and reading every job's final state from Redis. */
final class Reliability {
    private Reliability() {
    }

    /**
     * Prints one greppable figures line, {@code RELIABILITY scenario=<n> k=v ...}; docs/reliability.md is built
     * from these lines.
     */
    static void report(int scenario, Map<String, Object> figures) {
        StringBuilder b = new StringBuilder("RELIABILITY scenario=").append(scenario);
        figures.forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
        System.out.println(b);
    }

    /**
     * Feeds a {@link WorkerMain}'s stdout to a history: every line is a report except the one {@code STARTED <pid>}
     * line, so a line the history cannot read fails its check instead of being dropped.
     */
    static Consumer<String> reports(QueueHistory history) {
        return line -> {
            if (!line.matches("STARTED [0-9]+")) {
                history.record(line);
            }
        };
    }

    /**
     * Waits until the workers' report lines have all been read: a worker prints a line when it claims or settles,
     * and the parent reads it a moment later on another thread, so a check run the moment the queue looks drained
     * can miss the last few. The queue is drained and the workers idle, so no new line comes; this polls until the
     * count of lines read has not moved for half a second (at most 15 s).
     */
    static void awaitReportsRead(List<io.echomq.testkit.ChildJvm> workers) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        long last = -1;
        int still = 0;
        while (still < 5 && System.nanoTime() < deadline) {
            long now = workers.stream().mapToLong(w -> w.lines().size()).sum();
            still = now == last ? still + 1 : 0;
            last = now;
            TimeUnit.MILLISECONDS.sleep(100);   // the poll interval of this wait for quiet
        }
    }

    /** @return an ordered map for {@link #report}, from alternating keys and values */
    static Map<String, Object> figures(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    /** Reads {@code state} and {@code attempts} of every job, pipelined, straight from the job hashes. */
    static Map<String, QueueHistory.Final> finals(String url, String queue, List<String> ids) throws Exception {
        RedisClient client = RedisClient.create(url);
        try (StatefulRedisConnection<String, String> conn = client.connect()) {
            RedisAsyncCommands<String, String> async = conn.async();
            List<RedisFuture<List<KeyValue<String, String>>>> replies = new ArrayList<>(ids.size());
            for (String id : ids) {
                replies.add(async.hmget("emq:{" + queue + "}:job:" + id, "state", "attempts"));
            }
            Map<String, QueueHistory.Final> out = new HashMap<>();
            for (int i = 0; i < ids.size(); i++) {
                List<KeyValue<String, String>> kv = replies.get(i).get(30, TimeUnit.SECONDS);
                String state = kv.get(0).getValueOrElse(null);
                String attempts = kv.get(1).getValueOrElse("0");
                out.put(ids.get(i), new QueueHistory.Final(state, Long.parseLong(attempts)));
            }
            return out;
        } finally {
            client.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }
}
