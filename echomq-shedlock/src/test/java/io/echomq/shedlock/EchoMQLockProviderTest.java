package io.echomq.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.lock.LockClient;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ShedLock's provider contract on a real Redis. The tests named as ShedLock's own
 * ({@code AbstractLockProviderIntegrationTest}, {@code AbstractExtensibleLockProviderIntegrationTest}
 * and its {@code FuzzTester}, which are not served here) check what those cases check, written
 * from ShedLock's documented behaviour; where ShedLock sleeps a fixed time, these poll until a
 * deadline. The rest check what EchoMQ adds: never a blind DEL, and the limits of a lease.
 */
class EchoMQLockProviderTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    private static final Duration LOCK_AT_LEAST_FOR = Duration.ofSeconds(2);

    private static LockClient locks;
    private final String name = UUID.randomUUID().toString();
    private EchoMQLockProvider provider;

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
    }

    private static LockConfiguration config(String name) {
        return config(name, Duration.ofMinutes(5), Duration.ZERO);
    }

    private static LockConfiguration config(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
        return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
    }

    private boolean isLocked(String lockName) {
        return locks.inspect(provider.resource(lockName)).isHeld();
    }

    private void assertLocked(String lockName) {
        assertThat(isLocked(lockName)).as(lockName + " locked").isTrue();
    }

    private void assertUnlocked(String lockName) {
        assertThat(isLocked(lockName)).as(lockName + " unlocked").isFalse();
    }

    private SimpleLock lockFor(Duration lockAtMostFor) {
        Optional<SimpleLock> lock = provider.lock(config(name, lockAtMostFor, Duration.ZERO));
        assertThat(lock).isNotEmpty();
        assertLocked(name);
        return lock.get();
    }

    // ------------------------------------------------------------ AbstractLockProviderIntegrationTest

    @Test
    void shouldCreateLock() {
        Optional<SimpleLock> lock = provider.lock(config(name));
        assertThat(lock).isNotEmpty();
        assertLocked(name);
        lock.get().unlock();
        assertUnlocked(name);
    }

    @Test
    void shouldNotReturnSecondLock() {
        Optional<SimpleLock> lock = provider.lock(config(name));
        assertThat(lock).isNotEmpty();
        assertThat(provider.lock(config(name))).as("held, also by this JVM").isEmpty();
        lock.get().unlock();
    }

    @Test
    void shouldCreateTwoIndependentLocks() {
        Optional<SimpleLock> first = provider.lock(config(name));
        Optional<SimpleLock> second = provider.lock(config("name2"));
        assertThat(first).isNotEmpty();
        assertThat(second).isNotEmpty();
        first.get().unlock();
        assertLocked("name2");
        second.get().unlock();
    }

    @Test
    void shouldLockTwiceInARow() {
        Optional<SimpleLock> first = provider.lock(config(name));
        assertThat(first).isNotEmpty();
        first.get().unlock();
        Optional<SimpleLock> second = provider.lock(config(name));
        assertThat(second).isNotEmpty();
        second.get().unlock();
    }

    @Test
    void shouldTimeout() {
        Duration lockAtMostFor = Duration.ofMillis(50);
        assertThat(provider.lock(config(name, lockAtMostFor, Duration.ZERO))).isNotEmpty();
        await().atMost(Duration.ofSeconds(2)).until(() -> !isLocked(name));
        Optional<SimpleLock> again = provider.lock(config(name, lockAtMostFor, Duration.ZERO));
        assertThat(again).as("lockAtMostFor ran out, so the lock is free").isNotEmpty();
        again.get().unlock();
    }

    @Test
    void shouldBeAbleToLockRightAfterUnlock() {
        LockConfiguration config = config(name);
        for (int i = 0; i < 10; i++) {
            Optional<SimpleLock> lock = provider.lock(config);
            assertThat(lock).as("round " + i).isNotEmpty();
            assertThat(provider.lock(config)).isEmpty();
            lock.get().unlock();
        }
    }

    @Test
    void fuzzTestShouldPass() throws Exception {
        // 8 threads on two lock names bump a plain (unsynchronised) counter only under the lock,
        // spinning on lock() while it is held; thread 0 does a short run. Any overlap loses counts.
        int threads = 8;
        int iterations = 100;
        int shortRun = 10;
        int[][] counters = {{0}, {0}};
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> tasks = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int runs = t == 0 ? shortRun : iterations;
                int job = t % 2;
                tasks.add(pool.submit(() -> {
                    for (int done = 0; done < runs; ) {
                        Optional<SimpleLock> lock = provider.lock(
                                config("fuzz-" + job, Duration.ofMinutes(5), Duration.ofMillis(5)));
                        if (lock.isPresent()) {
                            int seen = counters[job][0];
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                            counters[job][0] = seen + 1;
                            lock.get().unlock();
                            done++;
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> task : tasks) {
                task.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(counters[1][0]).isEqualTo(threads / 2 * iterations);
        assertThat(counters[0][0]).isEqualTo((threads / 2 - 1) * iterations + shortRun);
    }

    @Test
    void shouldLockAtLeastFor() {
        Optional<SimpleLock> lock = provider.lock(config(name, LOCK_AT_LEAST_FOR.multipliedBy(2), LOCK_AT_LEAST_FOR));
        long lockedAt = System.nanoTime();
        assertThat(lock).isNotEmpty();
        lock.get().unlock();
        assertThat(provider.lock(config(name))).as("unlocked, but lockAtLeastFor has not passed").isEmpty();
        assertLocked(name);
        await().atMost(LOCK_AT_LEAST_FOR.plusSeconds(2)).pollInterval(Duration.ofMillis(20))
                .until(() -> !isLocked(name));
        assertThat(Duration.ofNanos(System.nanoTime() - lockedAt)).isGreaterThanOrEqualTo(LOCK_AT_LEAST_FOR.minusMillis(50));
        Optional<SimpleLock> after = provider.lock(config(name));
        assertThat(after).as("free once lockAtLeastFor has passed").isNotEmpty();
        after.get().unlock();
    }

    // ------------------------------------------------- AbstractExtensibleLockProviderIntegrationTest

    @Test
    void shouldBeAbleToExtendLock() {
        Duration original = Duration.ofMillis(500);
        SimpleLock lock = lockFor(original);
        Optional<SimpleLock> extended = lock.extend(Duration.ofSeconds(10), Duration.ZERO);
        assertThat(extended).isNotEmpty();
        await().during(original.plusMillis(300)).atMost(original.plusSeconds(3)).until(() -> isLocked(name));
        extended.get().unlock();
        assertUnlocked(name);
    }

    @Test
    void shouldNotBeAbleToExtendUnlockedLock() {
        SimpleLock lock = lockFor(Duration.ofSeconds(2));
        lock.unlock();
        assertUnlocked(name);
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ZERO))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldNotBeAbleToExtendExpiredLock() {
        Optional<SimpleLock> lock = provider.lock(config(name, Duration.ofMillis(1), Duration.ZERO));
        assertThat(lock).isNotEmpty();
        await().atMost(Duration.ofSeconds(2)).until(() -> !isLocked(name));
        assertThat(lock.get().extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
        assertUnlocked(name);
    }

    @Test
    void shouldBeAbleToExtendAtLeast() {
        SimpleLock lock = lockFor(Duration.ofSeconds(10));
        Optional<SimpleLock> extended = lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9));
        assertThat(extended).isNotEmpty();
        extended.get().unlock();
        assertLocked(name);
        assertThat(locks.inspect(provider.resource(name)).ttlMillis()).as("kept for the new lockAtLeastFor")
                .isBetween(7_000L, 9_000L);
    }

    @Test
    void lockCanNotBeExtendedTwice() {
        SimpleLock lock = lockFor(Duration.ofSeconds(10));
        assertThat(lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9))).isNotEmpty();
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9)))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void lockCanNotBeUnlockedAfterExtending() {
        SimpleLock lock = lockFor(Duration.ofSeconds(10));
        assertThat(lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9))).isNotEmpty();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
    }

    // ------------------------------- ShedLock's Redis providers' AbstractExtensibleLockProviderRedisIntegrationTest

    @Test
    void unlockingAfterExpirationShouldBeNoOp() {
        SimpleLock stale = lockFor(Duration.ofMillis(100));
        await().atMost(Duration.ofSeconds(2)).until(() -> !isLocked(name));
        SimpleLock next = lockFor(Duration.ofSeconds(10));
        String nextToken = locks.inspect(provider.resource(name)).holderToken().orElseThrow();
        stale.unlock();   // no exception, and no blind DEL
        assertLocked(name);
        assertThat(locks.inspect(provider.resource(name)).holderToken()).contains(nextToken);
        next.unlock();
        assertUnlocked(name);
    }

    @Test
    void extendAfterExpirationShouldBeNoOp() {
        SimpleLock stale = lockFor(Duration.ofMillis(100));
        await().atMost(Duration.ofSeconds(2)).until(() -> !isLocked(name));
        lockFor(Duration.ofMillis(500));
        assertThat(stale.extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
        await().atMost(Duration.ofSeconds(3)).until(() -> !isLocked(name));   // the next holder's 500 ms, not 10 s
    }

    // ------------------------------------------------------------------------- what EchoMQ adds

    @Test
    void lockAtLeastForNeverShortensAnotherHoldersLock() {
        Optional<SimpleLock> stale = provider.lock(config(name, Duration.ofSeconds(10), Duration.ofSeconds(5)));
        assertThat(stale).isNotEmpty();
        REDIS.raw().call("DEL", locks.lockKey(provider.resource(name)));   // lost behind its back
        SimpleLock next = lockFor(Duration.ofSeconds(10));
        stale.get().unlock();   // would shorten the lock to ~5 s if it were not token-checked
        assertThat(locks.inspect(provider.resource(name)).ttlMillis()).isGreaterThan(8_000L);
        next.unlock();
    }

    @Test
    void eachLockNameIsAResourceUnderThePrefix() {
        SimpleLock lock = lockFor(Duration.ofSeconds(10));
        assertThat(provider.resource(name)).isEqualTo("shedlock:" + name);
        assertThat(REDIS.raw().call("EXISTS", "emq:lock:{shedlock:" + name + "}:lock")).isEqualTo(1L);
        lock.unlock();
        EchoMQLockProvider bare = new EchoMQLockProvider(locks, "");
        assertThat(bare.resource("report")).isEqualTo("report");
        assertThatThrownBy(() -> new EchoMQLockProvider(locks, "a{")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new EchoMQLockProvider(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aLockAtMostForBeyondTheLongestLeaseIsRefusedWithTheReason() {
        assertThatThrownBy(() -> provider.lock(config(name, Duration.ofDays(2), Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtMostFor of lock '" + name + "'");
        assertUnlocked(name);
    }

    @Test
    void shedLocksOwnExecutorRunsATaskOnceAcrossTwoProviders() throws Exception {
        // What docs/integrations.md configures as a bean, used as @SchedulerLock uses it.
        try (LockClient other = LockClient.create(REDIS.url())) {
            LockingTaskExecutor node1 = new DefaultLockingTaskExecutor(new EchoMQLockProvider(locks));
            LockingTaskExecutor node2 = new DefaultLockingTaskExecutor(new EchoMQLockProvider(other));
            AtomicInteger runs = new AtomicInteger();
            LockConfiguration report = config("report", Duration.ofMinutes(1), Duration.ofSeconds(5));
            node1.executeWithLock((Runnable) () -> {
                runs.incrementAndGet();
                // Another node's scheduler fires meanwhile (another thread: ShedLock lets a thread
                // that holds a lock name run nested tasks of that name without locking).
                CompletableFuture.runAsync(() -> node2.executeWithLock((Runnable) runs::incrementAndGet,
                        config("report", Duration.ofMinutes(1), Duration.ZERO))).join();
            }, report);
            node2.executeWithLock((Runnable) runs::incrementAndGet, config("report", Duration.ofMinutes(1), Duration.ZERO));
            assertThat(runs.get()).as("node2 skipped while node1 ran, and within lockAtLeastFor").isEqualTo(1);
        }
    }
}
