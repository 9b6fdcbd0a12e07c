package io.echomq.spring.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.spring.TestApps;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * ShedLock's promise with {@code @Scheduled} + {@code @Locked}: two application instances
 * scheduling the same task never run it at once, and the task keeps running on one of them.
 */
class ScheduledLockedTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    static final AtomicInteger RUNNING = new AtomicInteger();
    static final AtomicInteger MOST_AT_ONCE = new AtomicInteger();
    static final AtomicInteger RUNS = new AtomicInteger();
    static final Set<String> INSTANCES = ConcurrentHashMap.newKeySet();

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableScheduling
    static class App {
        @Bean
        Task task(org.springframework.core.env.Environment env) {
            return new Task(env.getProperty("instance"));
        }
    }

    public static class Task {
        private final String instance;

        Task(String instance) {
            this.instance = instance;
        }

        @Scheduled(fixedDelay = 2)
        @Locked("'report'")
        public void report() throws InterruptedException {
            int now = RUNNING.incrementAndGet();
            MOST_AT_ONCE.accumulateAndGet(now, Math::max);
            INSTANCES.add(instance);
            Thread.sleep(15);
            RUNNING.decrementAndGet();
            RUNS.incrementAndGet();
        }
    }

    @Test
    void twoInstancesNeverRunTheScheduledTaskAtOnce() {
        try (ConfigurableApplicationContext one = TestApps.start(App.class, REDIS.url(), "instance=one");
             ConfigurableApplicationContext two = TestApps.start(App.class, REDIS.url(), "instance=two")) {
            await().atMost(Duration.ofSeconds(30)).until(() -> RUNS.get() >= 30);
        }
        assertThat(MOST_AT_ONCE.get()).isEqualTo(1);
        assertThat(INSTANCES).isNotEmpty();
    }
}
