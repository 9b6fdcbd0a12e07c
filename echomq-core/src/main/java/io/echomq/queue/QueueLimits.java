package io.echomq.queue;

import io.echomq.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The argument checks that {@link Queue} and {@link ShardedQueue} share, so that both refuse the
 * same values with the same message before Redis is touched.
 *
 * <ol>
 *   <li>A lease: {@link Queue#MIN_LEASE}..{@link Queue#MAX_LEASE} ({@link #leaseMillis}).</li>
 *   <li>A claim's size: 1..{@link Queue#MAX_CLAIM} ({@link #claimMax}).</li>
 *   <li>A batch limit: 1..{@link Queue#MAX_BATCH} ({@link #batch}).</li>
 *   <li>A collection of ids: 1..{@link Queue#MAX_BATCH} of them, none null ({@link #idCount}),
 *       and, for a plain queue, each a valid job id ({@link #jobIds}).</li>
 * </ol>
 *
 * <p>Each throws {@link IllegalArgumentException} naming the value and its range.
 */
final class QueueLimits {
    private QueueLimits() {
    }

    /** @return the lease in ms */
    static long leaseMillis(Duration lease) {
        long ms = Checks.ttlMillis(lease, Queue.MAX_LEASE, "lease");
        if (ms < Queue.MIN_LEASE.toMillis()) {
            throw new IllegalArgumentException("lease must be at least " + Queue.MIN_LEASE.toMillis() + " ms, was "
                    + lease);
        }
        return ms;
    }

    static void claimMax(int max) {
        range(max, Queue.MAX_CLAIM, "max");
    }

    static void batch(int limit) {
        range(limit, Queue.MAX_BATCH, "limit");
    }

    /** Checks that {@code ids} is not null and holds 1..{@link Queue#MAX_BATCH} ids. */
    static void idCount(Collection<String> ids) {
        Checks.notNull(ids, "ids");
        if (ids.isEmpty() || ids.size() > Queue.MAX_BATCH) {
            throw new IllegalArgumentException("ids must hold 1.." + Queue.MAX_BATCH + " ids, held " + ids.size());
        }
    }

    /** @return the ids, in order, each checked as a job id of a plain queue */
    static List<String> jobIds(Collection<String> ids) {
        idCount(ids);
        List<String> out = new ArrayList<>(ids.size());
        for (String id : ids) {
            out.add(Checks.jobId(id));
        }
        return out;
    }

    private static void range(int v, int max, String what) {
        if (v < 1 || v > max) {
            throw new IllegalArgumentException(what + " must be in 1.." + max + ", was " + v);
        }
    }
}
