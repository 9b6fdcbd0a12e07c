package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.internal.Scripts;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Cancel: pending and delayed jobs leave their set; a running attempt ends and its holder is told. */
@Timeout(60)
class CancelTest extends QueueTestBase {
    /** These tests read completed (or cancelled) jobs' hashes: the test client keeps them for an hour. */
    @Override
    Duration retainCompleted() {
        return Duration.ofHours(1);
    }

    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void aPendingJobOfEachLayoutAndADelayedJobAreCancelled() {
        String wait = queue.enqueue("priority 0, in the wait list");
        String zset = queue.enqueue("priority 5", EnqueueOptions.defaults().withPriority(5)).id();
        String delayed = queue.enqueue("later", EnqueueOptions.defaults().withDelay(Duration.ofHours(1))).id();
        String kept = queue.enqueue("kept");

        for (String id : new String[] {wait, zset, delayed}) {
            assertThat(queue.cancel(id)).as(id).isEqualTo(CancelOutcome.CANCELLED);
            assertThat(stateOf(id)).isEqualTo("cancelled");
            assertThat(field(id, "finished_at")).isNotNull();
            assertThat(field(id, "cancel")).as("only a running attempt is marked").isNull();
            assertThat(queue.cancel(id)).isEqualTo(CancelOutcome.ALREADY_FINISHED);
        }
        assertThat(queue.stats()).extracting(QueueStats::pending, QueueStats::delayed, QueueStats::active)
                .containsExactly(1L, 0L, 0L);
        assertThat(raw().call("LRANGE", "emq:{q}:wait", "0", "-1").toString()).doesNotContain("[" + wait);
        assertThat(queue.claim(10, LEASE)).extracting(Job::id).containsExactly(kept);
        assertThat((Long) raw().call("PTTL", "emq:{q}:job:" + wait)).as("kept for the retention").isPositive();
    }

    @Test
    void byDefaultAPendingJobsHashGoesAtTheCancelAndARunningOnesStaysUntilItsLeaseWouldHaveEnded() throws Exception {
        Queue q = client(b -> { }).queue("q");   // the client's defaults: no completed-job retention
        String pending = q.enqueue("never runs");
        assertThat(q.cancel(pending)).isEqualTo(CancelOutcome.CANCELLED);
        assertThat(raw().call("EXISTS", "emq:{q}:job:" + pending)).as("deleted at the cancel").isEqualTo(0L);
        assertThat(q.awaitResult(pending, Duration.ZERO).outcome()).as("answered from its cancelled event")
                .isEqualTo(JobResult.Outcome.CANCELLED);

        String running = q.enqueue("runs");
        Job job = q.claim(LEASE).orElseThrow();
        assertThat(q.cancel(running)).isEqualTo(CancelOutcome.SIGNALLED);
        assertThat(stateOf(running)).as("kept for its holder's late calls").isEqualTo("cancelled");
        assertThat((Long) raw().call("PTTL", "emq:{q}:job:" + running)).isBetween(1L, LEASE.toMillis());
        assertThat(job.complete()).as("the holder still hears CANCELLED").isEqualTo(SettleOutcome.CANCELLED);
    }

    @Test
    void unknownAndFinishedJobsAreAnsweredWithoutChange() {
        assertThat(queue.cancel("404")).isEqualTo(CancelOutcome.NOT_FOUND);
        String id = queue.enqueue("x");
        queue.claim(LEASE).orElseThrow().complete();
        assertThat(queue.cancel(id)).isEqualTo(CancelOutcome.ALREADY_FINISHED);
        assertThat(stateOf(id)).isEqualTo("done");
    }

    @Test
    void aRunningAttemptIsEndedAndEveryLaterCallOfItIsRefusedAsCancelled() {
        String id = queue.enqueue("x");
        Job job = queue.claim(LEASE).orElseThrow();

        assertThat(queue.cancel(id)).isEqualTo(CancelOutcome.SIGNALLED);

        assertThat(stateOf(id)).isEqualTo("cancelled");
        assertThat(field(id, "cancel")).as("the attempt it was aimed at").isEqualTo("1");
        assertThat(raw().call("EXISTS", "emq:{q}:job:" + id + ":lock")).isEqualTo(0L);
        assertThat(queue.stats().active()).isZero();
        assertThat(job.progress("50%")).isFalse();
        assertThat(job.cancelled()).isTrue();
        assertThat(job.lossReason()).contains(LeaseLossReason.CANCELLED);
        assertThat(job.complete()).as("a late complete is refused, typed").isEqualTo(SettleOutcome.CANCELLED);
        assertThat(SettleOutcome.CANCELLED.accepted()).isFalse();
        assertThat(queue.stats().completed()).isZero();
        assertThat(stateOf(id)).isEqualTo("cancelled");
        assertThat(queue.cancel(id)).isEqualTo(CancelOutcome.ALREADY_FINISHED);
    }

