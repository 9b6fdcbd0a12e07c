package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Pause and resume: claims stop for every client, completes and running jobs go on, resume wakes workers. */
@Timeout(60)
class PauseTest extends QueueTestBase {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void pauseStopsClaimsWhileTheHeldJobStillCompletes() {
        queue.enqueue("a");
        queue.enqueue("b");
        queue.enqueue("c", EnqueueOptions.defaults().withPriority(5));
        Job held = queue.claim(LEASE).orElseThrow();

        assertThat(queue.isPaused()).isFalse();
        assertThat(queue.pause()).as("the call paused it").isTrue();
        assertThat(queue.pause()).as("already paused").isFalse();
        assertThat(queue.isPaused()).isTrue();
        assertThat(client.queue("q").isPaused()).as("seen through any handle").isTrue();
        assertThat(raw().call("EXISTS", "emq:{q}:paused")).isEqualTo(1L);

        assertThat(queue.claim(LEASE)).as("no claim while paused").isEmpty();
        assertThat(queue.claim(10, LEASE)).isEmpty();
        assertThat(held.complete()).as("the running job completes").isEqualTo(SettleOutcome.COMPLETED);
        QueueStats s = queue.stats();
        assertThat(s.paused()).isTrue();
        assertThat(s.pending()).isEqualTo(2);
        assertThat(s.completed()).isEqualTo(1);

        assertThat(queue.resume()).isTrue();
        assertThat(queue.resume()).as("not paused any more").isFalse();
        assertThat(queue.isPaused()).isFalse();
        assertThat(queue.stats().paused()).isFalse();
        assertThat(queue.claim(10, LEASE)).hasSize(2);
    }

    @Test
    void aPausedClaimStillCompletesItsJobsButClaimsNone() {
        queue.enqueue("a");
        queue.enqueue("b");
        Job held = queue.claim(LEASE).orElseThrow();
        queue.pause();

        Optional<Job> next = held.completeAndClaimNext(LEASE);

        assertThat(next).isEmpty();
        assertThat(held.outcome()).contains(SettleOutcome.COMPLETED);
        assertThat(queue.stats()).extracting(QueueStats::completed, QueueStats::pending, QueueStats::active)
                .containsExactly(1L, 1L, 0L);
    }

    @Test
    void aPausedClaimPromotesNothingAndAnswersPaused() {
        queue.enqueue("later", EnqueueOptions.defaults().withDelay(Duration.ofMillis(1)));
        await().atMost(WAIT).until(() -> {
            Object due = raw().call("ZRANGEBYSCORE", "emq:{q}:due", "-inf", String.valueOf(serverMillis()));
            return !((List<?>) due).isEmpty();
        });
        queue.pause();

        Claimed<Job> c = queue.partition().claimAsync(5, LEASE.toMillis()).join();

        assertThat(c.paused()).isTrue();
        assertThat(c.nextDueMs()).isEqualTo(-2);
        assertThat(c.jobs()).isEmpty();
        assertThat(queue.stats()).extracting(QueueStats::delayed, QueueStats::pending).containsExactly(1L, 0L);
        queue.resume();
        assertThat(queue.partition().claimAsync(5, LEASE.toMillis()).join().jobs()).hasSize(1);
    }

    @Test
    void aWorkerStopsClaimingWhilePausedLetsItsJobFinishAndResumesOnTheWakeMessage() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicLong ran = new AtomicLong();
        queue.enqueue("first");
        // an idle poll far beyond the test's waits: only the resume's wake message can restart it in time
        try (Worker w = client.worker("q", job -> {
            ran.incrementAndGet();
            if (job.payloadUtf8().equals("first")) {
                started.countDown();
                assertThat(release.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            }
        }).concurrency(2).idlePoll(Duration.ofSeconds(60)).shutdownGrace(Duration.ofSeconds(2)).start()) {
            assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            queue.pause();
            queue.enqueue("second");   // publishes on wake: the idle handler slot claims, and is refused
            queue.enqueue("third");
            release.countDown();

            await().atMost(WAIT).until(() -> queue.stats().completed() == 1);
            // held for a while, polled: nothing of the two new jobs is claimed while paused
            await().during(Duration.ofMillis(600)).atMost(WAIT).until(() -> {
                QueueStats s = queue.stats();
                return s.pending() == 2 && s.active() == 0 && ran.get() == 1;
            });

            queue.resume();
            await().atMost(Duration.ofSeconds(5)).until(() -> queue.stats().completed() == 3);
            assertThat(ran.get()).isEqualTo(3);
        }
    }

