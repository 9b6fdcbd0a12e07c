package io.echomq.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.lock.AcquireOptions;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.LockWaitTimeoutException;
import io.echomq.lock.RenewOutcome;
import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.JobRequest;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueStats;
import io.echomq.queue.Worker;
import io.echomq.testkit.RedisExtension;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.search.RequiredSearch;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Each meter of {@link EchoMQMetrics}, in a {@link SimpleMeterRegistry}, after a known sequence of
 * lock and queue operations on a real Redis.
 */
class EchoMQMetricsTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    private static final Duration TTL = Duration.ofSeconds(10);
    private static final Duration WAIT = Duration.ofSeconds(15);

    private final MockClock clock = new MockClock();
    private SimpleMeterRegistry registry;
    private EchoMQMetrics metrics;

    @BeforeEach
    void bind() {
        REDIS.flushAll();
        registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);
        metrics = EchoMQMetrics.bind(registry, Duration.ofSeconds(10));
    }

    @AfterEach
    void close() {
        metrics.close();
    }

    private RequiredSearch meter(String name, String... tags) {
        return registry.get(name).tags(tags);
    }

    @Test
    void lockMetersAfterAKnownSequence() throws Exception {
        try (LockClient locks = LockClient.builder().redisUrl(REDIS.url()).instrumentation(metrics).build()) {
            Lease a = locks.tryAcquire("a", TTL).orElseThrow();                            // fenced acquired
            assertThat(locks.tryAcquire("a", TTL)).isEmpty();                              // fenced busy
            assertThatThrownBy(() -> locks.acquire("a", TTL, Duration.ofMillis(30)))       // fenced timed out
                    .isInstanceOf(LockWaitTimeoutException.class);
            Lease p = locks.tryAcquire("p", TTL, AcquireOptions.defaults().plain()).orElseThrow();  // plain acquired

            assertThat(meter("echomq.lock.held", "mode", "fenced").longTaskTimer().activeTasks()).isEqualTo(1);
            assertThat(meter("echomq.lock.held", "mode", "plain").longTaskTimer().activeTasks()).isEqualTo(1);

            assertThat(a.renew()).isEqualTo(RenewOutcome.RENEWED);
            REDIS.raw().call("DEL", locks.lockKey("a"));
            assertThat(a.renew()).isEqualTo(RenewOutcome.EXPIRED);                         // refused, lost EXPIRED
            p.release();

            assertThat(meter("echomq.lock.acquire", "mode", "fenced", "outcome", "acquired").timer().count()).isEqualTo(1);
            assertThat(meter("echomq.lock.acquire", "mode", "fenced", "outcome", "busy").timer().count()).isEqualTo(1);
            assertThat(meter("echomq.lock.acquire", "mode", "fenced", "outcome", "timed_out").timer().count()).isEqualTo(1);
            assertThat(meter("echomq.lock.acquire", "mode", "fenced", "outcome", "timed_out").timer()
                    .totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(30);
            assertThat(meter("echomq.lock.acquire", "mode", "plain", "outcome", "acquired").timer().count()).isEqualTo(1);
            assertThat(meter("echomq.lock.acquire", "mode", "fenced", "outcome", "error").timer().count()).isZero();
            assertThat(meter("echomq.lock.renewals", "mode", "fenced", "result", "renewed").counter().count()).isEqualTo(1);
            assertThat(meter("echomq.lock.renewals", "mode", "fenced", "result", "refused").counter().count()).isEqualTo(1);
            assertThat(meter("echomq.lock.lost", "mode", "fenced", "reason", "expired").counter().count()).isEqualTo(1);
            assertThat(meter("echomq.lock.lost", "mode", "fenced", "reason", "not_owner").counter().count()).isZero();
            assertThat(meter("echomq.lock.held", "mode", "fenced").longTaskTimer().activeTasks()).isZero();
            assertThat(meter("echomq.lock.held", "mode", "plain").longTaskTimer().activeTasks()).isZero();

            // a lease left to run out, never released nor asked about: the sweep stops its sample
            locks.tryAcquire("forgotten", Duration.ofMillis(50)).orElseThrow();
            assertThat(meter("echomq.lock.held", "mode", "fenced").longTaskTimer().activeTasks()).isEqualTo(1);
            await().atMost(WAIT).until(() -> meter("echomq.lock.held", "mode", "fenced").longTaskTimer().activeTasks() == 0);
        }
        assertThat(registry.getMeters()).allSatisfy(m -> assertThat(m.getId().getTags())
                .noneMatch(t -> t.getKey().equals("resource") || t.getValue().equals("a") || t.getValue().equals("p")));
    }

    @Test
    void queueMetersAfterAKnownSequence() {
        try (QueueClient client = QueueClient.builder().redisUrl(REDIS.url()).instrumentation(metrics).build()) {
            Queue q = client.queue("emails");
            EnqueueOptions once = EnqueueOptions.defaults().withMaxAttempts(1);
            q.enqueueAll(List.of(JobRequest.of("ok-1"), JobRequest.of("ok-2"),
                    new JobRequest("bad".getBytes(StandardCharsets.UTF_8), once)));
            try (Worker w = client.worker("emails", job -> {
                if (job.payloadUtf8().equals("bad")) {
                    throw new IllegalStateException("planned");
                }
            }).logFailures(false).start()) {
                await().atMost(WAIT).until(() -> registry.find("echomq.queue.processed").timers().stream()
                        .mapToLong(t -> t.count()).sum() == 3);
            }
            assertThat(meter("echomq.queue.enqueued", "queue", "emails").counter().count()).isEqualTo(3);
            assertThat(meter("echomq.queue.processed", "queue", "emails", "outcome", "completed").timer().count()).isEqualTo(2);
            assertThat(meter("echomq.queue.processed", "queue", "emails", "outcome", "dead").timer().count()).isEqualTo(1);
            assertThat(meter("echomq.queue.processed", "queue", "emails", "outcome", "retrying").timer().count()).isZero();
            assertThat(meter("echomq.queue.wait", "queue", "emails").timer().count()).isEqualTo(3);

            // a hand claim whose lease runs out, then a reap: one lease back to pending
            q.enqueue("late");
            assertThat(q.claim(Duration.ofMillis(30))).isPresent();
            await().atMost(WAIT).until(() -> q.reap(10).returned() == 1);
            assertThat(meter("echomq.queue.reaped", "queue", "emails", "to", "pending").counter().count()).isEqualTo(1);
            assertThat(meter("echomq.queue.reaped", "queue", "emails", "to", "dead").counter().count()).isZero();
            assertThat(meter("echomq.queue.wait", "queue", "emails").timer().count()).isEqualTo(4);
        }
    }

    @Test
    void registerQueueMakesEveryEventMeterAtZeroAndTheEventsThenFeedThoseMeters() {
        assertThat(registry.find("echomq.queue.enqueued").meters()).isEmpty();
        metrics.registerQueue("signups");
        metrics.registerQueue("signups");   // again: the same meters, no error
        assertThat(meter("echomq.queue.enqueued", "queue", "signups").counter().count()).isZero();
        for (String outcome : List.of("completed", "retrying", "dead", "returned", "lease_lost", "cancelled")) {
            assertThat(meter("echomq.queue.processed", "queue", "signups", "outcome", outcome).timer().count()).isZero();
        }
        assertThat(meter("echomq.queue.wait", "queue", "signups").timer().count()).isZero();
        assertThat(meter("echomq.queue.reaped", "queue", "signups", "to", "pending").counter().count()).isZero();
        assertThat(meter("echomq.queue.reaped", "queue", "signups", "to", "dead").counter().count()).isZero();
        assertThat(meter("echomq.queue.timeouts", "queue", "signups", "outcome", "retrying").counter().count()).isZero();
        assertThat(meter("echomq.queue.timeouts", "queue", "signups", "outcome", "dead").counter().count()).isZero();
        assertThat(registry.find("echomq.queue.enqueued").counters()).hasSize(1);

        try (QueueClient client = QueueClient.builder().redisUrl(REDIS.url()).instrumentation(metrics).build()) {
            client.queue("signups").enqueue("a");
        }
        assertThat(meter("echomq.queue.enqueued", "queue", "signups").counter().count()).isEqualTo(1);
        assertThat(registry.find("echomq.queue.enqueued").counters()).hasSize(1);
        assertThatThrownBy(() -> metrics.registerQueue(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void attemptsATimeoutEndedAreCountedByOutcome() {
        try (QueueClient client = QueueClient.builder().redisUrl(REDIS.url()).instrumentation(metrics).build()) {
            Queue q = client.queue("slow");
            // two attempts, each ended by its own 150 ms timeout: the first retries, the second dies
            q.enqueue("sleeps", EnqueueOptions.defaults().withMaxAttempts(2).withBackoff(Duration.ofMillis(1),
                    Duration.ofMillis(1)).withTimeout(Duration.ofMillis(150)));
            q.enqueue("quick");
            try (Worker w = client.worker("slow", job -> {
                if (job.payloadUtf8().equals("sleeps")) {
                    Thread.sleep(10_000);
                }
            }).logFailures(false).start()) {
                await().atMost(WAIT).until(() -> registry.find("echomq.queue.processed").timers().stream()
                        .mapToLong(t -> t.count()).sum() == 3);
            }
            assertThat(meter("echomq.queue.timeouts", "queue", "slow", "outcome", "retrying").counter().count()).isEqualTo(1);
            assertThat(meter("echomq.queue.timeouts", "queue", "slow", "outcome", "dead").counter().count()).isEqualTo(1);
            assertThat(meter("echomq.queue.processed", "queue", "slow", "outcome", "retrying").timer().count()).isEqualTo(1);
            assertThat(meter("echomq.queue.processed", "queue", "slow", "outcome", "dead").timer().count()).isEqualTo(1);
            assertThat(meter("echomq.queue.processed", "queue", "slow", "outcome", "completed").timer().count()).isEqualTo(1);
        }
    }

    @Test
    void stateGaugesShareOneThrottledStatsCall() {
        try (QueueClient client = QueueClient.builder().redisUrl(REDIS.url()).build()) {
            Queue q = client.queue("jobs");
            q.enqueueAll(List.of(JobRequest.of("1"), JobRequest.of("2"), JobRequest.of("3")));
            q.enqueue("later".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));
            assertThat(q.claim(Duration.ofMinutes(1))).isPresent();
            AtomicInteger reads = new AtomicInteger();
            metrics.monitor("jobs", () -> {
                reads.incrementAndGet();
                return q.stats();
            });
            metrics.monitor("jobs", () -> {
                throw new AssertionError("a second monitor of one name registers nothing");
            });

            assertThat(gauge("jobs", "pending")).isEqualTo(2);
            assertThat(gauge("jobs", "active")).isEqualTo(1);
            assertThat(gauge("jobs", "delayed")).isEqualTo(1);
            assertThat(gauge("jobs", "dead")).isZero();
            assertThat(gauge("jobs", "overdue")).isZero();
            assertThat(reads).as("five gauges, one stats call").hasValue(1);

            q.enqueue("4");
            assertThat(gauge("jobs", "pending")).as("still the snapshot").isEqualTo(2);
            clock.add(Duration.ofSeconds(10));
            assertThat(gauge("jobs", "pending")).isEqualTo(3);
            assertThat(gauge("jobs", "active")).isEqualTo(1);
            assertThat(reads).hasValue(2);
        }
    }

    @Test
    void aFailingStatsReadKeepsTheLastValueAndIsRetriedOncePerInterval() {
        AtomicInteger reads = new AtomicInteger();
        metrics.monitor("flaky", () -> {
            if (reads.incrementAndGet() % 2 == 1) {
                throw new IllegalStateException("redis is down");
            }
            return new QueueStats(5, 1, 0, 0, 0, 0, 0);
        });
        assertThat(gauge("flaky", "pending")).as("no snapshot yet").isNaN();
        assertThat(gauge("flaky", "active")).isNaN();
        assertThat(reads).as("not retried per gauge").hasValue(1);
        clock.add(Duration.ofSeconds(10));
        assertThat(gauge("flaky", "pending")).isEqualTo(5);
        clock.add(Duration.ofSeconds(10));
        assertThat(gauge("flaky", "pending")).as("the last known value").isEqualTo(5);
        assertThat(reads).hasValue(3);
    }

    @Test
    void badInputIsRefused() {
        assertThatThrownBy(() -> EchoMQMetrics.bind(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> EchoMQMetrics.bind(registry, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> metrics.monitor(null)).isInstanceOf(NullPointerException.class);
        metrics.leaseEnded("not a handle of ours");   // ignored
    }

    private double gauge(String queue, String state) {
        return meter("echomq.queue.jobs", "queue", queue, "state", state).gauge().value();
    }
}