    @Test
    void lateFailAndReturnOfACancelledAttemptAreRefused() {
        String a = queue.enqueue("a");
        String b = queue.enqueue("b");
        Job ja = queue.claim(LEASE).orElseThrow();
        Job jb = queue.claim(LEASE).orElseThrow();
        queue.cancel(a);
        queue.cancel(b);
        assertThat(ja.fail("boom")).isEqualTo(SettleOutcome.CANCELLED);
        assertThat(jb.returnLease()).isEqualTo(SettleOutcome.CANCELLED);
        assertThat(queue.stats()).extracting(QueueStats::failed, QueueStats::pending, QueueStats::delayed)
                .containsExactly(0L, 0L, 0L);
    }

    @Test
    void aWorkerAsksTheHandlerToStopOnTheCancelMessageWithoutInterruptingItAndSettlesItCancelled() throws Exception {
        RecordingListener events = new RecordingListener();
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicReference<Boolean> sawCancelled = new AtomicReference<>();
        String id = queue.enqueue("long");
        // a 30 s lease renews every 10 s: a cancel seen within 5 s came by the message
        try (Worker w = client.worker("q", job -> {
            started.countDown();
            try {
                job.stopSignal().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                sawCancelled.set(job.cancelled() && job.stopRequested());
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        }).concurrency(1).lease(LEASE).listener(events).shutdownGrace(Duration.ofSeconds(2)).start()) {
            assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(queue.cancel(id)).isEqualTo(CancelOutcome.SIGNALLED);

            await().atMost(Duration.ofSeconds(5)).until(() -> events.settled(id).size() == 1);
            assertThat(interrupted).as("a cancel does not interrupt by default").isFalse();
            assertThat(sawCancelled.get()).isTrue();
            assertThat(events.outcomes(id)).containsExactly(SettleOutcome.CANCELLED);
            assertThat(events.lost()).extracting(RecordingListener.Lost::reason)
                    .containsExactly(LeaseLossReason.CANCELLED);
            assertThat(stateOf(id)).isEqualTo("cancelled");
            assertThat(queue.stats().completed()).isZero();
        }
    }

    @Test
    void aWorkerThatMissedTheMessageLearnsAtItsNextRenewal() throws Exception {
        RecordingListener events = new RecordingListener();
        CountDownLatch started = new CountDownLatch(1);
        String id = queue.enqueue("long");
        try (Worker w = client.worker("q", job -> {
            started.countDown();
            job.stopSignal().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }).concurrency(1).lease(Duration.ofMillis(900)).listener(events).shutdownGrace(Duration.ofSeconds(2)).start()) {
            assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            // the same script, publishing on a channel nobody listens to: only a renewal can tell the worker
            Object code = raw().call("EVAL", Scripts.CANCEL.body(), "7", "emq:{q}:pending", "emq:{q}:active",
                    "emq:{q}:due", "emq:{q}:dead", "emq:{q}:wait", "emq:{q}:nobody", "emq:{q}:cancelled", "emq:{q}:", id,
                    "3600000", "");
            assertThat(code).isEqualTo(2L);

            await().atMost(WAIT).until(() -> events.settled(id).size() == 1);
            assertThat(events.outcomes(id)).containsExactly(SettleOutcome.CANCELLED);
            assertThat(events.settled(id).get(0).job().cancelled()).isTrue();
        }
    }

    @Test
    void aCancelAimedAtAttemptOneDoesNotTouchAttemptTwo() throws Exception {
        String id = queue.enqueue("x");
        Job first = queue.claim(Queue.MIN_LEASE).orElseThrow();
        await().atMost(WAIT).until(() -> queue.stats().overdue() == 1);
        assertThat(queue.reap(10).returned()).isEqualTo(1);

        RecordingListener events = new RecordingListener();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Worker w = client.worker("q", job -> {
            started.countDown();
            assertThat(release.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        }).concurrency(1).lease(LEASE).listener(events).shutdownGrace(Duration.ofSeconds(2)).start()) {
            assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(field(id, "attempts")).isEqualTo("2");
            // a cancel message for attempt 1, late: the worker renews attempt 2 at once (its own
            // schedule is 10 s away), which the server extends; the message's text is not trusted
            await().atMost(WAIT).until(() -> leaseLeft(id) < 29_000);
            // as the client publishes: SPUBLISH on a cluster whose servers have it (the workers
            // then listen with SSUBSCRIBE, which a plain PUBLISH never reaches), else PUBLISH
            boolean sharded = io.echomq.testkit.RedisExtension.clusterMode()
                    && io.echomq.Capabilities.knows(REDIS.server(), "spublish");
            raw().call(sharded ? "SPUBLISH" : "PUBLISH", "emq:{q}:cancel", id + " 1");
            await().atMost(Duration.ofSeconds(5)).until(() -> leaseLeft(id) > 29_500);
            assertThat(first.extend(LEASE)).isFalse();
            assertThat(first.lossReason()).as("the old attempt is superseded, not cancelled")
                    .contains(LeaseLossReason.SUPERSEDED);
            release.countDown();

            await().atMost(WAIT).until(() -> events.settled(id).size() == 1);
            assertThat(events.outcomes(id)).containsExactly(SettleOutcome.COMPLETED);
            assertThat(events.settled(id).get(0).job().cancelled()).isFalse();
            assertThat(stateOf(id)).isEqualTo("done");
        }
    }

    @Test
    void cancelAgainstCompleteEndsInExactlyOneConsistentState() throws Exception {
        int cancelWon = 0;
        int rounds = 60;
        for (int round = 0; round < rounds; round++) {
            REDIS.flushAll();
            String id = queue.enqueue("r" + round);
            Job job = queue.claim(LEASE).orElseThrow();
            CountDownLatch go = new CountDownLatch(1);
            CompletableFuture<CancelOutcome> cancel = CompletableFuture.supplyAsync(() -> {
                awaitLatch(go);
                return queue.cancel(id);
            });
            CompletableFuture<SettleOutcome> complete = CompletableFuture.supplyAsync(() -> {
                awaitLatch(go);
                return job.complete();
            });
            go.countDown();
            CancelOutcome c = cancel.get(10, TimeUnit.SECONDS);
            SettleOutcome s = complete.get(10, TimeUnit.SECONDS);
            QueueStats stats = queue.stats();
            assertThat(stats.active()).isZero();
            assertThat(raw().call("EXISTS", "emq:{q}:job:" + id + ":lock")).isEqualTo(0L);
            if (c == CancelOutcome.SIGNALLED) {
                cancelWon++;
                assertThat(s).isEqualTo(SettleOutcome.CANCELLED);
                assertThat(stateOf(id)).isEqualTo("cancelled");
                assertThat(stats.completed()).isZero();
            } else {
                assertThat(c).isEqualTo(CancelOutcome.ALREADY_FINISHED);
                assertThat(s).isEqualTo(SettleOutcome.COMPLETED);
                assertThat(stateOf(id)).isEqualTo("done");
                assertThat(stats.completed()).isEqualTo(1);
            }
        }
        assertThat(cancelWon).isBetween(0, rounds);
    }

    @Test
    void cancelAgainstReapEndsInExactlyOneConsistentState() throws Exception {
        int rounds = 40;
        for (int round = 0; round < rounds; round++) {
            REDIS.flushAll();
            String id = queue.enqueue("r" + round);
            queue.claim(Queue.MIN_LEASE).orElseThrow();
            await().atMost(WAIT).until(() -> queue.stats().overdue() == 1);
            CountDownLatch go = new CountDownLatch(1);
            CompletableFuture<CancelOutcome> cancel = CompletableFuture.supplyAsync(() -> {
                awaitLatch(go);
                return queue.cancel(id);
            });
            CompletableFuture<ReapResult> reap = CompletableFuture.supplyAsync(() -> {
                awaitLatch(go);
                return queue.reap(10);
            });
            go.countDown();
            CancelOutcome c = cancel.get(10, TimeUnit.SECONDS);
            ReapResult r = reap.get(10, TimeUnit.SECONDS);
            if (c == CancelOutcome.SIGNALLED) {
                assertThat(r.returned()).as("cancel first: nothing left to reap").isZero();
            } else {
                assertThat(c).as("reap first: the job was pending again").isEqualTo(CancelOutcome.CANCELLED);
                assertThat(r.returned()).isEqualTo(1);
            }
            assertThat(stateOf(id)).isEqualTo("cancelled");
            QueueStats s = queue.stats();
            assertThat(s.pending() + s.active() + s.delayed() + s.dead()).as("in no set").isZero();
        }
    }

    @Test
    void aShardedQueueCancelsOnThePartitionTheIdNames() {
        ShardedQueue sq = client.shardedQueue("s", 3);
        String id = sq.enqueue("x");
        assertThat(sq.cancel(id)).isEqualTo(CancelOutcome.CANCELLED);
        assertThat(sq.cancel(id)).isEqualTo(CancelOutcome.ALREADY_FINISHED);
        assertThat(sq.stats().pending()).isZero();
        assertThatThrownBy(() -> sq.cancel("7")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void badIdsAreRefusedBeforeRedis() {
        assertThatThrownBy(() -> queue.cancel(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> queue.cancel("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> queue.cancel("7:lock")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> queue.cancel("x".repeat(1025))).isInstanceOf(IllegalArgumentException.class);
        assertThat(raw().call("DBSIZE")).isEqualTo(0L);
    }

    private static void awaitLatch(CountDownLatch go) {
        try {
            assertThat(go.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** ms from the server's now to the job's lease deadline in active (the LIST layout's only lease record). */
    private long leaseLeft(String id) {
        Object score = raw().call("ZSCORE", "emq:{q}:active", id);
        List<?> t = (List<?>) raw().call("TIME");
        long now = Long.parseLong(t.get(0).toString()) * 1000 + Long.parseLong(t.get(1).toString()) / 1000;
        return score == null ? -1 : (long) Double.parseDouble(score.toString()) - now;
    }
}
