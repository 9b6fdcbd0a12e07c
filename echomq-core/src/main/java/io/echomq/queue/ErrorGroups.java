package io.echomq.queue;

import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a queue's top errors: its failed attempts grouped by the first line of their error, with
 * counts and first and last seen, from the groups {@code fail-4} keeps in {@code emq:{q}:errors}
 * ({@code docs/protocol.md}, "Error groups").
 *
 * <ol>
 *   <li>The groups are counted as the failures happen, so a read costs one {@code HGETALL} per
 *       queue (each partition of a sharded queue), of at most {@link #MAX_GROUPS} fields, whatever
 *       the queue has failed: no walk of the dead set or of the jobs.</li>
 *   <li>The store keeps the {@link #MAX_GROUPS} most recently seen groups; an error not seen since
 *       a hundred others were is dropped and, seen again, counts from 1.</li>
 *   <li>A sharded queue's groups are summed over its partitions: counts added, the earliest first
 *       and the latest last seen.</li>
 * </ol>
 *
 * <p>Thread-safe.
 */
public final class ErrorGroups {
    /** Most groups one queue (one partition of a sharded queue) keeps. */
    public static final int MAX_GROUPS = 100;

    private final QueueContext context;

    private ErrorGroups(QueueContext context) {
        this.context = context;
    }

    /**
     * @param client the client whose server to read; not closed by the reader
     * @return a reader of that server's error groups
     * @throws NullPointerException if client is null
     */
    public static ErrorGroups of(QueueClient client) {
        return new ErrorGroups(Objects.requireNonNull(client, "client").context());
    }

    /**
     * @param queueName a queue's name, plain or sharded
     * @param limit     most groups answered, 1..{@link #MAX_GROUPS} times the partitions
     * @return the queue's error groups, the most counted first (then the latest seen first, then
     *     by fingerprint), at most {@code limit}; empty when the queue has not failed
     * @throws IllegalArgumentException if the name is invalid or limit is not positive
     * @throws IllegalStateException if a sharded queue's mark holds something other than a count
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public List<ErrorGroup> top(String queueName, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive, was " + limit);
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
        List<CompletableFuture<Map<String, String>>> reads = new ArrayList<>();
        for (QueueKeys k : queues) {
            reads.add(commands.hgetall(k.errors()).toCompletableFuture());
        }
        Map<String, ErrorGroup> merged = new LinkedHashMap<>();
        for (CompletableFuture<Map<String, String>> read : reads) {
            RedisEngine.await(read, "HGETALL", queueName).forEach((fingerprint, value) -> {
                ErrorGroup g = group(fingerprint, value);
                if (g != null) {
                    merged.merge(fingerprint, g, ErrorGroups::sum);
                }
            });
        }
        return merged.values().stream()
                .sorted(Comparator.comparingLong(ErrorGroup::count).reversed()
                        .thenComparing(ErrorGroup::lastSeen, Comparator.reverseOrder())
                        .thenComparing(ErrorGroup::fingerprint))
                .limit(limit).toList();
    }

    /** @return the group a stored value {@code <count>:<first ms>:<last ms>} states, or null if malformed */
    static ErrorGroup group(String fingerprint, String value) {
        String[] parts = value.split(":");
        if (parts.length != 3) {
            return null;
        }
        try {
            return new ErrorGroup(fingerprint, Long.parseLong(parts[0]), Instant.ofEpochMilli(Long.parseLong(parts[1])),
                    Instant.ofEpochMilli(Long.parseLong(parts[2])));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static ErrorGroup sum(ErrorGroup a, ErrorGroup b) {
        return new ErrorGroup(a.fingerprint(), a.count() + b.count(),
                a.firstSeen().isBefore(b.firstSeen()) ? a.firstSeen() : b.firstSeen(),
                a.lastSeen().isAfter(b.lastSeen()) ? a.lastSeen() : b.lastSeen());
    }
}
