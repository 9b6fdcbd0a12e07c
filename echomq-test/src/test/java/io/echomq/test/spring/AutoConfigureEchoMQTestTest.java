package io.echomq.test.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.QueueClient;
import io.echomq.spring.queue.EchoJobHandler;
import io.echomq.spring.queue.EchoMQTemplate;
import io.echomq.spring.queue.EchoSchedule;
import io.echomq.spring.queue.WorkerLifecycle;
import io.echomq.test.DrainedJob;
import io.echomq.test.TestRedis;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * {@link AutoConfigureEchoMQTest}: the starter on the test server, its workers off, each test on an empty server,
 * and a drain that runs the application's own handler with the payload decoded as the worker would.
 */
@SpringBootTest(classes = AutoConfigureEchoMQTestTest.App.class,
        properties = {"echomq.redis.url=redis://127.0.0.1:1", "spring.main.banner-mode=off"})
@AutoConfigureEchoMQTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AutoConfigureEchoMQTestTest {
    record Signup(String email) {
    }

    /** The application's handler. */
    static class Welcomer {
        final List<String> welcomed = new CopyOnWriteArrayList<>();

        @EchoJobHandler(queue = "welcome")
        void welcome(Signup signup) {
            if (signup.email().isBlank()) {
                throw new IllegalArgumentException("no address");
            }
            welcomed.add(signup.email());
        }

        @EchoJobHandler(queue = "digest")
        @EchoSchedule(name = "hourly-digest", every = "1h")
        void digest() {
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Welcomer welcomer() {
            return new Welcomer();
        }
    }

    @Autowired
    ApplicationQueues queues;
    @Autowired
    EchoMQTemplate template;
    @Autowired
    Welcomer welcomer;
    @Autowired
    ApplicationContext context;

    @Test
    @Order(1)
    void theStarterTalksToTheTestServerAboveTheTestsOwnUrl(@Autowired Environment environment) {
        assertThat(environment.getProperty("echomq.redis.url")).isEqualTo(TestRedis.shared().url());
        assertThat(context.getBean(QueueClient.class).serverDescription()).isNotEmpty();
    }

    @Test
    @Order(2)
    void noWorkerRunsSoEnqueuedJobsWaitForTheTest() {
        assertThat(context.getBeanNamesForType(WorkerLifecycle.class)).isEmpty();
        template.enqueue("welcome", new Signup("left@example.com"));
        queues.assertThat("welcome").hasEnqueued(1);
    }

    @Test
    @Order(3)
    void eachTestStartsOnAnEmptyServerAndDrainRunsTheApplicationsHandler() {
        queues.assertThat("welcome").isEmpty();
        template.enqueue("welcome", new Signup("ada@example.com"));
        assertThat(queues.enqueuedPayloads("welcome")).containsExactly("{\"email\":\"ada@example.com\"}");
        List<DrainedJob> ran = queues.drain("welcome");
        assertThat(ran).hasSize(1);
        assertThat(welcomer.welcomed).contains("ada@example.com").doesNotContain("left@example.com");
        queues.assertThat("welcome").isEmpty();
    }

    @Test
    @Order(4)
    void eachTestFindsTheApplicationsSchedulesStoredAgainAfterTheServerWasEmptied() {
        QueueClient client = context.getBean(QueueClient.class);
        assertThat(client.schedules("digest").get("hourly-digest")).as("stored again after this test's FLUSHALL")
                .hasValueSatisfying(info -> assertThat(info.nextFire()).isPresent());
        queues.assertThat("welcome").isEmpty();
    }

    @Test
    void aHandlerThatThrowsFailsTheDrain() {
        template.enqueue("welcome", new Signup(""));
        assertThatThrownBy(() -> queues.drain("welcome")).isInstanceOf(AssertionError.class)
                .hasRootCauseInstanceOf(IllegalArgumentException.class).hasMessageContaining("no address");
    }

    @Test
    void aQueueWithoutAHandlerCannotBeDrained() {
        assertThatThrownBy(() -> queues.drain("nobody-handles")).isInstanceOf(AssertionError.class)
                .hasMessageContaining("'nobody-handles', the application has 0");
    }
}
