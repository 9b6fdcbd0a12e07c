package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.RecordingInstrumentation;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What a queue client tells its {@link QueueInstrumentation}: jobs created per enqueue call,
 * the wait of first claims of jobs enqueued without a delay, reaped leases, and every attempt a
 * worker settled with its outcome; and that an instrumentation which always throws breaks no job.
 */
class QueueInstrumentationTest extends QueueTestBase {
    private static final Duration WAIT = Duration.ofSeconds(15);

    @Test
    void enqueuesFirstClaimsAndReapsAreReported() {
        RecordingInstrumentation rec = new RecordingInstrumentation();
        Queue q = client(b -> b.instrumentation(rec)).queue("obs");
        EnqueueOptions keyed = EnqueueOptions.defaults().withIdempotencyKey("k", Duration.ofMinutes(1));

        q.enqueueAll(List.of(JobRequest.of("a"), JobRequest.of("b")));
        q.enqueue("c".getBytes(StandardCharsets.UTF_8), keyed);
        q.enqueue("c".getBytes(StandardCharsets.UTF_8), keyed);   // a duplicate creates nothing
        q.enqueue("d".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults().withDelay(Duration.ofMillis(30)));
        assertThat(rec.calls("enqueued")).containsExactly("enqueued obs 2", "enqueued obs 1", "enqueued obs 1");

        List<Job> first = q.claim(3, Duration.ofMillis(50));
        assertThat(first).hasSize(3);
        assertThat(rec.calls("waited")).containsExactly("waited obs", "waited obs", "waited obs");
        assertThat(rec.waits).allSatisfy(w -> assertThat(w).isBetween(0L, WAIT.toMillis()));

        // the delayed job is claimed once due: its wait would include the delay, so none is reported
        await().atMost(WAIT).until(() -> !q.claim(1, Duration.ofMinutes(1)).isEmpty());
        assertThat(rec.calls("waited")).hasSize(3);

        // the three 50 ms leases run out: a reap returns them, and their second claims report no wait
        await().atMost(WAIT).until(() -> q.reap(100).returned() > 0 || !rec.calls("reaped").isEmpty());
        await().atMost(WAIT).until(() -> {
            q.reap(100);
            return rec.calls("reaped").stream().mapToLong(c -> Long.parseLong(c.split(" ")[2])).sum() == 3;
        });
        assertThat(rec.calls("reaped")).allSatisfy(c -> assertThat(c).startsWith("reaped obs ").endsWith(" 0"));
        assertThat(q.claim(3, Duration.ofMinutes(1))).hasSize(3);
        assertThat(rec.calls("waited")).hasSize(3);
        assertThat(q.reap(100)).isEqualTo(new ReapResult(0, 0));
        assertThat(rec.calls("reaped")).as("a reap that moved nothing is not reported")
                .allSatisfy(c -> assertThat(c).doesNotEndWith(" 0 0"));
    }

    @Test
    void aWorkersSettledAttemptsAreReportedByOutcome() {
        RecordingInstrumentation rec = new RecordingInstrumentation();
        QueueClient c = client(b -> b.instrumentation(rec));
        Queue q = c.queue("work");
        EnqueueOptions fast = EnqueueOptions.defaults().withBackoff(Duration.ofMillis(10), Duration.ofMillis(10));
        q.enqueueAll(List.of(JobRequest.of("ok"),
                new JobRequest("fail".getBytes(StandardCharsets.UTF_8), fast.withMaxAttempts(1)),
                new JobRequest("retry".getBytes(StandardCharsets.UTF_8), fast.withMaxAttempts(2))));
        try (Worker w = c.worker("work", job -> {
            String p = job.payloadUtf8();
            if (p.equals("fail") || (p.equals("retry") && job.attempt() == 1)) {
                throw new IllegalStateException("planned failure of " + p);
            }
        }).logFailures(false).start()) {
            await().atMost(WAIT).until(() -> rec.calls("settled").size() == 4);
        }
        assertThat(rec.calls("settled")).containsExactlyInAnyOrder("settled work COMPLETED", "settled work DEAD",
                "settled work RETRYING", "settled work COMPLETED");
        assertThat(rec.settleNanos).allSatisfy(n -> assertThat(n).isPositive());
        assertThat(rec.calls("waited")).as("three first attempts; the retry's second is not one").hasSize(3);
    }

    @Test
    void anInstrumentationThatAlwaysThrowsBreaksNoJob() {
        RecordingInstrumentation rec = new RecordingInstrumentation(true);
        QueueClient c = client(b -> b.instrumentation(rec));
        Queue q = c.queue("safe");
        List<EnqueueResult> ids = q.enqueueAll(List.of(JobRequest.of("1"), JobRequest.of("2"), JobRequest.of("3")));
        assertThat(ids).hasSize(3).allSatisfy(r -> assertThat(r.created()).isTrue());
        Set<String> done = ConcurrentHashMap.newKeySet();
        try (Worker w = c.worker("safe", job -> done.add(job.id())).start()) {
            await().atMost(WAIT).until(() -> q.stats().completed() == 3);
            assertThat(w.isRunning()).isTrue();
        }
        assertThat(done).hasSize(3);
        assertThat(rec.calls("settled")).hasSize(3);
        assertThat(rec.calls("enqueued")).containsExactly("enqueued safe 3");
    }

    @Test
    void aShardedQueueReportsItsOwnNameNeverAPartitions() {
        RecordingInstrumentation rec = new RecordingInstrumentation();
        ShardedQueue s = client(b -> b.instrumentation(rec)).shardedQueue("sq", 3);
        s.enqueueAll(List.of(JobRequest.of("a"), JobRequest.of("b"), JobRequest.of("c"), JobRequest.of("d")));
        assertThat(rec.calls("enqueued")).isNotEmpty()
                .allSatisfy(call -> assertThat(call).startsWith("enqueued sq "));
        assertThat(rec.calls("enqueued").stream().mapToInt(call -> Integer.parseInt(call.split(" ")[2])).sum())
                .isEqualTo(4);
        assertThat(s.claim(4, Duration.ofMinutes(1))).hasSize(4);
        assertThat(rec.calls("waited")).hasSize(4).allSatisfy(call -> assertThat(call).isEqualTo("waited sq"));
    }
}
