package io.echomq.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.lock.LockClient;
import io.echomq.lock.LockLostException;
import io.echomq.lock.LossReason;
import io.echomq.testkit.FaultProxy;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;

/** The lock registry on a real Redis: what RedisLockRegistry users rely on, and what differs. */
class EchoMQLockRegistryTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static LockClient node1;
    private static LockClient node2;
    private EchoMQLockRegistry registry;

    @BeforeAll
    static void connect() {
        node1 = LockClient.create(REDIS.url());
        node2 = LockClient.create(REDIS.url());
    }

    @AfterAll
    static void disconnect() {
        node1.close();
        node2.close();
    }

    @BeforeEach
    void freshKeyspace() {
        REDIS.flushAll();
        registry = new EchoMQLockRegistry(node1, "my-app");
    }

    private static <T> T onAnotherThread(java.util.concurrent.Callable<T> task) throws Exception {
        try {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return task.call();
                } catch (Exception e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            }).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof java.util.concurrent.CompletionException c ? c.getCause() : e.getCause();
            throw cause instanceof Exception x ? x : new IllegalStateException(cause);
        }
    }

    @Test
    void obtainGivesOneFencedLeasedLockPerKey() {
        // The docs' bean, used as a LockRegistry<DistributedLock> is.
        LockRegistry<DistributedLock> asBean = registry;
        DistributedLock lock = asBean.obtain("invoice-42");
        assertThat(registry.obtain("invoice-42")).isSameAs(lock);
        lock.lock();
        try {
            EchoMQLock held = (EchoMQLock) lock;
            assertThat(held.resource()).isEqualTo("my-app:invoice-42");
            assertThat(REDIS.raw().call("GET", "emq:lock:{my-app:invoice-42}:lock"))
                    .isEqualTo(held.currentLease().token());
            assertThat(held.currentFence()).isEqualTo(node1.inspect("my-app:invoice-42").lastFence());
            assertThat(held.currentLease().hasWatchdog()).isTrue();
            long pttl = (Long) REDIS.raw().call("PTTL", "emq:lock:{my-app:invoice-42}:lock");
            assertThat(pttl).as("expireAfter, 60 s by default").isBetween(50_000L, 60_000L);
        } finally {
            lock.unlock();
        }
        assertThat(REDIS.raw().call("EXISTS", "emq:lock:{my-app:invoice-42}:lock")).isEqualTo(0L);
        assertThatThrownBy(() -> registry.obtain(42)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be a String");
    }

    @Test
    void twoRegistriesOnTwoClientsExcludeEachOther() throws Exception {
        EchoMQLockRegistry other = new EchoMQLockRegistry(node2, "my-app");
        Lock mine = registry.obtain("report");
        mine.lock();
        assertThat(other.obtain("report").tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
        mine.unlock();
        Lock theirs = other.obtain("report");
        assertThat(theirs.tryLock(5, TimeUnit.SECONDS)).isTrue();
        theirs.unlock();
    }

    @Test
    void reentrantPerThreadAndOnlyTheOwnerUnlocks() throws Exception {
        EchoMQLock lock = registry.obtain("owned");
        lock.lock();
        lock.lock();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(EchoMQLockRegistryTest.<Boolean>onAnotherThread(lock::tryLock)).as("another thread of this JVM").isFalse();
        assertThatThrownBy(() -> onAnotherThread(() -> {
            lock.unlock();
            return null;
        })).isInstanceOf(IllegalMonitorStateException.class);
        lock.unlock();
        assertThat(REDIS.raw().call("EXISTS", "emq:lock:{my-app:owned}:lock")).isEqualTo(1L);
        lock.unlock();
        assertThat(REDIS.raw().call("EXISTS", "emq:lock:{my-app:owned}:lock")).isEqualTo(0L);
    }

    @Test
    void executeLockedRunsUnderTheLockAndTimesOutWhenHeldElsewhere() throws Exception {
        String seen = registry.executeLocked("job", () -> String.valueOf(node1.inspect("my-app:job").isHeld()));
        assertThat(seen).isEqualTo("true");
        assertThat(node1.inspect("my-app:job").isHeld()).isFalse();
        node2.tryAcquire("my-app:job", Duration.ofSeconds(10)).orElseThrow();
        assertThatThrownBy(() -> registry.executeLocked("job", Duration.ofMillis(200), () -> { }))
                .isInstanceOf(TimeoutException.class);
    }

    @Test
    void aHoldTakesItsOwnTtlAndRenewLockSetsANewOne() throws Exception {
        EchoMQLock lock = registry.obtain("ttl");
        assertThat(lock.tryLock(Duration.ofSeconds(1), Duration.ofSeconds(5))).isTrue();
        assertThat((Long) REDIS.raw().call("PTTL", "emq:lock:{my-app:ttl}:lock")).isBetween(1L, 5_000L);
        registry.renewLock("ttl", Duration.ofSeconds(30));
        assertThat((Long) REDIS.raw().call("PTTL", "emq:lock:{my-app:ttl}:lock")).isBetween(25_000L, 30_000L);
        assertThatThrownBy(() -> onAnotherThread(() -> {
            registry.renewLock("ttl");
            return null;
        })).isInstanceOf(IllegalStateException.class).hasMessageContaining("does not hold it");
        lock.unlock();
        assertThatThrownBy(() -> registry.renewLock("ttl")).isInstanceOf(IllegalStateException.class);
        lock.lock(Duration.ofSeconds(3));
        assertThat((Long) REDIS.raw().call("PTTL", "emq:lock:{my-app:ttl}:lock")).isBetween(1L, 3_000L);
        lock.unlock();
    }

    @Test
    void expireUnusedOlderThanForgetsOnlyUnheldLocksAndAnEvictedLockStillExcludes() throws Exception {
        EchoMQLock held = registry.obtain("held");
        EchoMQLock idle = registry.obtain("idle");
        held.lock();
        registry.expireUnusedOlderThan(0);
        assertThat(registry.obtain("held")).isSameAs(held);
        EchoMQLock fresh = registry.obtain("idle");
        assertThat(fresh).isNotSameAs(idle);
        idle.lock();
        // The evicted object still holds in Redis: the new one for the same key cannot take it.
        assertThat(EchoMQLockRegistryTest.<Boolean>onAnotherThread(fresh::tryLock)).isFalse();
        idle.unlock();
        held.unlock();
    }

    @Test
    void aLeaseLostWhileHeldMakesUnlockThrowLockLost() {
        EchoMQLockRegistry shortLived = new EchoMQLockRegistry(node1, "my-app", Duration.ofMillis(400));
        EchoMQLock lock = shortLived.obtain("lost");
        lock.lock();
        var lease = lock.currentLease();
        REDIS.raw().call("DEL", "emq:lock:{my-app:lost}:lock");
        await().atMost(Duration.ofSeconds(5)).until(lease::isLost);
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class)
                .satisfies(e -> assertThat(((LockLostException) e).reason()).isEqualTo(LossReason.EXPIRED));
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    @Test
    @Tag("standalone-only")   // a cluster client learns the nodes' own addresses and would go round the proxy
    void aRedisFailureWhileAcquiringIsCannotAcquireLock() {
        // A server that does not answer within the command timeout: the proxy holds every reply back.
        try (FaultProxy proxy = FaultProxy.start(REDIS.server());
             LockClient slow = LockClient.builder().redisUrl(proxy.url()).commandTimeout(Duration.ofMillis(200)).build()) {
            EchoMQLock lock = new EchoMQLockRegistry(slow, "my-app").obtain("down");
            proxy.blackHole(Duration.ofSeconds(5));
            assertThatThrownBy(lock::tryLock).isInstanceOf(CannotAcquireLockException.class)
                    .hasCauseInstanceOf(io.echomq.RedisCommandException.class);
            assertThatThrownBy(lock::lock).isInstanceOf(CannotAcquireLockException.class);
            assertThat(lock.isLocked()).as("nothing held locally after the failure").isFalse();
            proxy.heal();
        }
    }

    @Test
    void conditionsAndBadSettingsAreRefused() {
        assertThatThrownBy(() -> registry.obtain("c").newCondition()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> new EchoMQLockRegistry(node1, "a{b}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new EchoMQLockRegistry(node1, "x", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new EchoMQLockRegistry(null, "x")).isInstanceOf(IllegalArgumentException.class);
    }
}
