package io.echomq.spring.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.spring.TestApps;
import io.echomq.testkit.RedisExtension;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
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
 * A {@code @Scheduled} {@code @Locked} task whose lease is lost while it runs, and which returns
 * normally: the loss is expected on a busy machine and has no caller to tell, so it is logged as
 * one WARN line (the task, the lock, the reason, how long it ran), not as the scheduler's ERROR
 * with a stack trace; and the task keeps being scheduled. The tests' SLF4J binding (slf4j-simple)
 * prints to {@code System.err}, which is captured here.
 */
class ScheduledLockLossTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    static final AtomicInteger RUNS = new AtomicInteger();

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableScheduling
    static class App {
        @Bean
        Nightly nightly() {
            return new Nightly();
        }
    }

    public static class Nightly {
        @Scheduled(fixedDelay = 20)
        @Locked("'nightly'")
        public void report() {
            if (RUNS.incrementAndGet() == 1) {
                Lease lease = LockedContext.current().orElseThrow();
                // as if the lock had expired while the task ran: the next renewal finds it gone
                try (LockClient direct = LockClient.create(REDIS.url())) {
                    REDIS.raw().call("DEL", direct.lockKey("nightly"));
                }
                lease.renewAsync(lease.ttl());   // finds the key gone: the lease is lost
                lease.lost().join();              // then the task returns normally
            }
        }
    }

    @Test
    void aScheduledTaskThatLostItsLockIsLoggedAsOneWarnLineAndKeepsRunning() throws Exception {
        PrintStream err = System.err;
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        System.setErr(new PrintStream(new Tee(err, copy), true, StandardCharsets.UTF_8));
        try (ConfigurableApplicationContext app = TestApps.start(App.class, REDIS.url())) {
            await().atMost(Duration.ofSeconds(20)).until(() -> RUNS.get() >= 3);
        } finally {
            System.setErr(err);
        }
        String log = copy.toString(StandardCharsets.UTF_8);
        List<String> lines = Arrays.asList(log.split("\\R"));
        List<String> warns = lines.stream().filter(l -> l.contains("lost the lock on 'nightly'")).toList();
        assertThat(warns).as(log).hasSize(1);
        assertThat(warns.get(0)).contains("WARN").contains("Nightly.report").contains("(EXPIRED)")
                .containsPattern("it ran \\d+ ms and returned");
        assertThat(log).as("no ERROR, no stack trace")
                .doesNotContain("ERROR").doesNotContain("LockLostException").doesNotContain("\tat ");
    }

    /** Writes to the real stream and to a copy. */
    private static final class Tee extends OutputStream {
        private final OutputStream out;
        private final OutputStream copy;

        Tee(OutputStream out, OutputStream copy) {
            this.out = out;
            this.copy = copy;
        }

        @Override
        public void write(int b) throws java.io.IOException {
            out.write(b);
            synchronized (copy) {
                copy.write(b);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws java.io.IOException {
            out.write(b, off, len);
            synchronized (copy) {
                copy.write(b, off, len);
            }
        }
    }
}
