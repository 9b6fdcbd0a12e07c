package io.echomq.test.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.spring.queue.EchoJobHandler;
import io.echomq.spring.queue.WorkerLifecycle;
import io.echomq.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;

/**
 * {@code @AutoConfigureEchoMQTest(workers = true)}: the application's workers run, on the same test server. The
 * context is closed after the class, so that its worker takes no job of another class's tests.
 */
@SpringBootTest(classes = WorkersOnTest.App.class, properties = "spring.main.banner-mode=off")
@AutoConfigureEchoMQTest(workers = true)
@DirtiesContext
class WorkersOnTest {
    /** An application with one handler, on a queue of its own. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Object reports() {
            return new Object() {
                @EchoJobHandler(queue = "reports")
                void report(String payload) {
                }
            };
        }
    }

    @Autowired
    WorkerLifecycle workers;

    @Test
    void theWorkersRunOnTheTestServer(@Autowired Environment environment) {
        assertThat(workers.isRunning()).isTrue();
        assertThat(workers.workers()).extracting(w -> w.queueName()).containsExactly("reports");
        assertThat(environment.getProperty("echomq.redis.url")).isEqualTo(TestRedis.shared().url());
    }
}
