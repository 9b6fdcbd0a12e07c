package io.echomq.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.spring.EchoMQActuatorAutoConfiguration;
import io.echomq.spring.EchoMQAutoConfiguration;
import io.echomq.spring.EchoMQFailureAnalyzer;
import io.echomq.spring.queue.EchoJobHandler;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The health indicator's counts and thresholds, its failure when Redis does not answer, and the info. */
class ActuatorTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(EchoMQAutoConfiguration.class, EchoMQActuatorAutoConfiguration.class))
            .withPropertyValues("echomq.redis.url=" + REDIS.url());

    public static class Handlers {
        @EchoJobHandler(queue = "health-handled")
        public void handle(String text) {
        }
    }

    @Test
    void upWithTheCountsOfHandledAndConfiguredQueues() {
        runner.withBean(Handlers.class).withPropertyValues("echomq.health.queues=health-watched").run(ctx -> {
            ctx.getBean(QueueClient.class).queue("health-watched").enqueue("a");
            Health health = ctx.getBean(EchoMQHealthIndicator.class).health(true);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            @SuppressWarnings("unchecked")
            Map<String, Map<String, Long>> queues = (Map<String, Map<String, Long>>) health.getDetails().get("queues");
            assertThat(queues).containsOnlyKeys("health-handled", "health-watched");
            assertThat(queues.get("health-watched")).containsEntry("pending", 1L).containsEntry("dead", 0L)
                    .containsKeys("active", "delayed", "overdue");
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void downWhenAQueuePassesItsDeadOrOverdueLimit() {
        runner.withPropertyValues("echomq.health.queues=health-dead,health-overdue", "echomq.health.max-dead=0",
                "echomq.health.max-overdue=0").run(ctx -> {
            EchoMQHealthIndicator indicator = ctx.getBean(EchoMQHealthIndicator.class);
            assertThat(indicator.health(true).getStatus()).isEqualTo(Status.UP);
            QueueClient client = ctx.getBean(QueueClient.class);
            Queue dead = client.queue("health-dead");
            dead.enqueue("x");
            dead.claim(Duration.ofSeconds(5)).orElseThrow().failWithoutRetry("broken");
            Health health = indicator.health(true);
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat((List<Object>) health.getDetails().get("problems")).containsExactly("health-dead: 1 dead jobs, more than 0");

            Queue overdue = client.queue("health-overdue");
            overdue.enqueue("y");
            Job claimed = overdue.claim(Queue.MIN_LEASE).orElseThrow();   // never renewed: overdue once its lease passes
            await().atMost(Duration.ofSeconds(5)).until(() -> overdue.stats().overdue() == 1);
            assertThat((List<Object>) indicator.health(true).getDetails().get("problems"))
                    .contains("health-overdue: 1 overdue leases, more than 0");
            assertThat(claimed.id()).isNotEmpty();
        });
    }

    @Test
    void downWhenRedisDoesNotAnswer() {
        runner.run(ctx -> {
            ctx.getBean(QueueClient.class).close();
            ctx.getBean(io.echomq.lock.LockClient.class).close();
            Health health = ctx.getBean(EchoMQHealthIndicator.class).health(true);
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails()).containsKey("error");
        });
    }

    @Test
    void aBadThresholdFailsStartupNamingIt() {
        runner.withPropertyValues("echomq.health.max-dead=-2").run(ctx -> assertThat(
                new EchoMQFailureAnalyzer().analyze(ctx.getStartupFailure()).getDescription())
                .startsWith("echomq.health.max-dead: "));
        runner.withPropertyValues("echomq.health.queues=ok,bad#1").run(ctx -> assertThat(
                new EchoMQFailureAnalyzer().analyze(ctx.getStartupFailure()).getDescription())
                .startsWith("echomq.health.queues[1]: "));
    }

    @Test
    void withoutTheActuatorThereIsNoIndicatorAndNoFailure() {
        runner.withClassLoader(new org.springframework.boot.test.context.FilteredClassLoader(
                "org.springframework.boot.health", "org.springframework.boot.actuate")).run(ctx -> assertThat(ctx)
                .hasNotFailed().doesNotHaveBean(EchoMQHealthIndicator.class).doesNotHaveBean(EchoMQInfoContributor.class)
                .hasSingleBean(QueueClient.class));
    }

    @Test
    void theHealthIndicatorCanBeTurnedOff() {
        runner.withPropertyValues("management.health.echomq.enabled=false")
                .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(EchoMQHealthIndicator.class));
    }

    @Test
    void infoNamesTheServerAndTheMode() {
        runner.run(ctx -> {
            Info.Builder builder = new Info.Builder();
            ctx.getBean(EchoMQInfoContributor.class).contribute(builder);
            @SuppressWarnings("unchecked")
            Map<String, Object> echomq = (Map<String, Object>) builder.build().getDetails().get("echomq");
            assertThat((String) echomq.get("server")).matches("(Redis|Valkey).*\\d+\\.\\d+.*");
            assertThat(echomq.get("mode")).isEqualTo(RedisExtension.clusterMode() ? "cluster" : "single");
        });
    }
}
