package io.echomq.queue;

import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The partitions a {@link ShardedQueue} spans, and the mark in Redis that records their count.
 *
 * <ol>
 *   <li>Declares a count in the mark {@code emq:{<q>}:partitions} ({@code partitions-1.lua}), a
 *       high-water mark that never goes down, or reads it by declaring 0 ({@link #declare},
 *       {@link #read}); a mark that holds no count in 1..{@link #MAX_PARTITIONS} is
 *       refused.</li>
 *   <li>Holds the partitions, index i for partition i, in a list that only grows: to the larger
 *       of the declared count and the mark when built, and to the mark again at each
 *       {@link #refreshAsync} ({@link #queues}).</li>
 * </ol>
 *
 * <p>The list is replaced, never changed, so a caller that reads {@link #queues} once works on one
 * consistent span. Thread-safe.
 */
final class PartitionSpan {
    /** Most partitions one queue may have: the mark holds a count in 1..this. */
    static final int MAX_PARTITIONS = 1024;

    private final QueueContext context;
    private final String name;
    private final String markKey;
    private volatile List<Partition> partitions = List.of();

    PartitionSpan(QueueContext context, String name, int count) {
        this.context = context;
        this.name = name;
        this.markKey = QueueKeys.ofUserName(name).partitionsMark();
        grow(count);
    }

    /**
     * Raises the mark of {@code name} to {@code count} if it is lower (one round trip).
     *
     * @return the mark now recorded, at least {@code count}
     * @throws IllegalArgumentException if the name is invalid, or count is outside 1..{@link #MAX_PARTITIONS}
     * @throws IllegalStateException if the mark holds something other than a count
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    static int declare(QueueContext context, String name, int count) {
        QueueKeys.ofUserName(name);
        if (count < 1 || count > MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions must be in 1.." + MAX_PARTITIONS + ", was "
                    + count);
        }
        return mark(context.engine(), name, count);
    }

    /**
     * @return the stored partition count of {@code name}, 0 if none (one round trip, nothing written)
     * @throws IllegalArgumentException if the name is invalid
     * @throws IllegalStateException if the mark holds something other than a count
     */
    static int read(QueueContext context, String name) {
        return mark(context.engine(), name, 0);
    }

    private static int mark(RedisEngine engine, String name, int count) {
        String mark = QueueKeys.ofUserName(name).partitionsMark();
        return checkMark(RedisEngine.await(call(engine, mark, count), Scripts.PARTITIONS.label(), name), mark);
    }

    /** @return the partitions spanned now, index i for partition i */
    List<Partition> queues() {
        return partitions;
    }

    /** @return completes with the number of partitions spanned after the mark was read again */
    CompletableFuture<Integer> refreshAsync() {
        return call(context.engine(), markKey, 0).thenApply(m -> {
            grow(checkMark(m, markKey));
            return partitions.size();
        });
    }

    private synchronized void grow(int count) {
        List<Partition> now = partitions;
        if (count <= now.size()) {
            return;
        }
        List<Partition> next = new ArrayList<>(now);
        for (int i = now.size(); i < count; i++) {
            next.add(new Partition(context, QueueKeys.partition(name, i), name, i + "-"));
        }
        partitions = List.copyOf(next);
    }

    private static CompletableFuture<Long> call(RedisEngine engine, String mark, int count) {
        return engine.run(engine.binary(), Scripts.PARTITIONS, ScriptOutputType.INTEGER,
                new String[] {mark}, QueueWire.num(count));
    }

    private static int checkMark(long mark, String key) {
        if (mark < 0 || mark > MAX_PARTITIONS) {
            throw new IllegalStateException(key + " does not hold a partition count in 1.."
                    + MAX_PARTITIONS + "; fix or delete it");
        }
        return (int) mark;
    }
}
