package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * A job's worker-side lock subkey {@code emq:{q}:job:<id>:lock} as a tool may show it (the
 * dashboard): whether a lease runs, for which attempt, and how long it has left.
 *
 * <p>The subkey holds the running attempt (the job's fence) and expires with the lease
 * (docs/protocol.md, "Keys"): it exists exactly while a lease runs. {@link #read} sends
 * {@code GET} and {@code PTTL} in one round trip, not as one atomic step: when the key expires
 * between them, the answer is "not held", never a held lock with no ttl.
 *
 * @param held      whether the subkey exists, that is whether a worker holds the job now
 * @param attempt   the attempt stored in it (the fence the holder must present), or -1 when not
 *                  held or not a number (a foreign write)
 * @param ttlMillis the lease time left in ms as {@code PTTL} reports it: -2 when not held, -1 when
 *                  held with no expiry (a foreign write: no script sets one)
 */
public record JobLock(boolean held, long attempt, long ttlMillis) {

    /**
     * Reads the lock subkey of job {@code id}.
     *
     * @param queue a {@link Queue} or a {@link ShardedQueue}
     * @param id    the job's id as the queue names it ({@code <partition>-<id>} for a sharded queue)
     * @return the subkey as read
     * @throws IllegalArgumentException if queue or id is null, or the id is invalid (for a sharded
     *     queue, not of the form {@code <partition>-<id>}, or of a partition beyond its span)
     * @throws io.echomq.RedisCommandException if Redis fails, or the subkey is no string
     */
    public static JobLock read(QueueOperations queue, String id) {
        Checks.notNull(queue, "queue");
        Checks.notNull(id, "id");
        JobHome at = QueueFacade.of(queue).home(id);
        QueueKeys keys = at.wire().keys();
        String key = keys.lock(at.localId());
        RedisClusterAsyncCommands<String, byte[]> commands = at.wire().async();
        RedisFuture<byte[]> value = commands.get(key);
        RedisFuture<Long> pttl = commands.pttl(key);
        byte[] v = RedisEngine.await(value.toCompletableFuture(), "GET job lock", keys.queue());
        long ttl = RedisEngine.await(pttl.toCompletableFuture(), "PTTL job lock", keys.queue());
        if (v == null || ttl == -2) {
            return new JobLock(false, -1, -2);
        }
        long attempt;
        try {
            attempt = Long.parseLong(QueueWire.text(v));
        } catch (NumberFormatException e) {
            attempt = -1;
        }
        return new JobLock(true, attempt, ttl);
    }
}
