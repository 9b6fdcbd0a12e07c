package io.echomq.spring.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.Job;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueStats;
import io.echomq.spring.EchoMQAutoConfiguration;
import io.echomq.spring.EchoMQFailureAnalyzer;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Workers start and stop with the context, within the grace; bad handlers and settings stop startup. */
class WorkerLifecycleTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(EchoMQAutoConfiguration.class))
            .withPropertyValues("echomq.redis.url=" + REDIS.url());

    static final CountDownLatch STARTED = new CountDownLatch(1);
    static final AtomicBoolean FINISHED = new AtomicBoolean();
    static final AtomicBoolean INTERRUPTED = new AtomicBoolean();

    public static class Slow {
        @EchoJobHandler(queue = "slow")
        public void run(String millis) {
            STARTED.countDown();
            try {
                Thread.sleep(Long.parseLong(millis));
                FINISHED.set(true);
            } catch (InterruptedException e) {
                INTERRUPTED.set(true);
            }
        }
    }

    @Test
    void closingTheContextLetsARunningJobFinishWithinTheGrace() throws Exception {
        try (QueueClient probe = QueueClient.create(REDIS.url())) {
            runner.withBean(Slow.class).withPropertyValues("echomq.worker.shutdown-grace=10s").run(ctx -> {
                assertThat(ctx).hasNotFailed();
                ctx.getBean(EchoMQTemplate.class).enqueue("slow", "400");
                assertThat(STARTED.await(10, TimeUnit.SECONDS)).isTrue();
            });   // the context closes here, waiting for the job
            assertThat(FINISHED).isTrue();
            QueueStats stats = probe.queue("slow").stats();
            assertThat(stats.completed()).isEqualTo(1);
            assertThat(stats.drained()).isTrue();
        }
    }

    static final CountDownLatch CUT_STARTED = new CountDownLatch(1);
    static final AtomicBoolean STOPPED = new AtomicBoolean();

    public static class Endless {
        @EchoJobHandler(queue = "endless")
        public void run(String text, Job job) throws Exception {
            CUT_STARTED.countDown();
            try {
                job.stopSignal().get(30, TimeUnit.SECONDS);   // until the worker asks it to stop
                STOPPED.set(job.stopRequested());
            } catch (InterruptedException e) {
                INTERRUPTED.set(true);
            }
        }
    }

    static final CountDownLatch SLEEPER_STARTED = new CountDownLatch(1);
    static final AtomicBoolean SLEEPER_INTERRUPTED = new AtomicBoolean();

    public static class Sleeper {
        @EchoJobHandler(queue = "sleeper")
        public void run(String text) {
            SLEEPER_STARTED.countDown();
            try {
                Thread.sleep(30_000);
            } catch (InterruptedException e) {
                SLEEPER_INTERRUPTED.set(true);
            }
        }
    }

    @Test
    void aJobStillRunningAfterTheGraceIsGivenBackUnspent() throws Exception {
        try (QueueClient probe = QueueClient.create(REDIS.url())) {
            long[] closedIn = new long[1];
            runner.withBean(Endless.class).withPropertyValues("echomq.worker.shutdown-grace=100ms").run(ctx -> {
                ctx.getBean(EchoMQTemplate.class).enqueue("endless", "x");
                assertThat(CUT_STARTED.await(10, TimeUnit.SECONDS)).isTrue();
                closedIn[0] = System.nanoTime();
            });
            assertThat(Duration.ofNanos(System.nanoTime() - closedIn[0])).isLessThan(Duration.ofSeconds(10));
            await().atMost(Duration.ofSeconds(5)).untilTrue(STOPPED);
            assertThat(INTERRUPTED).as("not interrupted by default").isFalse();
            QueueStats stats = probe.queue("endless").stats();
            assertThat(stats.pending()).isEqualTo(1);
            assertThat(stats.active()).isZero();
            assertThat(probe.queue("endless").claim(Duration.ofSeconds(5)).orElseThrow().spentAttempts())
                    .as("the returned attempt was not spent: this claim is the first spent").isEqualTo(1);
        }
    }

    @Test
    void withInterruptHandlersAJobStillRunningAfterTheGraceIsInterrupted() throws Exception {
        try (QueueClient probe = QueueClient.create(REDIS.url())) {
            runner.withBean(Sleeper.class).withPropertyValues("echomq.worker.shutdown-grace=100ms",
                    "echomq.worker.interrupt-handlers=true").run(ctx -> {
                        ctx.getBean(EchoMQTemplate.class).enqueue("sleeper", "x");
                        assertThat(SLEEPER_STARTED.await(10, TimeUnit.SECONDS)).isTrue();
                    });
            await().atMost(Duration.ofSeconds(5)).untilTrue(SLEEPER_INTERRUPTED);
            assertThat(probe.queue("sleeper").stats().pending()).isEqualTo(1);
        }
    }

    @Test
    void workersCanBeTurnedOff() {
        runner.withBean(Slow.class).withPropertyValues("echomq.worker.enabled=false")
                .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(WorkerLifecycle.class));
    }

    public static class TwoPayloads {
        @EchoJobHandler(queue = "q")
        public void run(String a, String b) {
        }
    }

    public static class Named {
        @EchoJobHandler(queue = "named")
        public void run(String payload) {
        }
    }

    @Test
    void theHandlersWorkersCarryTheConfiguredName() {
        try (QueueClient probe = QueueClient.create(REDIS.url())) {
            runner.withBean(Named.class).withPropertyValues("echomq.worker.name=billing-api",
                    "echomq.worker.maintenance-interval=50ms").run(ctx -> {
                        assertThat(ctx).hasNotFailed();
                        await().atMost(Duration.ofSeconds(15))
                                .until(() -> !io.echomq.queue.WorkerDirectory.of(probe).list("named").isEmpty());
                        java.util.List<io.echomq.queue.WorkerInfo> workers = io.echomq.queue.WorkerDirectory.of(probe)
                                .list("named");
                        assertThat(workers).extracting(io.echomq.queue.WorkerInfo::name).containsExactly("billing-api");
                        assertThat(workers.get(0).id()).matches(".+-" + ProcessHandle.current().pid() + "-[0-9]+");
                    });
        }
    }

    @Test
    void aBadWorkerNameFailsTheStartupNamingTheProperty() {
        runner.withBean(Named.class).withPropertyValues("echomq.worker.name= ").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure()).rootCause()
                    .isInstanceOf(io.echomq.spring.InvalidEchoMQPropertyException.class)
                    .hasMessageContaining("echomq.worker.name");
        });
    }

    public static class BadLease {
        @EchoJobHandler(queue = "q", lease = "5ms")
        public void run(String a) {
        }
    }

    public static class BadQueue {
        @EchoJobHandler(queue = "q#3")
        public void run(String a) {
        }
    }

    record Order(String id) {
    }

    public static class TakesJson {
        @EchoJobHandler(queue = "q")
        public void run(Order order) {
        }
    }

    @Test
    void anInvalidHandlerFailsStartupNamingTheMethod() {
        runner.withBean(TwoPayloads.class).run(ctx -> assertThat(ctx.getStartupFailure()).rootCause()
                .hasMessageContaining("TwoPayloads.run").hasMessageContaining("two payload parameters"));
        runner.withBean(BadLease.class).run(ctx -> assertThat(ctx.getStartupFailure()).rootCause()
                .hasMessageContaining("BadLease.run").hasMessageContaining("lease"));
        runner.withBean(BadQueue.class).run(ctx -> assertThat(ctx.getStartupFailure()).rootCause()
                .hasMessageContaining("BadQueue.run").hasMessageContaining("queue"));
        runner.withBean(TakesJson.class).withBean(PayloadCodec.class, PlainPayloadCodec::new)
                .run(ctx -> assertThat(ctx.getStartupFailure()).rootCause()
                        .hasMessageContaining("TakesJson.run").hasMessageContaining("cannot read"));
    }

    @Test
    void aNegativeGraceFailsStartupNamingTheProperty() {
        runner.withPropertyValues("echomq.worker.shutdown-grace=-1s").run(ctx -> assertThat(
                new EchoMQFailureAnalyzer().analyze(ctx.getStartupFailure()).getDescription())
                .startsWith("echomq.worker.shutdown-grace: "));
        runner.withPropertyValues("echomq.worker.idle-poll=1ms").run(ctx -> assertThat(
                new EchoMQFailureAnalyzer().analyze(ctx.getStartupFailure()).getDescription())
                .startsWith("echomq.worker.idle-poll: "));
        runner.withPropertyValues("echomq.worker.maintenance-interval=2h").run(ctx -> assertThat(
                new EchoMQFailureAnalyzer().analyze(ctx.getStartupFailure()).getDescription())
                .startsWith("echomq.worker.maintenance-interval: "));
    }
}
