package io.echomq.spring.integration;

import io.echomq.lock.Lease;
import io.echomq.lock.LeaseLock;
import io.echomq.lock.LockClient;
import io.echomq.lock.Locks;
import io.echomq.lock.RenewOutcome;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;

/**
 * Spring Integration's lock registry over an EchoMQ {@link Locks} client, for teams who use
 * {@code RedisLockRegistry} today: the same constructor shape, {@code (client, registryKey[,
 * expireAfter])}, and the same interfaces ({@link ExpirableLockRegistry},
 * {@link RenewableLockRegistry} of {@link DistributedLock}).
 *
 * <pre>{@code
 * @Bean
 * EchoMQLockRegistry lockRegistry(LockClient locks) {
 *     return new EchoMQLockRegistry(locks, "my-app");        // was: new RedisLockRegistry(factory, "my-app")
 * }
 * }</pre>
 *
 * <ol>
 *   <li><b>obtain</b> returns one {@link EchoMQLock} per key (cached): a {@link LeaseLock} on the
 *       resource {@code <registryKey>:<key>}, whose holds are fenced leases of
 *       {@code expireAfter} (60 s unless given), renewed by the client's watchdog.</li>
 *   <li><b>renewLock</b> renews the calling thread's hold, by token, to {@code expireAfter} or
 *       the given ttl; the watchdog carries on with that ttl.</li>
 *   <li><b>expireUnusedOlderThan</b> forgets cached lock objects that nobody in this JVM holds
 *       and that were last acquired more than {@code age} ago. It touches nothing in Redis.</li>
 * </ol>
 *
 * <p>Where it differs from {@code RedisLockRegistry} (docs/integrations.md has the table):
 * <ul>
 *   <li>Every hold is renewed by the watchdog while the process lives, with or without
 *       {@link #setRenewalTaskScheduler} (which is accepted and not needed), and carries a fence
 *       ({@link EchoMQLock#currentFence()}).</li>
 *   <li>{@code unlock} by a thread that does not hold the lock throws
 *       {@link IllegalMonitorStateException}, as the {@code Lock} contract says ({@code RedisLockRegistry}
 *       throws {@code IllegalStateException}); a lease lost while held makes the last unlock throw
 *       {@link io.echomq.lock.LockLostException} (there: {@code ConcurrentModificationException}),
 *       and {@link Lease#onLost} tells the holder at once.</li>
 *   <li>Exclusion never rests on the cache: two lock objects for one key (one evicted, one new)
 *       still exclude each other through Redis, so an evicted lock keeps working. Reentrancy is
 *       per lock object, as there.</li>
 *   <li>Waiters wake on the release notification, not on a spin interval.</li>
 * </ul>
 *
 * <p>Thread-safe. It does not close the client.
 */
