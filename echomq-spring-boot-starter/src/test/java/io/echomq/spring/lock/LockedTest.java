package io.echomq.spring.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.LockWaitTimeoutException;
import io.echomq.lock.LossReason;
import io.echomq.spring.EchoMQAutoConfiguration;
import io.echomq.spring.TestApps;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code @Locked} on a real Redis, through the proxies a Boot application gets: two application
 * contexts contending, each busy policy, the lease parameter, and a lost lease telling the method
 * (and interrupting it, when it asks for that). Two contexts serve every test.
 */
class LockedTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    static ConfigurableApplicationContext a;
    static ConfigurableApplicationContext b;
    static LockClient direct;

    @BeforeAll
    static void start() {
        a = TestApps.start(App.class, REDIS.url());
        b = TestApps.start(App.class, REDIS.url());
        direct = LockClient.create(REDIS.url());
    }

    @AfterAll
    static void stop() {
        direct.close();
        b.close();
        a.close();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    /** Shared by both contexts' beans (one JVM), so overlap across "nodes" is visible. */
    static final AtomicInteger RUNNING = new AtomicInteger();
    static final AtomicInteger MOST_AT_ONCE = new AtomicInteger();
    static final AtomicInteger BODIES = new AtomicInteger();

    public static class Jobs {
        @Locked(value = "'exclusive:' + #key", whenBusy = WhenBusy.WAIT, maxWait = "20s")
        public void exclusive(String key) throws InterruptedException {
            int now = RUNNING.incrementAndGet();
            MOST_AT_ONCE.accumulateAndGet(now, Math::max);
            Thread.sleep(3);
            RUNNING.decrementAndGet();
        }

        @Locked("#p0")
        public int skipInt(String resource) {
            BODIES.incrementAndGet();
            return 7;
        }

        @Locked("#a0")
        public Optional<String> skipOptional(String resource) {
            BODIES.incrementAndGet();
            return Optional.of("ran");
        }

        @Locked("#resource")
        public OptionalLong skipOptionalLong(String resource) {
            BODIES.incrementAndGet();
            return OptionalLong.of(1);
        }

        @Locked("#resource")
        public boolean skipBoolean(String resource) {
            BODIES.incrementAndGet();
            return true;
        }

        @Locked("#resource")
        public String skipString(String resource) {
            BODIES.incrementAndGet();
            return "ran";
        }

        @Locked("#resource")
        public void skipVoid(String resource) {
            BODIES.incrementAndGet();
        }

        @Locked(value = "#resource", whenBusy = WhenBusy.THROW)
        public String throwing(String resource) {
            BODIES.incrementAndGet();
            return "ran";
        }

        @Locked(value = "#resource", whenBusy = WhenBusy.WAIT, maxWait = "${test.wait:200ms}")
        public String waiting(String resource) {
            BODIES.incrementAndGet();
            return "ran";
        }

        @Locked(value = "#resource", whenBusy = WhenBusy.WAIT, maxWait = "10s")
        public String waitingLong(String resource) {
            return "ran";
        }

        @Locked("'invoice:' + #id")
        public long fence(long id, Lease lease) {
            assertThat(LockedContext.current()).containsSame(lease);
            assertThat(lease.isHeld()).isTrue();
            assertThat(lease.resource()).isEqualTo("invoice:" + id);
            return lease.fence();
        }

        // ttl 3 s: the watchdog's renewals (every second) must outrun the local deadline on a
        // loaded machine's cold first call, so the loss the test causes is the one it hears
        @Locked(value = "#resource", ttl = "3s", interruptOnLoss = true)
        public String untilLost(String resource, CountDownLatch entered, AtomicBoolean interrupted,
                                AtomicReference<Throwable> check) {
            entered.countDown();
            try {
                Thread.sleep(15_000);
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
            try {
                LockedContext.checkHeld();
            } catch (Throwable t) {
                check.set(t);
            }
            return "finished";
        }

        @Locked(value = "#resource", ttl = "300ms", watchdog = false)
        public String outlivesTtl(String resource, AtomicBoolean interrupted, Lease lease) throws Exception {
            try {
                lease.lost().get(15, TimeUnit.SECONDS);   // the cooperative stop: the lease says it is lost
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
            return "finished";
        }
    }

    private static Jobs jobs(ConfigurableApplicationContext ctx) {
        return ctx.getBean(Jobs.class);
    }

    @Test
    void twoContextsNeverRunTheMethodAtOnce() throws Exception {
        RUNNING.set(0);
        MOST_AT_ONCE.set(0);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                Jobs target = jobs(i % 2 == 0 ? a : b);
                calls.add(pool.submit(() -> {
                    target.exclusive("one");
                    return null;
                }));
            }
            for (Future<?> f : calls) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(MOST_AT_ONCE.get()).isEqualTo(1);
        assertThat(direct.inspect("exclusive:one").isHeld()).isFalse();
    }

    @Test
    void skipReturnsTheEmptyValueOfEachTypeWithoutRunning() {
        try (Lease held = direct.tryAcquire("skip", Duration.ofSeconds(30)).orElseThrow()) {
            BODIES.set(0);
            Jobs j = jobs(a);
            assertThat(j.skipInt("skip")).isZero();
            assertThat(j.skipOptional("skip")).isEmpty();
            assertThat(j.skipOptionalLong("skip")).isEmpty();
            assertThat(j.skipBoolean("skip")).isFalse();
            assertThat(j.skipString("skip")).isNull();
            j.skipVoid("skip");
            assertThat(BODIES.get()).isZero();
        }
        assertThat(jobs(a).skipInt("skip")).isEqualTo(7);
        assertThat(jobs(b).skipOptional("skip")).contains("ran");
    }

    @Test
    void throwThrowsLockBusyWithoutRunning() {
        try (Lease held = direct.tryAcquire("throw", Duration.ofSeconds(30)).orElseThrow()) {
            BODIES.set(0);
            assertThatThrownBy(() -> jobs(a).throwing("throw"))
                    .isInstanceOfSatisfying(LockBusyException.class, e -> assertThat(e.resource()).isEqualTo("throw"));
            assertThat(BODIES.get()).isZero();
        }
        assertThat(jobs(a).throwing("throw")).isEqualTo("ran");
    }

    @Test
    void waitRunsOnceTheHolderReleases() throws Exception {
        Lease held = direct.tryAcquire("wait", Duration.ofSeconds(30)).orElseThrow();
        CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> jobs(b).waitingLong("wait"));
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> !call.isDone());
        held.release();
        assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("ran");
    }

    @Test
    void waitThrowsLockBusyWhenTheWaitRunsOut() {
        try (Lease held = direct.tryAcquire("wait-out", Duration.ofSeconds(30)).orElseThrow()) {
            BODIES.set(0);
            long start = System.nanoTime();
            assertThatThrownBy(() -> jobs(a).waiting("wait-out"))
                    .isInstanceOf(LockBusyException.class).hasCauseInstanceOf(LockWaitTimeoutException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(190));
            assertThat(BODIES.get()).isZero();
        }
    }

    @Test
    void aLeaseParameterReceivesTheFencedLease() {
        long first = jobs(a).fence(42, null);
        long second = jobs(b).fence(42, null);
        assertThat(first).isPositive();
        assertThat(second).isGreaterThan(first);
        assertThat(direct.inspect("invoice:42").lastFence()).isEqualTo(second);
        assertThat(LockedContext.current()).isEmpty();
    }

    @Test
    void withInterruptOnLossALostLeaseInterruptsTheMethodAndTheCallerIsTold() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicReference<Throwable> check = new AtomicReference<>();
        AtomicReference<Boolean> flagAfter = new AtomicReference<>();
        CompletableFuture<String> call = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                call.complete(jobs(a).untilLost("lose-me", entered, interrupted, check));
            } catch (Throwable t) {
                call.completeExceptionally(t);
            } finally {
                flagAfter.set(Thread.currentThread().isInterrupted());
            }
        });
        caller.start();
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        REDIS.raw().call("DEL", direct.lockKey("lose-me"));   // as if the lock had expired
        assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).cause()
                .isInstanceOfSatisfying(LockLostException.class, e -> {
                    assertThat(e.resource()).isEqualTo("lose-me");
                    assertThat(e.reason()).isEqualTo(LossReason.EXPIRED);
                });
        caller.join(5_000);
        assertThat(interrupted).isTrue();
        assertThat(check.get()).isInstanceOf(LockLostException.class);
        assertThat(flagAfter.get()).as("the interrupt does not leak into the caller").isFalse();
    }

    @Test
    void withoutTheWatchdogAMethodOutlivingItsTtlIsToldByItsLeaseWithoutAnInterrupt() {
        AtomicBoolean interrupted = new AtomicBoolean();
        long start = System.nanoTime();
        assertThatThrownBy(() -> jobs(b).outlivesTtl("short", interrupted, null))
                .isInstanceOfSatisfying(LockLostException.class, e -> assertThat(e.reason()).isEqualTo(LossReason.DEADLINE_PASSED))
                .as("the core's catch sees it too").isInstanceOf(io.echomq.lock.LockLostException.class);
        assertThat(interrupted).as("a loss does not interrupt by default").isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }

    public static class BadTtl {
        @Locked(value = "'x'", ttl = "soon")
        public void run() {
        }
    }

    public static class ReturnsFuture {
        @Locked("'x'")
        public CompletableFuture<String> run() {
            return CompletableFuture.completedFuture("x");
        }
    }

    @Test
    void anInvalidAnnotationFailsStartupNamingTheMethod() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, EchoMQAutoConfiguration.class))
                .withPropertyValues("echomq.redis.url=" + REDIS.url());
        runner.withBean(BadTtl.class).run(ctx -> assertThat(ctx.getStartupFailure()).rootCause()
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("BadTtl.run").hasMessageContaining("ttl 'soon'"));
        runner.withBean(ReturnsFuture.class).run(ctx -> assertThat(ctx.getStartupFailure()).rootCause()
                .hasMessageContaining("ReturnsFuture.run").hasMessageContaining("CompletableFuture"));
    }
}
