package io.echomq.queue;

import io.echomq.internal.Checks;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

/**
 * The routing of a {@link ShardedQueue}: which partition a new job goes to, and which partition
 * an id names.
 *
 * <ol>
 *   <li>Hashes a partition key or an idempotency key to a partition ({@link #partitionOf}):
 *       CRC-32 of its UTF-8 bytes, modulo the count.</li>
 *   <li>Picks each job's partition among this instance's declared count ({@link #targets}): its
 *       idempotency key's, so that the key still enqueues once; else round-robin, from a random
 *       start per instance. A partition key sends every job to its own partition
 *       ({@link #sameTarget}).</li>
 *   <li>Reads an id {@code <partition>-<id>} ({@link #locate}), and groups many by partition
 *       ({@link #group}); a partition beyond the span holds nothing.</li>
 * </ol>
 *
 * <p>Both directions live here because they are the one rule of the id's form and the count.
 * Thread-safe.
 */
final class ShardRouting {
    private final int declared;
    private final PartitionSpan span;
    private final AtomicLong roundRobin = new AtomicLong(ThreadLocalRandom.current().nextInt(1 << 20));

    ShardRouting(int declared, PartitionSpan span) {
        this.declared = declared;
        this.span = span;
    }

    int declared() {
        return declared;
    }

    /** @see ShardedQueue#partitionOf */
    static int partitionOf(String key, int k) {
        Checks.notNull(key, "key");
        if (k < 1 || k > PartitionSpan.MAX_PARTITIONS) {
            throw new IllegalArgumentException("k must be in 1.." + PartitionSpan.MAX_PARTITIONS + ", was " + k);
        }
        CRC32 crc = new CRC32();
        crc.update(key.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % k);
    }

    /** @return each checked request's partition, in order */
    int[] targets(List<JobRequest> requests) {
        int[] target = new int[requests.size()];
        for (int i = 0; i < requests.size(); i++) {
            String idem = requests.get(i).options().idempotencyKey();
            target[i] = idem.isEmpty() ? (int) Math.floorMod(roundRobin.getAndIncrement(), (long) declared)
                    : partitionOf(idem, declared);
        }
        return target;
    }

    /** @return the partition of {@code partitionKey}, {@code n} times */
    int[] sameTarget(String partitionKey, int n) {
        int[] target = new int[n];
        Arrays.fill(target, partitionOf(partitionKey, declared));
        return target;
    }

    /**
     * @return where the id lives, or null for a partition beyond the span
     * @throws IllegalArgumentException if the id is not of the form {@code <partition>-<id>}
     */
    JobHome locate(String id) {
        Checks.name(id, "job id");
        int dash = id.indexOf('-');
        if (dash < 1 || dash > 4 || dash == id.length() - 1 || !id.substring(0, dash).chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException("job id '" + id + "' is not of the form <partition>-<id>, "
                    + "as the ids of a sharded queue are");
        }
        int index = Integer.parseInt(id.substring(0, dash));
        List<Partition> now = span.queues();
        if (index >= now.size()) {
            return null;
        }
        return new JobHome(now.get(index), id.substring(dash + 1));
    }

    /**
     * @return the partitions' own ids, by partition; ids beyond the span are left out
     * @throws IllegalArgumentException if ids is null, empty, over {@link Queue#MAX_BATCH}, or
     *     holds an id not of the form {@code <partition>-<id>}; every id is read before any is grouped
     */
    Map<Partition, List<String>> group(Collection<String> ids) {
        QueueLimits.idCount(ids);
        List<JobHome> found = new ArrayList<>(ids.size());
        for (String id : ids) {
            found.add(locate(id));
        }
        Map<Partition, List<String>> out = new LinkedHashMap<>();
        for (JobHome at : found) {
            if (at != null) {
                out.computeIfAbsent(at.partition(), q -> new ArrayList<>()).add(at.localId());
            }
        }
        return out;
    }

    /**
     * @return the job's hash read from its partition, its id in the {@code <partition>-<id>} form;
     *     empty for a partition beyond the mark or a missing job
     * @throws IllegalArgumentException if the id is not of the form {@code <partition>-<id>}
     */
    Optional<JobInfo> inspect(String id) {
        JobHome at = locate(id);
        if (at == null) {
            return Optional.empty();
        }
        return at.partition().inspect(at.localId()).map(i -> new JobInfo(id, i.state(), i.attempts(), i.fields()));
    }
}
