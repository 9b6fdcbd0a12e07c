package io.echomq.queue;

import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import io.lettuce.core.Range;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a queue's throughput history: completed and failed per minute, from the per-minute
 * samples of its counters that the holder of its maintenance lock keeps in
 * {@code emq:{q}:throughput} (two hours of them; {@code docs/protocol.md}, "Throughput history").
 *
 * <ol>
 *   <li>{@link #lastMinutes(String, int)} reads the server's {@code TIME} and, per queue (each
 *       partition of a sharded queue), the samples of the last minutes with one
 *       {@code ZRANGEBYSCORE … LIMIT}: at most {@code minutes + 1} members, whatever is stored.</li>
 *   <li>A minute's throughput is the rise of each counter from its sample to the next minute's;
 *       a minute without both samples (no worker ran the maintenance then) is left out, as is a
 *       counter that went down (the queue was deleted and made again). A sharded queue's minutes
 *       are summed over the partitions that know them.</li>
 * </ol>
 *
 * <p>Since the history is in Redis, every reader shows the same past, whenever it started. The
 * minute still running has no next sample yet, so the last minute shown is the one before it.
 * Thread-safe.
 */
public final class ThroughputHistory {
    /** Most minutes one read spans: the history the workers keep. */
    public static final int MAX_MINUTES = (int) ThroughputRecorder.KEEP.toMinutes();
    private static final long MINUTE_MS = 60_000;

    private final QueueContext context;

    private ThroughputHistory(QueueContext context) {
        this.context = context;
    }

    /**
     * @param client the client whose server to read; not closed by the history
     * @return a reader of that server's throughput histories
     * @throws NullPointerException if client is null
     */
    public static ThroughputHistory of(QueueClient client) {
        return new ThroughputHistory(Objects.requireNonNull(client, "client").context());
    }

    /**
     * The minutes one read spans and those of them that are known.
     *
     * @param from    the first minute's start
     * @param until   the start of the current minute, which ends the span (excluded)
     * @param minutes the known minutes of the span, oldest first; a minute not listed is unknown
     */
    public record Window(Instant from, Instant until, List<ThroughputMinute> minutes) {
    }

    /**
     * @param queueName a queue's name, plain or sharded
     * @param minutes   how many whole minutes before the current one, 1..{@link #MAX_MINUTES}
     * @return those minutes, by the server's clock, with the known ones
     * @throws IllegalArgumentException if the name is invalid or minutes is out of range
     * @throws IllegalStateException if a sharded queue's mark holds something other than a count
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public Window lastMinutes(String queueName, int minutes) {
        if (minutes < 1 || minutes > MAX_MINUTES) {
            throw new IllegalArgumentException("minutes must be in 1.." + MAX_MINUTES + ", was " + minutes);
        }
        int partitions = PartitionSpan.read(context, queueName);
        List<QueueKeys> queues = new ArrayList<>();
        if (partitions == 0) {
            queues.add(QueueKeys.ofUserName(queueName));
        }
        for (int i = 0; i < partitions; i++) {
            queues.add(QueueKeys.partition(queueName, i));
        }
        var commands = context.engine().commands();
        List<String> t = RedisEngine.await(commands.time().toCompletableFuture(), "TIME", queueName);
        long nowMs = Long.parseLong(t.get(0)) * 1000 + Long.parseLong(t.get(1)) / 1000;
        long current = nowMs - nowMs % MINUTE_MS;
        long from = current - minutes * MINUTE_MS;
        Range<Long> range = Range.create(from, current);
        io.lettuce.core.Limit limit = io.lettuce.core.Limit.create(0, minutes + 1);
        List<CompletableFuture<List<String>>> reads = new ArrayList<>();
        for (QueueKeys k : queues) {
            reads.add(commands.zrangebyscore(k.throughput(), range, limit).toCompletableFuture());
        }
        TreeMap<Long, long[]> sums = new TreeMap<>();
        for (CompletableFuture<List<String>> read : reads) {
            long[] prev = null;
            for (String member : RedisEngine.await(read, "ZRANGEBYSCORE", queueName)) {
                long[] s = sample(member);
                if (s == null) {
                    continue;
                }
                if (prev != null && s[0] - prev[0] == MINUTE_MS && s[1] >= prev[1] && s[2] >= prev[2]) {
                    long[] sum = sums.computeIfAbsent(prev[0], m -> new long[2]);
                    sum[0] += s[1] - prev[1];
                    sum[1] += s[2] - prev[2];
                }
                prev = s;
            }
        }
        List<ThroughputMinute> out = new ArrayList<>();
        sums.forEach((m, s) -> out.add(new ThroughputMinute(Instant.ofEpochMilli(m), s[0], s[1])));
        return new Window(Instant.ofEpochMilli(from), Instant.ofEpochMilli(current), List.copyOf(out));
    }

    /** @return {minute, completed, failed} of a member {@code <minute>:<completed>:<failed>}, or null if malformed */
    static long[] sample(String member) {
        String[] parts = member.split(":");
        if (parts.length != 3) {
            return null;
        }
        try {
            return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2])};
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
