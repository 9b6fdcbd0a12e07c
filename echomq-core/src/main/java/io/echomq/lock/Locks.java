package io.echomq.lock;

import io.echomq.RedisCommandException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The lock contract that every EchoMQ lock client honours: {@link LockClient} on one server (or
 * one Redis Cluster), {@link RedlockClient} over N independent masters. Program against this
 * interface (the CLI does) and choose the client when connecting.
 *
 * <pre>{@code
 * Locks locks = LockClient.create("redis://127.0.0.1:6379");   // or RedlockClient.create(urls)
 * Optional<Lease> maybe = locks.tryAcquire("orders", Duration.ofSeconds(30));
 * try (Lease lease = locks.acquire("orders", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
 *     // ... work, for at most lease.remaining() ...
 * }
 * }</pre>
 *
 * <ol>
 *   <li><b>Try</b>: {@link #tryAcquire} answers at once; "held by someone else" is an empty
 *       {@link Optional}, never an exception.</li>
 *   <li><b>Acquire</b>: {@link #acquire} waits up to {@code maxWait}; running out is a
 *       {@link LockWaitTimeoutException}.</li>
 *   <li><b>Release and renew</b>: by the {@link Lease} handle, or by resource and token
 *       ({@link #release}, {@link #renew}) for a holder that kept only the token. Both check the
 *       token, so neither ever touches a lock since granted to someone else.</li>
 *   <li><b>Inspect</b>: {@link #inspect} reads who holds the lock, for how long, and its last
 *       fence.</li>
 * </ol>
 *
 * <p><b>The same on every client.</b> Resource names follow one rule: not null, not empty, at most
 * 1024 bytes of UTF-8, no unpaired surrogate, and no '{' or '}' (the resource is the hash tag of
 * its keys). Ttls are 1 ms to {@link LockClient#MAX_TTL}. Bad input throws
 * {@link IllegalArgumentException} before anything is sent. A lease is owned by its handle, not by a
 * thread. {@link AcquireOptions#withWatchdog()} renews it at about ttl/3.
 *
 * <p><b>Where the clients differ.</b>
 * <ul>
 *   <li>The fence: on {@link LockClient} it strictly increases across every grant of a resource;
 *       on {@link RedlockClient} it is best-effort (the largest of the granting masters' own
 *       fences), which can fail to rise when a write-back is lost or a master's clock steps back.</li>
 *   <li>{@link AcquireOptions#waitForReplicas}: {@link LockClient} sends {@code WAIT} after a
 *       grant on a single server; it refuses the option on a {@code redis-cluster://} URL, and
 *       {@link RedlockClient} always refuses it, with an {@link UnsupportedOperationException}
 *       thrown before anything is sent.</li>
 *   <li>Failures: {@link RedlockClient} throws {@link RedlockQuorumException} (a
 *       {@link RedisCommandException}) when fewer than a quorum of masters answered.</li>
 *   <li>Waiting: {@link LockClient} wakes on the release notification and may hand a released
 *       lock straight to a local waiter; {@link RedlockClient} retries after a jittered delay.</li>
 *   <li>A guarded store ({@link LockClient#fencedStore()}) exists only on {@link LockClient}: it
 *       lives on one server. With Redlock, pass the fence to the protected resource yourself.</li>
 * </ul>
 *
 * <p>Implementations are thread-safe; one client serves a whole application. A decorator (metrics,
 * logging) may implement it too, by delegating, and must keep this contract.
 */
public interface Locks extends AutoCloseable {

    /**
     * Fenced acquire without waiting: {@link #tryAcquire(String, Duration, AcquireOptions)} with
     * {@link AcquireOptions#defaults()}.
     *
     * @throws IllegalArgumentException if the resource or ttl is invalid
     * @throws RedisCommandException if Redis fails (on Redlock: a {@link RedlockQuorumException}
     *     when fewer than a quorum of masters answered)
     */
    default Optional<Lease> tryAcquire(String resource, Duration ttl) {
        return tryAcquire(resource, ttl, AcquireOptions.defaults());
    }

    /**
     * Tries once to acquire {@code resource} for {@code ttl}.
     *
     * @return the lease, or empty when someone else holds the lock ("held" is not an error)
     * @throws IllegalArgumentException if the resource breaks the name rule (class doc), the ttl
     *     is null, under 1 ms or over {@link LockClient#MAX_TTL}, or options is null or invalid for
     *     this client
     * @throws UnsupportedOperationException if the options wait for replicas where this client
     *     cannot (a cluster URL, or Redlock); nothing was sent
     * @throws ReplicaAckException if the options wait for replicas and too few acknowledged the
     *     grant; the grant was released
     * @throws RedisCommandException if Redis fails; whether the lock was taken is then unknown,
     *     and an unknown grant expires by its ttl. On Redlock a {@link RedlockQuorumException} when
     *     fewer than a quorum of masters answered; nothing is then held
     */
    Optional<Lease> tryAcquire(String resource, Duration ttl, AcquireOptions options);

    /**
     * Asynchronous {@link #tryAcquire(String, Duration, AcquireOptions)}. Arguments are checked
     * before this method returns; Redis failures, too few replica acknowledgements and a missing
     * quorum fail the future with the exceptions listed there.
     *
     * @throws IllegalArgumentException on bad input
     * @throws UnsupportedOperationException if the options wait for replicas where this client cannot
     */
    CompletableFuture<Optional<Lease>> tryAcquireAsync(String resource, Duration ttl, AcquireOptions options);

    /**
     * Fenced acquire that waits up to {@code maxWait}: {@link #acquire(String, Duration, Duration,
     * AcquireOptions)} with {@link AcquireOptions#defaults()}.
     *
     * @throws IllegalArgumentException if any argument is invalid, or maxWait is negative
     * @throws LockWaitTimeoutException if the lock was still held when {@code maxWait} ran out
     * @throws InterruptedException if the calling thread is interrupted while waiting
     * @throws RedisCommandException if Redis fails
     */
    default Lease acquire(String resource, Duration ttl, Duration maxWait) throws InterruptedException {
        return acquire(resource, ttl, maxWait, AcquireOptions.defaults());
    }

    /**
     * Acquires {@code resource}, waiting up to {@code maxWait} for the holder to release it or for
     * its ttl to run out. A {@code maxWait} of zero tries once.
     *
     * @return the lease
     * @throws IllegalArgumentException if any argument is invalid, or maxWait is null or negative
     * @throws UnsupportedOperationException if the options wait for replicas where this client
     *     cannot; nothing was sent
     * @throws LockWaitTimeoutException if the lock was still held when {@code maxWait} ran out;
     *     nothing is held
     * @throws ReplicaAckException if the options wait for replicas and too few acknowledged a
     *     grant; that grant was released and the wait ends there
     * @throws InterruptedException if the calling thread is interrupted while waiting or while an
     *     attempt is in flight; nothing is then held, except that an attempt interrupted in flight
     *     may have been granted on the server(s), and that grant expires by its ttl
     * @throws RedisCommandException if Redis fails (on Redlock: a {@link RedlockQuorumException},
     *     thrown at once, not retried)
     */
    Lease acquire(String resource, Duration ttl, Duration maxWait, AcquireOptions options)
            throws InterruptedException;

    /**
     * Releases {@code resource} if, and only if, it still holds {@code token}: compare-and-delete.
     * Safe to retry.
     *
     * @return {@code RELEASED}, {@code NOT_OWNER} (someone else holds it) or {@code EXPIRED}
     *     (nobody holds it); each is an answer, not a failure
     * @throws IllegalArgumentException if the resource or token is invalid
     * @throws RedisCommandException if Redis fails (on Redlock: {@link RedlockQuorumException} when
     *     no master released it and fewer than a quorum answered)
     */
    ReleaseOutcome release(String resource, String token);

    /**
     * Sets the ttl of {@code resource} to {@code ttl} if, and only if, it still holds
     * {@code token}: compare-and-{@code PEXPIRE}. Never revives an expired lock.
     *
     * @return {@code RENEWED}, {@code NOT_OWNER} or {@code EXPIRED}
     * @throws IllegalArgumentException if the resource, token or ttl is invalid
     * @throws RedisCommandException if Redis fails (on Redlock: {@link RedlockQuorumException} when
     *     too few masters answered to decide)
     */
    RenewOutcome renew(String resource, String token, Duration ttl);

    /**
     * Reads who holds {@code resource}, for how long, and its last fence. On {@link LockClient}
     * this is one atomic read; on {@link RedlockClient} it is the verdict of the masters: held by
     * the token that a quorum of them hold, for as long as a quorum still will, with the largest
     * fence any of them granted (per-master detail: {@link RedlockClient#inspectMasters}).
     *
     * @throws IllegalArgumentException if the resource is invalid
     * @throws RedisCommandException if Redis fails (on Redlock: {@link RedlockQuorumException} when
     *     fewer than a quorum of masters answered)
     */
    LockInfo inspect(String resource);

    /**
     * @return the Redis key that holds {@code resource}'s token (on every master, for Redlock), for
     *     tools and tests
     * @throws IllegalArgumentException if the resource is invalid
     */
    String lockKey(String resource);

    /**
     * Closes the connections and stops the watchdog. Outstanding leases are not released: they
     * expire by their ttl, and the watchdog stops renewing them.
     */
    @Override
    void close();
}