    @Test
    void pauseAgainstClaimEndsEitherWayConsistently() throws Exception {
        int rounds = 60;
        int claimedFirst = 0;
        for (int round = 0; round < rounds; round++) {
            REDIS.flushAll();
            String id = queue.enqueue("r" + round);
            CountDownLatch go = new CountDownLatch(1);
            AtomicLong pausedAt = new AtomicLong();
            CompletableFuture<Boolean> pause = CompletableFuture.supplyAsync(() -> {
                awaitLatch(go);
                boolean changed = queue.pause();
                pausedAt.set(System.nanoTime());
                return changed;
            });
            CompletableFuture<long[]> claim = CompletableFuture.supplyAsync(() -> {
                awaitLatch(go);
                long sentAt = System.nanoTime();
                Optional<Job> j = queue.claim(LEASE);
                return new long[] {sentAt, j.map(Job::attempt).orElse(0L)};
            });
            go.countDown();
            assertThat(pause.get(10, TimeUnit.SECONDS)).isTrue();
            long[] c = claim.get(10, TimeUnit.SECONDS);
            QueueStats s = queue.stats();
            assertThat(s.paused()).isTrue();
            if (c[1] == 1) {
                claimedFirst++;
                assertThat(c[0]).as("a claim sent after the pause answered must find nothing")
                        .isLessThan(pausedAt.get());
                assertThat(s.active()).isEqualTo(1);
                assertThat(s.pending()).isZero();
                assertThat(stateOf(id)).isEqualTo("active");
            } else {
                assertThat(c[1]).isZero();
                assertThat(s.active()).isZero();
                assertThat(s.pending()).isEqualTo(1);
                assertThat(stateOf(id)).isEqualTo("pending");
            }
        }
        // both orders are allowed; the counts only show which ones this machine produced
        assertThat(claimedFirst).isBetween(0, rounds);
    }

    @Test
    void aShardedQueuePausesEveryPartition() {
        ShardedQueue sq = client.shardedQueue("s", 3);
        for (int i = 0; i < 6; i++) {
            sq.enqueue("j" + i);
        }
        assertThat(sq.pause()).isTrue();
        assertThat(sq.pause()).isFalse();
        assertThat(sq.isPaused()).isTrue();
        for (int p = 0; p < 3; p++) {
            assertThat(raw().call("EXISTS", "emq:{s#" + p + "}:paused")).isEqualTo(1L);
        }
        assertThat(sq.stats().paused()).isTrue();
        assertThat(sq.partitionStats()).allMatch(QueueStats::paused);
        assertThat(sq.claim(10, LEASE)).isEmpty();

        assertThat(sq.resume()).isTrue();
        assertThat(sq.isPaused()).isFalse();
        assertThat(sq.claim(10, LEASE)).hasSize(6);
    }

    private long serverMillis() {
        List<?> t = (List<?>) raw().call("TIME");
        return Long.parseLong(text(t.get(0))) * 1000 + Long.parseLong(text(t.get(1))) / 1000;
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b) : o.toString();
    }

    private static void awaitLatch(CountDownLatch go) {
        try {
            assertThat(go.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void badQueueNamesAreRefusedBeforeRedis() {
        assertThatThrownBy(() -> client.queue("bad name")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.queue("a{b}")).isInstanceOf(IllegalArgumentException.class);
        assertThat(raw().call("DBSIZE")).isEqualTo(0L);
    }
}
