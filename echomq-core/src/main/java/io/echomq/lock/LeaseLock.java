package io.echomq.lock;

import io.echomq.EchoMQException;
import io.echomq.RedisCommandException;
import io.echomq.internal.Checks;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link Lock} over one resource of a {@link Locks} client, for code written against
 * {@code java.util.concurrent.locks.Lock} (Redisson's {@code RLock}, Spring Integration's lock
 * registries). Each hold is a fenced {@link Lease} renewed by the client's watchdog.
 *
 * <pre>{@code
 * Lock lock = LeaseLock.of(locks, "invoice-42", Duration.ofSeconds(30));
 * lock.lock();
 * try {
 *     // ... work; ((LeaseLock) lock).currentFence() fences the writes ...
 * } finally {
 *     lock.unlock();
 * }
 * }</pre>
 *
 * <p>Its duties, and why:
 * <ol>
 *   <li><b>Threads own it</b>, as the {@code Lock} contract says: a local {@link ReentrantLock}
 *       in front of Redis admits one thread of this JVM at a time, and only that thread asks Redis.
 *       {@link #unlock()} from any other thread, or when the lock is not held, throws
 *       {@link IllegalMonitorStateException}.</li>
 *   <li><b>Reentrant per thread</b>, like {@code ReentrantLock}, {@code RLock} and
 *       {@code RedisLockRegistry}: a thread that holds the lock takes it again at once, without a
 *       round trip, and must unlock as often as it locked; the last unlock releases the lease.
 *       Reentrancy is per {@code LeaseLock} object: two objects for one resource are two holders
 *       that exclude each other, even on one thread (which then waits for itself). Share one object
 *       per resource.</li>
 *   <li><b>Leased and renewed</b>: the first hold acquires with {@link AcquireOptions#withWatchdog()}
 *       and the given ttl, so a long critical section keeps its lease while the process lives,
 *       and a crashed process's lock expires by the ttl.</li>
 *   <li><b>Loss is told</b>: if the lease is lost while held (expired, taken, or its local deadline
 *       passed while Redis was unreachable), {@link #currentLease()}'s {@link Lease#lost()} and
 *       {@link Lease#onLost} fire at once, and the final {@link #unlock()} throws
 *       {@link LockLostException} after letting go locally. Fence writes with
 *       {@link #currentFence()} for certainty.</li>
 * </ol>
 *
 * <p>{@link #newCondition()} is not supported. Thread-safe.
 */
public final class LeaseLock implements Lock {
    /** maxWait of an acquire that waits until it gets the lock. */
    private static final Duration FOREVER = Duration.ofNanos(Long.MAX_VALUE);

    private final Locks locks;
    private final String resource;
    private final Duration ttl;
    private final AcquireOptions options;
    private final ReentrantLock local = new ReentrantLock();
    /** The holder's lease; written and read by the holding thread only, under {@link #local}. */
    private Lease lease;

    private LeaseLock(Locks locks, String resource, Duration ttl, AcquireOptions options) {
        this.locks = locks;
        this.resource = resource;
        this.ttl = ttl;
        this.options = options.withWatchdog();
    }

    /**
     * A lock on {@code resource} whose holds are fenced leases of {@code ttl}, renewed by the
     * watchdog.
     *
     * @param locks    the client (one per application); not closed by the lock
     * @param resource the resource, under the {@link Locks} name rule
     * @param ttl      the lease's ttl: how long the lock outlives a crashed holder
     * @throws IllegalArgumentException if {@code locks} is null, the resource breaks the name rule,
     *     or the ttl is null, under 1 ms or over {@link LockClient#MAX_TTL}
     */
    public static LeaseLock of(Locks locks, String resource, Duration ttl) {
        return of(locks, resource, ttl, AcquireOptions.defaults());
    }

    /**
     * As {@link #of(Locks, String, Duration)}, acquiring with {@code options} (the watchdog is
     * always added).
     *
     * @throws IllegalArgumentException as {@link #of(Locks, String, Duration)}, or if
     *     {@code options} is null
     */
    public static LeaseLock of(Locks locks, String resource, Duration ttl, AcquireOptions options) {
        Checks.notNull(locks, "locks");
        String r = Checks.resource(resource);
        LockLimits.ttl(ttl);
        Checks.notNull(options, "options");
        return new LeaseLock(locks, r, ttl, options);
    }

    /**
     * Takes the lock, waiting as long as it takes. Interrupts do not stop the wait; the thread's
     * interrupt status is restored on return. An interrupt that arrives while an acquire is in
     * flight can leave an unknown grant on the server, which then delays this wait by up to one
     * ttl (it expires by it).
     *
     * @throws RedisCommandException if Redis fails; the lock is then not held
     */
    @Override
    public void lock() {
        lock(ttl);
    }

    /**
     * {@link #lock()} with a ttl for this hold instead of the lock's own. A reentrant hold keeps
     * the outer hold's lease and ttl.
     *
     * @throws IllegalArgumentException if the ttl is null, under 1 ms or over {@link LockClient#MAX_TTL}
     * @throws RedisCommandException if Redis fails; the lock is then not held
     */
    public void lock(Duration ttl) {
        LockLimits.ttl(ttl);
        local.lock();
        if (local.getHoldCount() > 1) {
            return;
        }
        // An interrupt already pending would abort the first attempt in flight; hold it back.
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                try {
                    lease = locks.acquire(resource, ttl, FOREVER, options);
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (RuntimeException e) {
            local.unlock();
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Takes the lock, waiting until it gets it or the thread is interrupted.
     *
     * @throws InterruptedException if the thread is interrupted on entry or while waiting; the lock
     *     is then not held (an acquire interrupted in flight may leave an unknown grant on the
     *     server, which expires by its ttl)
     * @throws RedisCommandException if Redis fails; the lock is then not held
     */
    @Override
    public void lockInterruptibly() throws InterruptedException {
        local.lockInterruptibly();
        if (local.getHoldCount() > 1) {
            return;
        }
        try {
            lease = locks.acquire(resource, ttl, FOREVER, options);
        } catch (InterruptedException | RuntimeException e) {
            local.unlock();
            throw e;
        }
    }

    /**
     * Takes the lock if it is free now: one attempt on Redis, no waiting. A pending interrupt
     * neither aborts the attempt nor is cleared.
     *
     * @return whether the calling thread now holds it
     * @throws RedisCommandException if Redis fails; the lock is then not held
     */
    @Override
    public boolean tryLock() {
        if (!local.tryLock()) {
            return false;
        }
        if (local.getHoldCount() > 1) {
            return true;
        }
        try {
            // Not interruptible by contract: an interrupt must neither abort the attempt in flight
            // (leaving an unknown grant) nor turn it into a failure.
            Optional<Lease> got = awaitUninterruptibly(locks.tryAcquireAsync(resource, ttl, options),
                    LockCalls.acquireLabel(options));
            if (got.isPresent()) {
                lease = got.get();
                return true;
            }
        } catch (RuntimeException e) {
            local.unlock();
            throw e;
        }
        local.unlock();
        return false;
    }

    /**
     * Takes the lock, waiting up to {@code time} in all (for this JVM's other threads, then for the
     * holder elsewhere). A time of zero or less tries once.
     *
     * @return whether the calling thread now holds it; false when the time ran out
     * @throws InterruptedException if the thread is interrupted on entry or while waiting; the lock
     *     is then not held
     * @throws RedisCommandException if Redis fails; the lock is then not held
     */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(Math.max(0, unit.toNanos(time))), ttl);
    }

    /**
     * {@link #tryLock(long, TimeUnit)} with a ttl for this hold instead of the lock's own. A
     * reentrant hold keeps the outer hold's lease and ttl.
     *
     * @param maxWait how long to wait in all; zero or negative tries once
     * @throws IllegalArgumentException if {@code maxWait} is null, or the ttl is invalid
     * @throws InterruptedException if the thread is interrupted on entry or while waiting
     * @throws RedisCommandException if Redis fails; the lock is then not held
     */
    public boolean tryLock(Duration maxWait, Duration ttl) throws InterruptedException {
        Checks.notNull(maxWait, "maxWait");
        LockLimits.ttl(ttl);
        long waitNanos = maxWait.isNegative() ? 0 : Checks.waitNanos(maxWait, "maxWait");
        long start = System.nanoTime();
        if (!local.tryLock(waitNanos, TimeUnit.NANOSECONDS)) {
            return false;
        }
        if (local.getHoldCount() > 1) {
            return true;
        }
        long left = Math.max(0, waitNanos - (System.nanoTime() - start));
        try {
            lease = locks.acquire(resource, ttl, Duration.ofNanos(left), options);
            return true;
        } catch (LockWaitTimeoutException e) {
            local.unlock();
            return false;
        } catch (InterruptedException | RuntimeException e) {
            local.unlock();
            throw e;
        }
    }

    /**
     * Lets go of one hold; the last one releases the lease by token (compare-and-delete, never a
     * blind {@code DEL}). A pending interrupt does not stop the release, and is kept.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock
     * @throws LockLostException (an {@code IllegalMonitorStateException}) on the last unlock, if
     *     the lease was lost while held; the lock is no longer held either way
     * @throws RedisCommandException if Redis fails during the release; the lock is no longer held
     *     here, and the release is retried in the background until it is answered or the lease is
     *     lost, so that the watchdog never keeps an unlocked lock alive
     */
    @Override
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("Lock '" + resource + "' is not held by thread "
                    + Thread.currentThread().getName());
        }
        if (local.getHoldCount() > 1) {
            local.unlock();
            return;
        }
        Lease held = lease;
        lease = null;
        try {
            // A pending interrupt must not keep the lock from being released.
            awaitUninterruptibly(held.releaseAsync(), Scripts.RELEASE.label());
        } catch (RuntimeException e) {
            releaseLater(held);
            throw e;
        } finally {
            local.unlock();
        }
        if (held.isLost()) {
            throw new LockLostException(resource, held.lossReason().orElse(LossReason.EXPIRED));
        }
    }

    /** Waits for {@code f} through interrupts, restoring the interrupt status; failures as the sync calls throw them. */
    private <T> T awaitUninterruptibly(CompletableFuture<T> f, String command) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause() instanceof CompletionException c && c.getCause() != null
                            ? c.getCause() : e.getCause();
                    if (cause instanceof EchoMQException known) {
                        throw known;   // RedisCommandException, ReplicaAckException: as the sync calls throw them
                    }
                    throw RedisEngine.failure(cause, command, resource);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Retries a release whose outcome was unknown, while the lease is still ours to release. */
    private static void releaseLater(Lease held) {
        long delayMs = Math.max(10, Math.min(1000, held.ttl().toMillis() / 10));
        CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS))
                .thenCompose(v -> held.isActive() ? held.releaseAsync() : CompletableFuture.completedFuture(null))
                .whenComplete((outcome, failure) -> {
                    if (failure != null && held.isActive()) {
                        releaseLater(held);
                    }
                });
    }

    /**
     * Not supported: a {@link Condition} releases the lock in {@code await} and must be woken by a
     * {@code signal} from whichever process holds it next, which needs a wait queue kept on the
     * server. EchoMQ keeps none; hand work between processes with a queue instead.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("LeaseLock does not support conditions: await/signal across "
                + "processes would need a wait queue on the server, which EchoMQ does not keep; use a queue");
    }

    /**
     * @return the lease of the current hold: its fence, {@link Lease#lost()}, {@link Lease#onLost}
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock
     */
    public Lease currentLease() {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("Lock '" + resource + "' is not held by thread "
                    + Thread.currentThread().getName());
        }
        return lease;
    }

    /**
     * @return the fence of the current hold, to pass to whatever the lock protects
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock
     * @throws IllegalStateException if the lock acquires with {@link AcquireOptions#plain()}
     */
    public long currentFence() {
        return currentLease().fence();
    }

    /** @return whether the calling thread holds this lock */
    public boolean isHeldByCurrentThread() {
        return local.isHeldByCurrentThread();
    }

    /**
     * @return whether a thread of this JVM holds this lock object, or has got past the local
     *     line and is acquiring it on Redis; for monitoring and cache eviction, not for control
     */
    public boolean isLocked() {
        return local.isLocked();
    }

    /** @return how many holds the calling thread has on this lock; 0 if it holds none */
    public int getHoldCount() {
        return local.getHoldCount();
    }

    /** @return the locked resource */
    public String resource() {
        return resource;
    }

    /** @return the ttl of each hold's lease, unless a hold gives its own */
    public Duration ttl() {
        return ttl;
    }

    @Override
    public String toString() {
        return "LeaseLock[" + resource + ", ttl " + ttl.toMillis() + " ms"
                + (local.isLocked() ? ", held in this JVM" : "") + "]";
    }
}
