package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import io.lettuce.core.RedisFuture;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The last errors of listed jobs, read for a tool (the dashboard's dead tab, {@code emq queue
 * list --format json}) without their payloads: one {@code HGET <job> last_error} per id, all sent
 * before the first answer is awaited, so a page of jobs costs one round trip, not one per job,
 * and never carries a payload as {@link QueueOperations#inspect} would.
 */
public final class JobErrors {
    /** Most ids one read takes. */
    public static final int MAX_IDS = QueueLimits.MAX_BATCH;

    private JobErrors() {
    }

    /**
     * @param queue a {@link Queue} or a {@link ShardedQueue}
     * @param ids   job ids as the queue names them ({@code <partition>-<id>} for a sharded queue),
     *              at most {@link #MAX_IDS}
     * @return each id that has a {@code last_error} mapped to it whole, in the order of {@code ids}; an
     *     id whose job is gone or never failed is left out
     * @throws IllegalArgumentException if queue or ids is null, there are more than {@link #MAX_IDS}
     *     ids, or an id is invalid (for a sharded queue, not of the form {@code <partition>-<id>})
     * @throws io.echomq.RedisCommandException if Redis fails or a job key is no hash
     */
    public static Map<String, String> lastErrors(QueueOperations queue, List<String> ids) {
        Checks.notNull(queue, "queue");
        Checks.notNull(ids, "ids");
        if (ids.size() > MAX_IDS) {
            throw new IllegalArgumentException("at most " + MAX_IDS + " ids, got " + ids.size());
        }
        var facade = QueueFacade.of(queue);
        List<RedisFuture<byte[]>> reads = new ArrayList<>(ids.size());
        List<String> names = new ArrayList<>(ids.size());
        for (String id : ids) {
            Checks.notNull(id, "id");
            JobHome at = facade.home(id);
            QueueKeys keys = at.wire().keys();
            reads.add(at.wire().async().hget(keys.job(at.localId()), "last_error"));
            names.add(keys.queue());
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < reads.size(); i++) {
            byte[] v = RedisEngine.await(reads.get(i).toCompletableFuture(), "HGET last_error", names.get(i));
            if (v != null) {
                out.put(ids.get(i), QueueWire.text(v));
            }
        }
        return out;
    }
}
