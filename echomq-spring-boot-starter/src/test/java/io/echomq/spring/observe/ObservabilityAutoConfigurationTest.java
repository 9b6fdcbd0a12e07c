package io.echomq.spring.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.lock.LockClient;
import io.echomq.lock.Locks;
import io.echomq.micrometer.EchoMQMetrics;
import io.echomq.observe.Instrumentation;
import io.echomq.opentelemetry.EchoMQTracing;
import io.echomq.queue.QueueClient;
import io.echomq.spring.EchoMQAutoConfiguration;
import io.echomq.spring.EchoMQFailureAnalyzer;
import io.echomq.spring.queue.EchoJobHandler;
import io.echomq.spring.queue.EchoMQTemplate;
import io.echomq.testkit.RedisExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The starter's meters and spans on a real Redis, in small contexts: on by default with a registry
 * or an SDK, off by property, absent without the module or the bean, both at once, and a user's own
 * clients given the same instrumentation in one line.
 */
class ObservabilityAutoConfigurationTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    private static final Duration WAIT = Duration.ofSeconds(15);

    /** Each test starts on an empty server: a job an earlier test left on the shared queue would be counted too. */
    @BeforeEach
    void emptyServer() {
        REDIS.flushAll();
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                    EchoMQAutoConfiguration.class, EchoMQMetricsAutoConfiguration.class,
                    EchoMQTracingAutoConfiguration.class))
            .withPropertyValues("echomq.redis.url=" + REDIS.url());

    public static class Handlers {
        @EchoJobHandler(queue = "observe-handled")
        public void handle(String text) {
        }
    }

    /** An OpenTelemetry SDK whose spans go to an in-memory exporter. */
    @Configuration(proxyBeanMethods = false)
    static class Sdk {
        @Bean
        InMemorySpanExporter exporter() {
            return InMemorySpanExporter.create();
        }

        @Bean(destroyMethod = "close")
        OpenTelemetrySdk openTelemetry(InMemorySpanExporter exporter) {
            return OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()).build();
        }
    }

    /** The application's own clients, built with the starter's instrumentation in one line each. */
    @Configuration(proxyBeanMethods = false)
    static class OwnClients {
        @Bean(destroyMethod = "close")
        QueueClient ownQueueClient(EchoMQInstrumentation instrumentation) {
            return QueueClient.builder().redisUrl(REDIS.url()).instrumentation(instrumentation.get()).build();
        }

        @Bean(destroyMethod = "close")
        LockClient ownLockClient(EchoMQInstrumentation instrumentation) {
            return LockClient.builder().redisUrl(REDIS.url()).instrumentation(instrumentation.get()).build();
        }
    }

    private static List<String> echomqMeters(MeterRegistry registry) {
        return registry.getMeters().stream().map(m -> m.getId().getName()).filter(n -> n.startsWith("echomq."))
                .distinct().toList();
    }

    @Test
    void aHandlersQueueHasItsMetersAtStartAndAHandledJobCountsInThem() {
        runner.withBean(Handlers.class).run(ctx -> {
            MeterRegistry registry = ctx.getBean(MeterRegistry.class);
            assertThat(ctx.getBean(EchoMQInstrumentation.class).get()).isSameAs(ctx.getBean(EchoMQMetrics.class));
            assertThat(registry.get("echomq.queue.processed").tags("queue", "observe-handled", "outcome", "completed")
                    .timer().count()).isZero();
            assertThat(registry.get("echomq.queue.jobs").tags("queue", "observe-handled", "state", "pending")
                    .gauge().value()).isZero();
            ctx.getBean(EchoMQTemplate.class).enqueue("observe-handled", "x");
            await().atMost(WAIT).until(() -> registry.get("echomq.queue.processed")
                    .tags("queue", "observe-handled", "outcome", "completed").timer().count() == 1);
            ctx.getBean(LockClient.class).tryAcquire("observe-lock", Duration.ofSeconds(5)).orElseThrow().close();
            assertThat(registry.get("echomq.lock.acquire").tags("mode", "fenced", "outcome", "acquired")
                    .timer().count()).isEqualTo(1);
        });
    }

    @Test
    void metricsOffByPropertyRegisterNoMeter() {
        runner.withBean(Handlers.class).withPropertyValues("echomq.metrics.enabled=false").run(ctx -> {
            assertThat(ctx).doesNotHaveBean(EchoMQMetrics.class);
            assertThat(ctx.getBean(EchoMQInstrumentation.class).get()).isSameAs(Instrumentation.NONE);
            ctx.getBean(QueueClient.class).queue("observe-handled").enqueue("x");
            assertThat(echomqMeters(ctx.getBean(MeterRegistry.class))).isEmpty();
        });
    }

    @Test
    void withoutMicrometerOrOpenTelemetryOrARegistryTheClientsStillStart() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(EchoMQAutoConfiguration.class,
                        EchoMQMetricsAutoConfiguration.class, EchoMQTracingAutoConfiguration.class))
                .withPropertyValues("echomq.redis.url=" + REDIS.url())
                .withClassLoader(new FilteredClassLoader(EchoMQMetrics.class, MeterRegistry.class,
                        EchoMQTracing.class, OpenTelemetry.class))
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed().hasSingleBean(QueueClient.class).hasSingleBean(Locks.class)
                            .doesNotHaveBean(EchoMQMetricsAutoConfiguration.class)
                            .doesNotHaveBean(EchoMQTracingAutoConfiguration.class);
                    assertThat(ctx.getBean(EchoMQInstrumentation.class).get()).isSameAs(Instrumentation.NONE);
                });
        // the modules there, but no registry and no SDK bean: nothing either
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(EchoMQAutoConfiguration.class,
                        EchoMQMetricsAutoConfiguration.class, EchoMQTracingAutoConfiguration.class))
                .withPropertyValues("echomq.redis.url=" + REDIS.url())
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed().doesNotHaveBean(EchoMQMetrics.class).doesNotHaveBean(EchoMQTracing.class);
                    assertThat(ctx.getBean(EchoMQInstrumentation.class).get()).isSameAs(Instrumentation.NONE);
                });
    }

    @Test
    void aUsersOwnClientsAreKeptAndGetTheSameMetersInOneLine() {
        runner.withUserConfiguration(OwnClients.class).withPropertyValues("echomq.metrics.queues=observe-own").run(ctx -> {
            QueueClient own = ctx.getBean(QueueClient.class);
            assertThat(own).isSameAs(ctx.getBean("ownQueueClient"));
            assertThat(ctx.getBean(Locks.class)).isSameAs(ctx.getBean("ownLockClient"));
            MeterRegistry registry = ctx.getBean(MeterRegistry.class);
            assertThat(registry.get("echomq.queue.enqueued").tag("queue", "observe-own").counter().count()).isZero();
            own.queue("observe-own").enqueue("x");
            assertThat(registry.get("echomq.queue.enqueued").tag("queue", "observe-own").counter().count()).isEqualTo(1);
            ctx.getBean(LockClient.class).tryAcquire("observe-own-lock", Duration.ofSeconds(5)).orElseThrow().close();
            assertThat(registry.get("echomq.lock.acquire").tags("mode", "fenced", "outcome", "acquired")
                    .timer().count()).isEqualTo(1);
        });
    }

    @Test
    void aHandledJobMakesSpansAndCountsInTheMetersWhenBothArePresent() {
        runner.withBean(Handlers.class).withUserConfiguration(Sdk.class).run(ctx -> {
            InMemorySpanExporter exporter = ctx.getBean(InMemorySpanExporter.class);
            MeterRegistry registry = ctx.getBean(MeterRegistry.class);
            assertThat(ctx.getBean(EchoMQInstrumentation.class).parts())
                    .containsExactlyInAnyOrder(ctx.getBean(EchoMQMetrics.class), ctx.getBean(EchoMQTracing.class));
            ctx.getBean(EchoMQTemplate.class).enqueue("observe-handled", "x");
            await().atMost(WAIT).until(() -> exporter.getFinishedSpanItems().stream()
                    .anyMatch(s -> s.getName().equals("process observe-handled")));
            SpanData send = span(exporter, "send observe-handled");
            SpanData process = span(exporter, "process observe-handled");
            assertThat(process.getTraceId()).isEqualTo(send.getTraceId());
            assertThat(process.getParentSpanId()).isEqualTo(send.getSpanId());
            await().atMost(WAIT).until(() -> registry.get("echomq.queue.processed")
                    .tags("queue", "observe-handled", "outcome", "completed").timer().count() == 1);
        });
    }

    @Test
    void anInvalidQueueNameInTheMetricsQueuesStopsStartupNamingIt() {
        runner.withPropertyValues("echomq.metrics.queues=ok,bad{name}").run(ctx -> {
            String line = new EchoMQFailureAnalyzer().analyze(ctx.getStartupFailure()).getDescription();
            assertThat(line).startsWith("echomq.metrics.queues[1]: ");
        });
    }

    @Test
    void tracingOffByPropertyMakesNoSpan() {
        runner.withBean(Handlers.class).withUserConfiguration(Sdk.class)
                .withPropertyValues("echomq.tracing.enabled=false", "echomq.metrics.enabled=false").run(ctx -> {
                    assertThat(ctx).doesNotHaveBean(EchoMQTracing.class);
                    assertThat(ctx.getBean(EchoMQInstrumentation.class).get()).isSameAs(Instrumentation.NONE);
                    ctx.getBean(QueueClient.class).queue("observe-off").enqueue("x");
                    assertThat(ctx.getBean(InMemorySpanExporter.class).getFinishedSpanItems()).isEmpty();
                });
    }

    private static SpanData span(InMemorySpanExporter exporter, String name) {
        return exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).findFirst().orElseThrow();
    }
}
