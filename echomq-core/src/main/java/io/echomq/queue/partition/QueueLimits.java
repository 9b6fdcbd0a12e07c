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
 *   <li>A lease: {@link #MIN_LEASE}..{@link #MAX_LEASE} ({@link #leaseMillis}).</li>
 *   <li>A claim's size: 1..{@link #MAX_CLAIM} ({@link #claimMax}).</li>
 *   <li>A batch limit: 1..{@link #MAX_BATCH} ({@link #batch}).</li>
 *   <li>A collection of ids: 1..{@link #MAX_BATCH} of them, none null ({@link #idCount}),
 *       and, for a plain queue, each a valid job id ({@link #jobIds}).</li>
 * </ol>
 *
 * <p>Each throws {@link IllegalArgumentException} naming the value and its range.
 */
final class QueueLimits {
    /** Shortest lease accepted. */
    static final Duration MIN_LEASE = Duration.ofMillis(20);
    /** Longest lease accepted; longer jobs extend. */
    static final Duration MAX_LEASE = Duration.ofDays(1);
    /** Most jobs one claim may ask for. */
    static final int MAX_CLAIM = 1000;
    /** Most entries one reap, promote, redrive, purge, dead listing or id list handles. */
    static final int MAX_BATCH = 10_000;

    private QueueLimits() {
    }

    /** @return the lease in ms */
    static long leaseMillis(Duration lease) {
        long ms = Checks.ttlMillis(lease, MAX_LEASE, "lease");
        if (ms < MIN_LEASE.toMillis()) {
            throw new IllegalArgumentException("lease must be at least " + MIN_LEASE.toMillis() + " ms, was "
                    + lease);
        }
        return ms;
    }

    static void claimMax(int max) {
        range(max, MAX_CLAIM, "max");
    }

    static void batch(int limit) {
        range(limit, MAX_BATCH, "limit");
    }

    /** Checks that {@code ids} is not null and holds 1..{@link #MAX_BATCH} ids. */
    static void idCount(Collection<String> ids) {
        Checks.notNull(ids, "ids");
        if (ids.isEmpty() || ids.size() > MAX_BATCH) {
            throw new IllegalArgumentException("ids must hold 1.." + MAX_BATCH + " ids, held " + ids.size());
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
