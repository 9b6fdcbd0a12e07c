package io.echomq.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.lock.LockClient;
import io.echomq.testkit.RedisExtension;
import java.lang.reflect.Constructor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.support.KeepAliveLockProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Renewal through ShedLock's {@link KeepAliveLockProvider}, and the fence a task reads with
 * {@link EchoMQLockProvider#currentFence()}, on a real Redis and under ShedLock's own executor.
 */
class KeepAliveAndFenceTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    /** Short for a quick test, with half of it (the extension period) as slack for a loaded machine. */
    private static final Duration LOCK_AT_MOST_FOR = Duration.ofSeconds(1);

    private static LockClient locks;
    private final String name = UUID.randomUUID().toString();
    private EchoMQLockProvider provider;
    private ScheduledExecutorService keepAliveThreads;

    @BeforeAll
    static void connect() {
        locks = LockClient.create(REDIS.url());
    }

    @AfterAll
    static void disconnect() {
        locks.close();
    }

    @BeforeEach
    void freshKeyspace() {
        REDIS.flushAll();
        provider = new EchoMQLockProvider(locks);
        keepAliveThreads = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterEach
    void stopKeepAlive() {
        keepAliveThreads.shutdownNow();
    }

    /**
     * ShedLock's public constructor refuses a {@code lockAtMostFor} under 30 s; its package-private
     * one takes the minimum, which lets this test run for seconds instead of minutes.
     */
    private KeepAliveLockProvider keepAlive(ExtensibleLockProvider wrapped) throws Exception {
        Constructor<KeepAliveLockProvider> withMinimum = KeepAliveLockProvider.class.getDeclaredConstructor(
                ExtensibleLockProvider.class, ScheduledExecutorService.class, Duration.class);
        withMinimum.setAccessible(true);
        return withMinimum.newInstance(wrapped, keepAliveThreads, Duration.ofMillis(100));
    }

    private LockConfiguration config(Duration lockAtMostFor) {
        return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, Duration.ZERO);
    }

    private boolean isLocked() {
        return locks.inspect(provider.resource(name)).isHeld();
    }

    private long pttl() {
        return (Long) REDIS.raw().call("PTTL", locks.lockKey(provider.resource(name)));
    }

    /**
     * Runs {@code body} on a new thread, as a scheduler runs a task on its own thread: the holds
     * that {@link EchoMQLockProvider#currentFence()} reads are the thread's, and other test classes
     * leave locks on the test thread that they never unlock.
     */
    private static void onFreshThread(Callable<?> body) throws Exception {
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            thread.submit(body).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw (Exception) e.getCause();
        } finally {
            thread.shutdownNow();
        }
    }

    /** What the task saw at one moment past the original lockAtMostFor. */
    private record Seen(boolean secondLockRefused, long pttl, OptionalLong fence) {
    }

    /** Runs a task of three lockAtMostFor under {@code executor}, looking at the lock past the first. */
    private List<Seen> runLongTask(LockProvider lockProvider) {
        List<Seen> seen = new ArrayList<>();
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(lockProvider);
        long start = System.nanoTime();
        executor.executeWithLock((Runnable) () -> {
            // The task's work: three lockAtMostFor of 50 ms steps.
            while (System.nanoTime() - start < LOCK_AT_MOST_FOR.multipliedBy(3).toNanos()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                if (System.nanoTime() - start > LOCK_AT_MOST_FOR.plusMillis(100).toNanos()) {
                    // Another node's attempt, from another thread as a scheduler of another JVM would.
                    // What it takes it gives back at once, on the thread that took it.
                    boolean refused = CompletableFuture.supplyAsync(() -> provider.lock(config(LOCK_AT_MOST_FOR))
                            .map(taken -> { taken.unlock(); return false; }).orElse(true)).join();
                    seen.add(new Seen(refused, pttl(), EchoMQLockProvider.currentFence()));
                }
            }
        }, config(LOCK_AT_MOST_FOR));
        return seen;
    }

    @Test
    void keepAliveHoldsTheLockPastLockAtMostForAndReleasesItAfter() throws Exception {
        onFreshThread(() -> {
            List<Seen> seen = runLongTask(keepAlive(provider));

            assertThat(seen).as("looked past the original lockAtMostFor").hasSizeGreaterThan(5);
            assertThat(seen).allSatisfy(s -> {
                assertThat(s.secondLockRefused()).as("a second lock() is refused").isTrue();
                assertThat(s.pttl()).as("the key's ttl is renewed, never gone").isPositive();
            });
            OptionalLong fence = seen.get(0).fence();
            assertThat(fence).isPresent();
            assertThat(seen).extracting(Seen::fence).as("renewal keeps the same lease").containsOnly(fence);
            assertThat(isLocked()).as("released after the task").isFalse();
            assertThat(EchoMQLockProvider.currentFence()).isEmpty();
            return null;
        });
    }

    @Test
    void withoutKeepAliveTheLockExpiresAtLockAtMostFor() throws Exception {
        onFreshThread(() -> {
            // The control: the same task on the bare provider loses the lock, so the test above can fail.
            List<Seen> seen = runLongTask(provider);

            assertThat(seen).isNotEmpty();
            assertThat(seen.get(0).secondLockRefused()).as("the first attempt past lockAtMostFor found it free").isFalse();
            await().atMost(Duration.ofSeconds(3)).until(() -> !isLocked());
            return null;
        });
    }

    @Test
    void theFenceIsPresentInsideTheTaskAndRisesBetweenHolds() throws Exception {
        onFreshThread(() -> {
            LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
            AtomicReference<OptionalLong> first = new AtomicReference<>();
            AtomicReference<OptionalLong> second = new AtomicReference<>();
            AtomicReference<OptionalLong> otherThread = new AtomicReference<>();

            assertThat(EchoMQLockProvider.currentFence()).as("before any task").isEmpty();
            executor.executeWithLock((Runnable) () -> {
                first.set(EchoMQLockProvider.currentFence());
                otherThread.set(CompletableFuture.supplyAsync(EchoMQLockProvider::currentFence).join());
            }, config(Duration.ofSeconds(10)));
            assertThat(EchoMQLockProvider.currentFence()).as("after unlock").isEmpty();
            executor.executeWithLock((Runnable) () -> second.set(EchoMQLockProvider.currentFence()),
                    config(Duration.ofSeconds(10)));

            assertThat(first.get()).isPresent();
            assertThat(first.get().getAsLong()).as("the fence of the lease granted")
                    .isLessThan(second.get().orElseThrow())
                    .isLessThanOrEqualTo(locks.inspect(provider.resource(name)).lastFence());
            assertThat(otherThread.get()).as("another thread holds nothing").isEmpty();
            assertThat(EchoMQLockProvider.currentFence()).isEmpty();
            return null;
        });
    }

    @Test
    void theFenceIsReadableThroughKeepAliveAndRisesBetweenHolds() throws Exception {
        onFreshThread(() -> {
            LockingTaskExecutor executor = new DefaultLockingTaskExecutor(keepAlive(provider));
            AtomicReference<OptionalLong> first = new AtomicReference<>();
            AtomicReference<OptionalLong> second = new AtomicReference<>();

            executor.executeWithLock((Runnable) () -> first.set(EchoMQLockProvider.currentFence()),
                    config(LOCK_AT_MOST_FOR));
            assertThat(EchoMQLockProvider.currentFence()).as("KeepAliveLockProvider unlocks on the task's thread")
                    .isEmpty();
            executor.executeWithLock((Runnable) () -> second.set(EchoMQLockProvider.currentFence()),
                    config(LOCK_AT_MOST_FOR));

            assertThat(first.get()).isPresent();
            assertThat(first.get().getAsLong()).isLessThan(second.get().orElseThrow());
            assertThat(EchoMQLockProvider.currentFence()).isEmpty();
            return null;
        });
    }

    @Test
    void aNestedTaskSeesItsOwnFenceAndTheOuterOneAgainAfter() throws Exception {
        onFreshThread(() -> {
            LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
            AtomicReference<OptionalLong> outer = new AtomicReference<>();
            AtomicReference<OptionalLong> inner = new AtomicReference<>();
            AtomicReference<OptionalLong> outerAfter = new AtomicReference<>();

            executor.executeWithLock((Runnable) () -> {
                outer.set(EchoMQLockProvider.currentFence());
                executor.executeWithLock((Runnable) () -> inner.set(EchoMQLockProvider.currentFence()),
                        new LockConfiguration(ClockProvider.now(), name + "-inner", Duration.ofSeconds(10), Duration.ZERO));
                outerAfter.set(EchoMQLockProvider.currentFence());
            }, config(Duration.ofSeconds(10)));

            assertThat(outer.get()).isPresent();
            assertThat(inner.get()).isPresent().isNotEqualTo(outer.get());
            assertThat(outerAfter.get()).isEqualTo(outer.get());
            assertThat(EchoMQLockProvider.currentFence()).isEmpty();
            return null;
        });
    }

    @Test
    void theFenceIsGoneAfterADirectUnlockToo() throws Exception {
        onFreshThread(() -> {
            var lock = provider.lock(config(Duration.ofSeconds(10))).orElseThrow();
            assertThat(EchoMQLockProvider.currentFence()).isPresent();
            lock.unlock();
            assertThat(EchoMQLockProvider.currentFence()).isEmpty();
            assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
            assertThat(EchoMQLockProvider.currentFence()).isEmpty();
            return null;
        });
    }
}
