package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.List;

/**
 * A job's worker-side lease as a tool may show it (the dashboard): whether a lease runs, for which
 * attempt, and how long it has left.
 *
 * <p>Two records carry a lease (docs/protocol.md, "Keys" and "Pending layouts"). The job's score
 * in {@code emq:{q}:active} is its lease deadline in every layout. The lock subkey
 * {@code emq:{q}:job:<id>:lock} holds the running attempt and expires with the lease; only the
 * ZSET layout's claims write it (and older clients did). {@link #read} sends {@code GET} and
 * {@code PTTL} of the subkey, {@code ZSCORE} of active, {@code HGET attempts} of the job's hash and
 * {@code TIME} in one round trip, not as one atomic step. When the subkey exists, the answer is the
 * subkey's; else it is the active score's: held while the deadline is above the server's now, with
 * the hash's attempts and the ms left to the deadline. When the subkey expires between
 * {@code GET} and {@code PTTL}, it counts as absent, never as a held lock with no ttl.
 *
 * @param held      whether a worker holds the job now: the subkey exists, or the job's lease
 *                  deadline in active is still ahead
 * @param attempt   the attempt stored in the subkey, else the job's attempts (the fence the holder
 *                  must present); -1 when not held or not a number (a foreign write)
 * @param ttlMillis the lease time left in ms: the subkey's {@code PTTL}, else the deadline minus
 *                  the server's now; -2 when not held, -1 when the subkey is held with no expiry (a
 *                  foreign write: no script sets one)
 */
public record JobLock(boolean held, long attempt, long ttlMillis) {

    /**
     * Reads the lease of job {@code id}: its lock subkey, else its score in active.
     *
     * @param queue a {@link Queue} or a {@link ShardedQueue}
     * @param id    the job's id as the queue names it ({@code <partition>-<id>} for a sharded queue)
     * @return the lease as read
     * @throws IllegalArgumentException if queue or id is null, or the id is invalid (for a sharded
     *     queue, not of the form {@code <partition>-<id>}, or of a partition beyond its span)
     * @throws io.echomq.RedisCommandException if Redis fails, the subkey is no string, active no
     *     ZSET or the job key no hash
     */
    public static JobLock read(QueueOperations queue, String id) {
        Checks.notNull(queue, "queue");
        Checks.notNull(id, "id");
        JobHome at = QueueFacade.of(queue).home(id);
        QueueKeys keys = at.wire().keys();
        String localId = at.localId();
        String key = keys.lock(localId);
        RedisClusterAsyncCommands<String, byte[]> commands = at.wire().async();
        RedisFuture<byte[]> value = commands.get(key);
        RedisFuture<Long> pttl = commands.pttl(key);
        RedisFuture<Double> score = commands.zscore(keys.active(), QueueWire.bytes(localId));
        RedisFuture<byte[]> attempts = commands.hget(keys.job(localId), "attempts");
        RedisFuture<List<byte[]>> time = commands.time();
        byte[] v = RedisEngine.await(value.toCompletableFuture(), "GET job lock", keys.queue());
        long ttl = RedisEngine.await(pttl.toCompletableFuture(), "PTTL job lock", keys.queue());
        Double deadline = RedisEngine.await(score.toCompletableFuture(), "ZSCORE active", keys.queue());
        byte[] a = RedisEngine.await(attempts.toCompletableFuture(), "HGET attempts", keys.queue());
        List<byte[]> t = RedisEngine.await(time.toCompletableFuture(), "TIME", keys.queue());
        if (v != null && ttl != -2) {
            return new JobLock(true, number(v), ttl);
        }
        long now = Long.parseLong(QueueWire.text(t.get(0))) * 1000 + Long.parseLong(QueueWire.text(t.get(1))) / 1000;
        if (deadline == null || deadline.longValue() <= now) {
            return new JobLock(false, -1, -2);
        }
        return new JobLock(true, a == null ? -1 : number(a), deadline.longValue() - now);
    }

    /** @return the decimal integer v holds, or -1 when it holds none */
    private static long number(byte[] v) {
        try {
            return Long.parseLong(QueueWire.text(v));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
