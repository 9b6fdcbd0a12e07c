package io.echomq.spring.integration;

import io.echomq.RedisCommandException;
import io.echomq.lock.Lease;
import io.echomq.lock.LeaseLock;
import io.echomq.lock.LockLostException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * One key's lock from an {@link EchoMQLockRegistry}: Spring Integration's {@link DistributedLock}
 * over an EchoMQ {@link LeaseLock}, whose contract it keeps (owned and reentrant per thread, a
 * fenced lease renewed by the watchdog, {@link LockLostException} from the last unlock of a lease
 * lost while held).
 *
 * <p>What it adds, and why: the {@link DistributedLock} calls with a ttl per hold, and, as
 * {@code RedisLockRegistry} does, a Redis failure while acquiring is a
 * {@link CannotAcquireLockException} (with the {@link RedisCommandException} as its cause), so
 * code written for that registry catches what it caught before. It also keeps when it was last
 * acquired, for {@link EchoMQLockRegistry#expireUnusedOlderThan}.
 *
 * <p>Thread-safe.
 */
public final class EchoMQLock implements DistributedLock {
    private final String key;
    private final LeaseLock lock;
    private volatile long lastAcquiredMillis = System.currentTimeMillis();

    EchoMQLock(String key, LeaseLock lock) {
        this.key = key;
        this.lock = lock;
    }

    /**
     * Takes the lock, waiting as long as it takes; interrupts do not stop it (see {@link LeaseLock#lock()}).
     *
     * @throws CannotAcquireLockException if Redis fails
     */
    @Override
    public void lock() {
        try {
            lock.lock();
        } catch (RedisCommandException e) {
            throw cannotAcquire(e);
        }
        acquired();
    }

    /**
     * {@link #lock()} with a ttl for this hold.
     *
     * @throws IllegalArgumentException if the ttl is null, under 1 ms or over one day
     * @throws CannotAcquireLockException if Redis fails
     */
    @Override
    public void lock(Duration ttl) {
        try {
            lock.lock(ttl);
        } catch (RedisCommandException e) {
            throw cannotAcquire(e);
        }
        acquired();
    }

    /**
     * @throws InterruptedException if interrupted on entry or while waiting
     * @throws CannotAcquireLockException if Redis fails
     */
    @Override
    public void lockInterruptibly() throws InterruptedException {
        try {
            lock.lockInterruptibly();
        } catch (RedisCommandException e) {
            throw cannotAcquire(e);
        }
        acquired();
    }

    /**
     * @return whether the lock was free and is now held by the calling thread
     * @throws CannotAcquireLockException if Redis fails
     */
    @Override
    public boolean tryLock() {
        try {
            return acquired(lock.tryLock());
        } catch (RedisCommandException e) {
            throw cannotAcquire(e);
        }
    }

    /**
     * @return whether the calling thread holds the lock within {@code time}
     * @throws InterruptedException if interrupted on entry or while waiting
     * @throws CannotAcquireLockException if Redis fails
     */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        try {
            return acquired(lock.tryLock(time, unit));
        } catch (RedisCommandException e) {
            throw cannotAcquire(e);
        }
    }

    /**
     * {@link #tryLock(long, TimeUnit)} with a ttl for this hold.
     *
     * @throws IllegalArgumentException if {@code waitTime} is null or the ttl is invalid
     * @throws InterruptedException if interrupted on entry or while waiting
     * @throws CannotAcquireLockException if Redis fails
     */
    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        try {
            return acquired(lock.tryLock(waitTime, ttl));
        } catch (RedisCommandException e) {
            throw cannotAcquire(e);
        }
    }

    /**
     * Lets go of one hold; the last releases the lease by token.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock
     * @throws LockLostException if the lease was lost while held (the lock is let go all the same)
     * @throws RedisCommandException if Redis fails during the release (see {@link LeaseLock#unlock()})
     */
    @Override
    public void unlock() {
        lock.unlock();
    }

    /**
     * Not supported, as in {@code RedisLockRegistry}: see {@link LeaseLock#newCondition()}.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public Condition newCondition() {
        return lock.newCondition();
    }

    /**
     * @return the lease of the current hold (its fence, {@link Lease#lost()}, {@link Lease#onLost})
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock
     */
    public Lease currentLease() {
        return lock.currentLease();
    }

    /**
     * @return the fence of the current hold, to pass to whatever the lock protects
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock
     */
    public long currentFence() {
        return lock.currentFence();
    }

    /** @return whether the calling thread holds this lock */
    public boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    /** @return how many holds the calling thread has; 0 if none */
    public int getHoldCount() {
        return lock.getHoldCount();
    }

    /** @return whether a thread of this JVM holds (or is acquiring) this lock object */
    public boolean isLocked() {
        return lock.isLocked();
    }

    /** @return the key it was obtained with */
    public String key() {
        return key;
    }

    /** @return the EchoMQ resource it locks: {@code <registryKey>:<key>} */
    public String resource() {
        return lock.resource();
    }

    /** @return when it was last acquired (or created), in epoch milliseconds */
    long lastAcquiredMillis() {
        return lastAcquiredMillis;
    }

    private boolean acquired(boolean got) {
        if (got) {
            acquired();
        }
        return got;
    }

    private void acquired() {
        lastAcquiredMillis = System.currentTimeMillis();
    }

    private CannotAcquireLockException cannotAcquire(RedisCommandException e) {
        return new CannotAcquireLockException("Failed to lock '" + lock.resource() + "'", e);
    }

    @Override
    public String toString() {
        return "EchoMQLock[" + key + ", " + lock + "]";
    }
}