public final class EchoMQLockRegistry
        implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {
    /** The ttl of each hold unless one is given: 60 s, as {@code RedisLockRegistry}'s expireAfter. */
    public static final Duration DEFAULT_EXPIRE_AFTER = Duration.ofSeconds(60);
    /** How many unheld lock objects the cache keeps before it forgets them on the next obtain. */
    public static final int DEFAULT_CACHE_CAPACITY = 100_000;

    private final Locks locks;
    private final String registryKey;
    private final Duration expireAfter;
    private final ConcurrentHashMap<String, EchoMQLock> cache = new ConcurrentHashMap<>();
    private volatile int cacheCapacity = DEFAULT_CACHE_CAPACITY;

    /**
     * A registry whose holds last {@link #DEFAULT_EXPIRE_AFTER} between renewals.
     *
     * @throws IllegalArgumentException as {@link #EchoMQLockRegistry(Locks, String, Duration)}
     */
    public EchoMQLockRegistry(Locks locks, String registryKey) {
        this(locks, registryKey, DEFAULT_EXPIRE_AFTER);
    }

    /**
     * @param locks       the client (a {@link LockClient} or a {@code RedlockClient}); not closed here
     * @param registryKey the prefix of every resource, {@code <registryKey>:<key>}
     * @param expireAfter the ttl of each hold: how long a crashed holder keeps the lock
     * @throws IllegalArgumentException if {@code locks} is null, the registry key is null, empty
     *     or holds '{' or '}', or {@code expireAfter} is null, under 1 ms or over one day
     */
    public EchoMQLockRegistry(Locks locks, String registryKey, Duration expireAfter) {
        if (locks == null) {
            throw new IllegalArgumentException("locks must not be null");
        }
        if (registryKey == null || registryKey.isEmpty() || registryKey.indexOf('{') >= 0
                || registryKey.indexOf('}') >= 0) {
            throw new IllegalArgumentException("registryKey must not be null, empty, nor hold '{' or '}': "
                    + registryKey);
        }
        LeaseLock.of(locks, registryKey, expireAfter);   // checks the ttl by the client's own rule
        this.locks = locks;
        this.registryKey = registryKey;
        this.expireAfter = expireAfter;
    }

    /**
     * @param lockKey a {@code String}, as in {@code RedisLockRegistry}
     * @return the lock for this key; the same object while it stays cached
     * @throws IllegalArgumentException if the key is not a {@code String}, or makes an invalid
     *     resource (over 1024 bytes, or holding a brace)
     */
    @Override
    public EchoMQLock obtain(Object lockKey) {
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("lockKey must be a String, was "
                    + (lockKey == null ? "null" : lockKey.getClass().getName()));
        }
        EchoMQLock lock = cache.computeIfAbsent(key,
                k -> new EchoMQLock(k, LeaseLock.of(locks, registryKey + ":" + k, expireAfter)));
        if (cache.size() > cacheCapacity) {
            cache.values().removeIf(cached -> cached != lock && !cached.isLocked());
        }
        return lock;
    }

    /**
     * Forgets cached lock objects that no thread of this JVM holds and that were last acquired
     * {@code age} milliseconds ago or more. Redis is not touched: a lock held elsewhere stays held.
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.currentTimeMillis();
        cache.values().removeIf(lock -> !lock.isLocked() && now - lock.lastAcquiredMillis() >= age);
    }

    /**
     * Renews the calling thread's hold on {@code lockKey} to {@code expireAfter}.
     *
     * @throws IllegalStateException if the calling thread does not hold it, or the renewal found
     *     it lost
     */
    @Override
    public void renewLock(Object lockKey) {
        renewLock(lockKey, expireAfter);
    }

    /**
     * Renews the calling thread's hold on {@code lockKey} to {@code ttl}, by token; the watchdog
     * then renews it with that ttl.
     *
     * @throws IllegalArgumentException if the ttl is null, under 1 ms or over one day
     * @throws IllegalStateException if the calling thread does not hold it, or the renewal found
     *     it lost (expired, or taken)
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        EchoMQLock lock = lockKey instanceof String key ? cache.get(key) : null;
        if (lock == null || !lock.isHeldByCurrentThread()) {
            throw new IllegalStateException("Could not renew lock '" + lockKey + "': the current thread does not hold it");
        }
        RenewOutcome outcome = lock.currentLease().renew(ttl);
        if (outcome != RenewOutcome.RENEWED) {
            throw new IllegalStateException("Could not renew lock '" + lockKey + "': " + outcome);
        }
    }

    /** Accepted for compatibility and not used: the client's watchdog renews every hold. */
    @Override
    public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {
        // The watchdog renews already; a second renewer would only add traffic.
    }

    /**
     * Sets how many lock objects the cache keeps; above it, the next {@link #obtain} forgets
     * those that nobody in this JVM holds.
     *
     * @throws IllegalArgumentException if not positive
     */
    public void setCacheCapacity(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("cacheCapacity must be positive: " + capacity);
        }
        this.cacheCapacity = capacity;
    }

    /** @return the ttl of each hold unless one is given */
    public Duration expireAfter() {
        return expireAfter;
    }

    @Override
    public String toString() {
        return "EchoMQLockRegistry[" + registryKey + ", expireAfter " + expireAfter.toMillis() + " ms]";
    }
}
