package io.echomq.spring.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.lock.LockClient;
import io.echomq.lock.LossReason;
import io.echomq.spring.EchoMQAutoConfiguration;
import io.echomq.spring.TestApps;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
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
 * {@code @Locked(lockAtLeastFor = ...)} on a real Redis, through two application contexts: the
 * lock outlives a quick method until the at-least time since the acquisition, unrenewed, and then
 * expires; a longer method, a lost lease and the default release at once; bad settings fail
 * startup.
 */
class LockedAtLeastTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    /** The at-least time of {@link Jobs#quick}, given through a property placeholder. */
    static final Duration AT_LEAST = Duration.ofMillis(1500);

    static ConfigurableApplicationContext a;
    static ConfigurableApplicationContext b;
    static LockClient direct;

    @BeforeAll
    static void start() {
        a = TestApps.start(App.class, REDIS.url(), "jobs.at-least=" + AT_LEAST.toMillis() + "ms");
        b = TestApps.start(App.class, REDIS.url(), "jobs.at-least=" + AT_LEAST.toMillis() + "ms");
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

    static final AtomicInteger RUNS = new AtomicInteger();

    public static class Jobs {
        /**
         * Returns at once; the lock must stay for the at-least time, and then go although the
         * watchdog (on by default) renewed it every ~667 ms while it was held.
         */
        @Locked(value = "'quick:' + #name", ttl = "2s", lockAtLeastFor = "${jobs.at-least}")
        public boolean quick(String name) {
            RUNS.incrementAndGet();
            return true;
        }

        /** Works longer than its at-least time, so it is released at once. */
        @Locked(value = "'slow'", lockAtLeastFor = "50ms")
        public boolean slow() throws InterruptedException {
            Thread.sleep(150);   // the work itself, longer than lockAtLeastFor
            return true;
        }

        /** The lock is taken from it while it runs, as though it had expired. */
        @Locked(value = "'lost'", lockAtLeastFor = "PT20S")
        public boolean losesItsLock() {
            REDIS.raw().call("DEL", direct.lockKey("lost"));
            return true;
        }

        @Locked("'plain'")
        public boolean plain() {
            return true;
        }
    }

    private static Jobs jobs(ConfigurableApplicationContext ctx) {
        return ctx.getBean(Jobs.class);
    }

    private static long pttl(String resource) {
        return (Long) REDIS.raw().call("PTTL", direct.lockKey(resource));
    }

    @Test
    void aQuickMethodKeepsTheLockUntilTheAtLeastTimeAndThenItExpires() {
        long before = System.nanoTime();
        assertThat(jobs(a).quick("one")).isTrue();
        long left = pttl("quick:one");
        long since = Duration.ofNanos(System.nanoTime() - before).toMillis();
        assertThat(left).as("still held right after the method returned")
                .isPositive().isLessThanOrEqualTo(AT_LEAST.toMillis());
        // expiry = acquisition + at-least, the acquisition after 'before'; 2 ms for the milliseconds the expiry and PTTL are cut to
        assertThat(left).as("expires no sooner than the at-least time after the call began")
                .isGreaterThanOrEqualTo(AT_LEAST.toMillis() - since - 2);
        await().atMost(AT_LEAST.plusSeconds(5)).pollInterval(Duration.ofMillis(10))
                .until(() -> pttl("quick:one") == -2);   // -2: no such key; the watchdog no longer renews it
        assertThat(Duration.ofNanos(System.nanoTime() - before))
                .as("gone no sooner than the at-least time").isGreaterThanOrEqualTo(AT_LEAST.minusMillis(2));
    }

    @Test
    void aSecondInstanceCannotRunTheTaskWithinTheAtLeastTimeAndCanAfter() {
        RUNS.set(0);
        long before = System.nanoTime();
        assertThat(jobs(a).quick("shared")).isTrue();
        assertThat(jobs(b).quick("shared")).as("skipped: the first instance's run still holds the lock").isFalse();
        assertThat(jobs(a).quick("shared")).as("the first instance too").isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - before)).as("those calls were within the at-least time")
                .isLessThan(AT_LEAST);
        assertThat(RUNS.get()).isEqualTo(1);
        await().atMost(AT_LEAST.plusSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> jobs(b).quick("shared"));
        assertThat(Duration.ofNanos(System.nanoTime() - before)).isGreaterThanOrEqualTo(AT_LEAST.minusMillis(2));
        assertThat(RUNS.get()).isEqualTo(2);
    }

    @Test
    void aMethodThatRanLongerThanTheAtLeastTimeIsReleasedAtOnce() throws Exception {
        assertThat(jobs(a).slow()).isTrue();
        assertThat(pttl("slow")).isEqualTo(-2);
        assertThat(jobs(b).slow()).isTrue();
    }

    @Test
    void withoutAnAtLeastTimeTheLockIsReleasedAtOnce() {
        assertThat(jobs(a).plain()).isTrue();
        assertThat(pttl("plain")).isEqualTo(-2);
        assertThat(direct.inspect("plain").isHeld()).isFalse();
    }

    @Test
    void aLeaseLostWhileTheMethodRanIsNotKeptNorRevived() {
        assertThatThrownBy(() -> jobs(a).losesItsLock())
                .isInstanceOfSatisfying(LockLostException.class, e -> assertThat(e.reason()).isEqualTo(LossReason.EXPIRED));
        assertThat(pttl("lost")).isEqualTo(-2);
    }

    public static class Negative {
        @Locked(value = "'x'", lockAtLeastFor = "-1s")
        public void run() {
        }
    }

    public static class LongerThanTtl {
        @Locked(value = "'x'", ttl = "10s", lockAtLeastFor = "${at-least}")
        public void run() {
        }
    }

    public static class NotADuration {
        @Locked(value = "'x'", lockAtLeastFor = "a while")
        public void run() {
        }
    }

    @Test
    void aNegativeOrTooLongOrInvalidAtLeastTimeFailsStartupNamingTheMethod() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, EchoMQAutoConfiguration.class))
                .withPropertyValues("echomq.redis.url=" + REDIS.url(), "at-least=11s");
        runner.withBean(Negative.class).run(ctx -> assertThat(ctx.getStartupFailure()).rootCause()
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("Negative.run")
                .hasMessageContaining("lockAtLeastFor must be zero or more"));
        runner.withBean(LongerThanTtl.class).run(ctx -> assertThat(ctx.getStartupFailure()).rootCause()
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("LongerThanTtl.run")
                .hasMessageContaining("lockAtLeastFor PT11S is longer than the ttl PT10S"));
        runner.withBean(NotADuration.class).run(ctx -> assertThat(ctx.getStartupFailure()).rootCause()
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("NotADuration.run")
                .hasMessageContaining("lockAtLeastFor 'a while' is not a duration"));
    }
}
