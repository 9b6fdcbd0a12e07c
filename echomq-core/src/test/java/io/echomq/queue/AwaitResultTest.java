package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Job results and {@code awaitResult}: a result stored by the handler travels with the completed
 * job and its event; a waiter started before the end is woken by it, one started after reads it
 * from the hash or, once the hash is gone, from the stream; dead, cancelled, missing and timed out
 * each have their answer; a result over the limit is refused.
 */
@Timeout(60)
class AwaitResultTest extends QueueTestBase {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration LONG = Duration.ofSeconds(10);

    private CompletableFuture<JobResult> waitFor(QueueOperations q, String id, Duration timeout) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return q.awaitResult(id, timeout);
            } catch (InterruptedException e) {
                throw new CompletionException(e);
            }
        });
    }

    @Test
    void aWaiterStartedBeforeTheEndIsWokenWithTheResult() throws Exception {
        Queue kept = client(b -> b.retainCompleted(Duration.ofHours(1))).queue("q");   // keeps the completed hash
        String id = kept.enqueue("six times seven");
        CompletableFuture<JobResult> waiting = waitFor(client.queue("q"), id, LONG);
        Job job = kept.claim(LEASE).orElseThrow();
        assertThat(job.result("42".getBytes(StandardCharsets.UTF_8))).isTrue();
        assertThat(job.complete()).isEqualTo(SettleOutcome.COMPLETED);
        JobResult r = waiting.get();
        assertThat(r.outcome()).isEqualTo(JobResult.Outcome.COMPLETED);
        assertThat(r.resultText()).isEqualTo("42");
        assertThat(field(id, "result")).as("kept with the completed job").isEqualTo("42");
        assertThat(queue.awaitResult(id, Duration.ZERO).resultText()).as("read from the kept hash").isEqualTo("42");
    }

    @Test
    void aJobDeletedAtCompletionIsAnsweredFromItsCompletedEvent() throws Exception {
        QueueClient noRetention = client;   // the default: a completed job keeps no hash
        Queue q = noRetention.queue("q");
        try (Worker worker = noRetention.worker("q", job -> job.result(("done " + job.id()).getBytes(StandardCharsets.UTF_8)))
                .lease(LEASE).start()) {
            String id = q.enqueue("x");
            JobResult r = q.awaitResult(id, LONG);
            assertThat(r.outcome()).isEqualTo(JobResult.Outcome.COMPLETED);
            assertThat(r.resultText()).isEqualTo("done " + id);
            assertThat(raw().call("EXISTS", "emq:{q}:job:" + id)).as("the hash is gone").isEqualTo(0L);
            assertThat(q.awaitResult(id, Duration.ZERO).resultText()).as("after the end too").isEqualTo("done " + id);
        }
        String plain = q.enqueue("no result");
        q.claim(LEASE).orElseThrow().complete();
        JobResult none = q.awaitResult(plain, Duration.ZERO);
        assertThat(none.outcome()).isEqualTo(JobResult.Outcome.COMPLETED);
        assertThat(none.result()).isNull();
    }

    @Test
    void deadCancelledMissingAndTimedOutEachHaveTheirAnswer() throws Exception {
        String doomed = queue.enqueue("x", EnqueueOptions.defaults().withMaxAttempts(1)).id();
        CompletableFuture<JobResult> waiting = waitFor(queue, doomed, LONG);
        queue.claim(LEASE).orElseThrow().fail("boom");
        assertThat(waiting.get()).extracting(JobResult::outcome, JobResult::reason)
                .containsExactly(JobResult.Outcome.DEAD, "failed on attempt 1 of 1");

        String cancelled = queue.enqueue("y");
        queue.cancel(cancelled);
        assertThat(queue.awaitResult(cancelled, Duration.ZERO).outcome()).isEqualTo(JobResult.Outcome.CANCELLED);
        assertThat(queue.awaitResult("999", Duration.ZERO).outcome()).isEqualTo(JobResult.Outcome.NOT_FOUND);

        String waitingJob = queue.enqueue("z");
        long start = System.nanoTime();
        JobResult r = queue.awaitResult(waitingJob, Duration.ofMillis(300));
        assertThat(r.outcome()).isEqualTo(JobResult.Outcome.TIMED_OUT);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    }

    @Test
    void aResultOverTheLimitIsRefusedAndEventsOffRefuseTheWait() {
        String id = queue.enqueue("x");
        Job job = queue.claim(LEASE).orElseThrow();
        assertThat(job.result(new byte[JobResult.MAX_BYTES])).isTrue();
        assertThatThrownBy(() -> job.result(new byte[JobResult.MAX_BYTES + 1]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("16384 bytes");
        assertThatThrownBy(() -> job.result(null)).isInstanceOf(IllegalArgumentException.class);
        job.complete();
        assertThat(job.result(new byte[1])).as("a settled attempt stores nothing").isFalse();

        QueueEventSettings.off().store(client, "q");
        assertThatThrownBy(() -> queue.awaitResult(id, Duration.ZERO))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("writes no events");
        assertThatThrownBy(() -> queue.awaitResult(id, Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aShardedQueueWaitsOnThePartitionItsIdNames() throws Exception {
        ShardedQueue sharded = client.shardedQueue("s", 2);
        String id = sharded.enqueue("x");
        Job job = sharded.claim(LEASE).orElseThrow();
        job.result("ok".getBytes(StandardCharsets.UTF_8));
        job.complete();
        assertThat(sharded.awaitResult(id, LONG).resultText()).isEqualTo("ok");
        assertThatThrownBy(() -> sharded.awaitResult("7", LONG)).isInstanceOf(IllegalArgumentException.class);
    }
}
