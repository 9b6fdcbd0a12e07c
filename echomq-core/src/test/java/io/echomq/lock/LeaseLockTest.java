package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** The {@link Lock} adapter: thread ownership, reentrancy, waiting, interrupts, and a lost lease. */
class LeaseLockTest extends LockTestBase {
    private static final Duration TTL = Duration.ofSeconds(10);
    private static final Duration SHORT = Duration.ofMillis(400);

    /** Runs {@code task} on a new thread and returns what it returned, or what it threw. */
    private static <T> CompletableFuture<T> onAnotherThread(java.util.concurrent.Callable<T> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                result.complete(task.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        t.start();
        return result;
    }

    @Test
    void lockTakesAFencedLeaseAndUnlockReleasesIt() {
        LeaseLock lock = LeaseLock.of(locks, "invoice-42", TTL);
        lock.lock();
        try {
            LockInfo info = locks.inspect("invoice-42");
            assertThat(info.isHeld()).isTrue();
            assertThat(lock.currentLease().token()).isEqualTo(info.holderToken().orElseThrow());
            assertThat(lock.currentFence()).isEqualTo(info.lastFence());
            assertThat(lock.currentLease().hasWatchdog()).as("the watchdog is on").isTrue();
        } finally {
            lock.unlock();
        }
        assertThat(get(locks.lockKey("invoice-42"))).isNull();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void reentrantHoldsShareOneLeaseAndTheLastUnlockReleasesIt() {
        LeaseLock lock = LeaseLock.of(locks, "reentrant", TTL);
        lock.lock();
        long fence = lock.currentFence();
        assertThat(lock.tryLock()).isTrue();
        lock.lock();
        assertThat(lock.getHoldCount()).isEqualTo(3);
        assertThat(lock.currentFence()).as("no second grant").isEqualTo(fence);
        lock.unlock();
        lock.unlock();
        assertThat(get(locks.lockKey("reentrant"))).as("still held after two of three unlocks").isNotNull();
        lock.unlock();
        assertThat(get(locks.lockKey("reentrant"))).isNull();
    }

    @Test
    void unlockFromAnotherThreadOrWhenNotHeldThrowsIllegalMonitorState() throws Exception {
        LeaseLock lock = LeaseLock.of(locks, "owned", TTL);
        assertThatThrownBy(lock::unlock).isExactlyInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("'owned' is not held");
        lock.lock();
        CompletableFuture<Void> stranger = onAnotherThread(() -> {
            lock.unlock();
            return null;
        });
        assertThat(stranger).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .havingCause().isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(get(locks.lockKey("owned"))).as("the stranger released nothing").isNotNull();
        lock.unlock();
        assertThatThrownBy(lock::currentLease).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void anotherThreadWaitsUntilTheHolderUnlocks() throws Exception {
        LeaseLock lock = LeaseLock.of(locks, "shared", TTL);
        lock.lock();
        assertThat(onAnotherThread(lock::tryLock).get(5, TimeUnit.SECONDS)).isFalse();
        CompletableFuture<Long> waiter = onAnotherThread(() -> {
            lock.lock();
            try {
                return lock.currentFence();
            } finally {
                lock.unlock();
            }
        });
        long mine = lock.currentFence();
        assertThat(waiter).isNotDone();
        lock.unlock();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isGreaterThan(mine);
    }

    @Test
    void twoClientsWithTwoThreadsEachNeverOverlap() throws Exception {
        List<LeaseLock> perClient = List.of(
                LeaseLock.of(client(b -> b.pollInterval(Duration.ofMillis(50))), "counter", TTL),
                LeaseLock.of(client(b -> b.pollInterval(Duration.ofMillis(50))), "counter", TTL));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        int[] counter = {0};
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Lock lock = perClient.get(t % 2);
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        lock.lock();
                        try {
                            if (inside.incrementAndGet() > 1) {
                                overlaps.incrementAndGet();
                            }
                            int seen = counter[0];
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                            counter[0] = seen + 1;
                            inside.decrementAndGet();
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> w : workers) {
                w.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(overlaps.get()).isZero();
        assertThat(counter[0]).isEqualTo(100);
        assertThat(get(locks.lockKey("counter"))).isNull();
    }

    @Test
    void lockInterruptiblyGivesUpOnInterrupt() throws Exception {
        Lease holder = client(b -> { }).tryAcquire("busy", TTL).orElseThrow();
        LeaseLock lock = LeaseLock.of(locks, "busy", TTL);
        AtomicReference<Thread> waiting = new AtomicReference<>();
        CompletableFuture<Boolean> waiter = onAnotherThread(() -> {
            waiting.set(Thread.currentThread());
            lock.lockInterruptibly();
            return true;
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> waiting.get() != null
                && waiting.get().getState() != Thread.State.RUNNABLE);
        waiting.get().interrupt();
        assertThat(waiter).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .havingCause().isInstanceOf(InterruptedException.class);
        holder.release();
        // The interrupted waiter left nothing behind: this thread takes the lock at once.
        assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
        lock.unlock();
    }

    @Test
    void lockWaitsThroughAnInterruptAndKeepsTheInterruptStatus() throws Exception {
        Lease holder = client(b -> { }).tryAcquire("patient", TTL).orElseThrow();
        LeaseLock lock = LeaseLock.of(locks, "patient", TTL);
        AtomicReference<Thread> waiting = new AtomicReference<>();
        CompletableFuture<Boolean> waiter = onAnotherThread(() -> {
            waiting.set(Thread.currentThread());
            lock.lock();
            try {
                return Thread.currentThread().isInterrupted();
            } finally {
                lock.unlock();
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> waiting.get() != null
                && waiting.get().getState() != Thread.State.RUNNABLE);
        waiting.get().interrupt();
        assertThat(waiter).isNotDone();
        holder.release();
        assertThat(waiter.get(30, TimeUnit.SECONDS)).as("interrupt status restored").isTrue();
    }

    @Test
    void tryLockTimesOutWhileAnotherClientHoldsIt() throws Exception {
        client(b -> { }).tryAcquire("held-elsewhere", TTL).orElseThrow();
        LeaseLock lock = LeaseLock.of(locks, "held-elsewhere", TTL);
        long start = System.nanoTime();
        assertThat(lock.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(290);
        assertThat(lock.tryLock()).isFalse();
        assertThat(lock.tryLock(-1, TimeUnit.SECONDS)).as("a negative time tries once").isFalse();
        assertThat(lock.getHoldCount()).isZero();
    }

    @Test
    void theWatchdogKeepsAHoldAlivePastSeveralTtls() {
        LeaseLock lock = LeaseLock.of(locks, "long-work", SHORT);
        lock.lock();
        String token = lock.currentLease().token();
        await().during(Duration.ofMillis(1_300)).atMost(Duration.ofSeconds(4))
                .until(() -> token.equals(get(locks.lockKey("long-work"))));
        lock.unlock();
    }

    @Test
    void aLeaseLostWhileHeldIsToldAndUnlockThrowsLockLost() {
        LeaseLock lock = LeaseLock.of(locks, "lost", SHORT);
        lock.lock();
        Lease lease = lock.currentLease();
        raw().call("DEL", locks.lockKey("lost"));   // gone behind the holder's back: the next renewal finds out
        await().atMost(Duration.ofSeconds(5)).until(lease::isLost);
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class)
                .isInstanceOf(IllegalMonitorStateException.class)
                .satisfies(e -> assertThat(((LockLostException) e).reason()).isEqualTo(LossReason.EXPIRED))
                .hasMessageContaining("'lost' was lost while it was held");
        assertThat(lock.isHeldByCurrentThread()).as("let go locally all the same").isFalse();
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }

    @Test
    void conditionsAreRefusedWithTheReason() {
        LeaseLock lock = LeaseLock.of(locks, "cond", TTL);
        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("wait queue on the server");
    }

    @Test
    void badArgumentsAreRefusedBeforeAnythingIsSent() {
        assertThatThrownBy(() -> LeaseLock.of(null, "r", TTL)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LeaseLock.of(locks, "a{b}", TTL)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LeaseLock.of(locks, "r", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LeaseLock.of(locks, "r", TTL).lock(Duration.ofDays(2)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
