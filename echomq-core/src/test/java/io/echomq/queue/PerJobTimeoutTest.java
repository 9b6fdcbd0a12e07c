package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The timeout stored with a job ({@link EnqueueOptions#withTimeout}) and the queue's default
 * ({@link QueueOperations#setDefaultTimeout}): carried by the claim's reply, enforced by a worker
 * as its own timeout is, job over queue over worker.
 */
@Timeout(90)
class PerJobTimeoutTest extends QueueTestBase {
    /** These tests read completed (or cancelled) jobs' hashes: the test client keeps them for an hour. */
    @Override
    Duration retainCompleted() {
        return Duration.ofHours(1);
    }

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final EnqueueOptions FAST_RETRY =
            EnqueueOptions.defaults().withBackoff(Duration.ofMillis(10), Duration.ofMillis(10));

    private Worker.Builder worker(JobHandler handler) {
        return client.worker("q", handler).maintenanceInterval(Duration.ofMillis(50)).idlePoll(Duration.ofMillis(50))
                .shutdownGrace(Duration.ofSeconds(2));
    }

    @Test
    void aJobsOwnTimeoutEndsItOnAWorkerWithoutOneAndTheJobIsRetriedThenDead() {
        RecordingListener events = new RecordingListener();
        String id = queue.enqueue("hangs", FAST_RETRY.withMaxAttempts(2).withTimeout(Duration.ofMillis(150))).id();
        String plain = queue.enqueue("plain");
        assertThat(field(id, "timeout_ms")).isEqualTo("150");
        assertThat(field(plain, "timeout_ms")).as("no bytes for a job without a timeout").isNull();
        try (Worker w = worker(job -> {
            if (job.payloadUtf8().equals("hangs")) {
                Thread.sleep(WAIT.toMillis());
            }
        }).concurrency(2).lease(Duration.ofSeconds(5)).listener(events).start()) {
            await().atMost(WAIT).until(() -> events.settled(id).size() == 2 && events.settled(plain).size() == 1);
            assertThat(events.outcomes(id)).containsExactly(SettleOutcome.RETRYING, SettleOutcome.DEAD);
            assertThat(events.settled(id)).allSatisfy(s -> {
                assertThat(s.job().timeout()).contains(Duration.ofMillis(150));
                assertThat(s.job().timedOut()).isTrue();
                assertThat(s.error()).isInstanceOf(JobTimeoutException.class);
                assertThat(((JobTimeoutException) s.error()).timeout()).isEqualTo(Duration.ofMillis(150));
            });
            assertThat(events.outcomes(plain)).containsExactly(SettleOutcome.COMPLETED);
            assertThat(events.settled(plain).get(0).job().timeout()).isEmpty();
            assertThat(queue.inspect(id).orElseThrow().lastError().orElseThrow())
                    .startsWith(JobTimeoutException.class.getName() + ": TIMEOUT: job " + id + " attempt 2 ran past "
                            + "its timeout of 150 ms");
            assertThat(w.counts().retrying()).isEqualTo(1);
            assertThat(w.counts().dead()).isEqualTo(1);
        }
    }

    /** Worker 50 ms, queue 100 ms, one job 5 s: the job's own wins, then the queue's, then the worker's. */
    @Test
    void theJobsTimeoutBeatsTheQueueDefaultWhichBeatsTheWorkers() {
        queue.setDefaultTimeout(Duration.ofMillis(100));
        assertThat(queue.defaultTimeout()).contains(Duration.ofMillis(100));
        RecordingListener events = new RecordingListener();
        EnqueueOptions once = EnqueueOptions.defaults().withMaxAttempts(1);
        String byQueue = queue.enqueue("sleep 5000", once).id();
        String byJob = queue.enqueue("sleep 250", once.withTimeout(Duration.ofSeconds(5))).id();
        try (Worker w = worker(job -> Thread.sleep(Long.parseLong(job.payloadUtf8().substring(6))))
                .concurrency(2).timeout(Duration.ofMillis(50)).listener(events).start()) {
            await().atMost(WAIT).until(() -> events.settled().size() == 2);
            assertThat(events.outcomes(byQueue)).containsExactly(SettleOutcome.DEAD);
            assertThat(((JobTimeoutException) events.settled(byQueue).get(0).error()).timeout())
                    .as("the queue's default, not the worker's 50 ms").isEqualTo(Duration.ofMillis(100));
            assertThat(events.outcomes(byJob)).as("its own 5 s, not the queue's 100 ms nor the worker's 50 ms")
                    .containsExactly(SettleOutcome.COMPLETED);

            assertThat(queue.clearDefaultTimeout()).isTrue();
            assertThat(queue.clearDefaultTimeout()).isFalse();
            assertThat(queue.defaultTimeout()).isEmpty();
            String byWorker = queue.enqueue("sleep 5000", once).id();
            await().atMost(WAIT).until(() -> events.settled(byWorker).size() == 1);
            assertThat(((JobTimeoutException) events.settled(byWorker).get(0).error()).timeout())
                    .as("no default left: the worker's").isEqualTo(Duration.ofMillis(50));
        }
    }

    @Test
    void theClaimCarriesTheJobsTimeoutElseTheQueuesToAHandClaimerToo() {
        String own = queue.enqueue("own", EnqueueOptions.defaults().withTimeout(Duration.ofMillis(300))).id();
        String none = queue.enqueue("none");
        List<Job> first = queue.claim(2, Duration.ofSeconds(5));
        assertThat(first).extracting(Job::id).containsExactly(own, none);
        assertThat(first.get(0).timeout()).contains(Duration.ofMillis(300));
        assertThat(first.get(1).timeout()).isEmpty();

        queue.setDefaultTimeout(Duration.ofMillis(700));
        queue.enqueue("own", EnqueueOptions.defaults().withTimeout(Duration.ofMillis(300)));
        queue.enqueue("none");
        List<Job> second = queue.claim(2, Duration.ofSeconds(5));
        assertThat(second.get(0).timeout()).contains(Duration.ofMillis(300));
        assertThat(second.get(1).timeout()).contains(Duration.ofMillis(700));

        // a default that is no integer in 1..86400000 ms is ignored by the claim and by the read
        raw().call("HSET", "emq:{q}:settings", "timeout_ms", "abc");
        assertThat(queue.defaultTimeout()).isEmpty();
        queue.enqueue("none");
        assertThat(queue.claim(Duration.ofSeconds(5)).orElseThrow().timeout()).isEmpty();
    }

    @Test
    void aShardedQueueStoresItsDefaultInEveryPartition() {
        ShardedQueue sq = client.shardedQueue("s", 3);
        sq.setDefaultTimeout(Duration.ofMillis(250));
        assertThat(sq.defaultTimeout()).contains(Duration.ofMillis(250));
        for (int i = 0; i < 3; i++) {
            assertThat(raw().call("HGET", "emq:{s#" + i + "}:settings", "timeout_ms")).hasToString("250");
        }
        for (int i = 0; i < 3; i++) {
            sq.enqueue("j" + i);
        }
        assertThat(sq.claim(3, Duration.ofSeconds(5))).hasSize(3)
                .allSatisfy(j -> assertThat(j.timeout()).contains(Duration.ofMillis(250)));
        assertThat(sq.clearDefaultTimeout()).isTrue();
        assertThat(sq.defaultTimeout()).isEmpty();
        assertThat((List<?>) raw().call("KEYS", "emq:{s#*}:settings")).isEmpty();
    }

    @Test
    void aForeignJobWithAMalformedTimeoutGoesToDeadWithItsReason() {
        raw().call("HSET", "emq:{q}:job:1", "payload", "x", "timeout_ms", "0");
        raw().call("RPUSH", "emq:{q}:wait", "1");
        raw().call("HSET", "emq:{q}:job:2", "payload", "x", "timeout_ms", "86400001");
        raw().call("RPUSH", "emq:{q}:wait", "2");
        raw().call("HSET", "emq:{q}:job:3", "payload", "x", "timeout_ms", "86400000");
        raw().call("RPUSH", "emq:{q}:wait", "3");
        List<Job> jobs = queue.claim(3, Duration.ofSeconds(5));
        assertThat(jobs).extracting(Job::id).containsExactly("3");
        assertThat(jobs.get(0).timeout()).contains(Duration.ofDays(1));
        assertThat(field("1", "dead_reason")).isEqualTo("timeout_ms is not an integer in 1..86400000: 0");
        assertThat(field("2", "dead_reason")).isEqualTo("timeout_ms is not an integer in 1..86400000: 86400001");
    }

    @Test
    void perJobTimeoutAgainstCompletionEndsEachJobOnceCompletedOrTimedOutNeverBoth() {
        int rounds = 60;
        RecordingListener events = new RecordingListener();
        List<String> ids = new ArrayList<>();
        EnqueueOptions racing = EnqueueOptions.defaults().withMaxAttempts(1).withTimeout(Duration.ofMillis(40));
        for (int i = 0; i < rounds; i++) {
            ids.add(queue.enqueue("r" + i, racing).id());
        }
        // each handler returns normally close to its job's timeout, on either side of it; the worker has none
        try (Worker w = worker(job -> {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextLong(30, 51));
            while (System.nanoTime() - end < 0) {
                LockSupport.parkNanos(end - System.nanoTime());
            }
        }).concurrency(4).listener(events).start()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> events.settled().size() >= rounds && w.isIdle());
            int completed = 0;
            for (String id : ids) {
                List<RecordingListener.Settled> s = events.settled(id);
                assertThat(s).as("job %s settled once", id).hasSize(1);
                if (s.get(0).outcome() == SettleOutcome.COMPLETED) {
                    completed++;
                    assertThat(stateOf(id)).isEqualTo("done");
                    assertThat(field(id, "last_error")).isNull();
                } else {
                    assertThat(s.get(0).outcome()).isEqualTo(SettleOutcome.DEAD);
                    assertThat(s.get(0).error()).isInstanceOf(JobTimeoutException.class);
                    assertThat(stateOf(id)).isEqualTo("dead");
                    assertThat(field(id, "last_error")).contains("TIMEOUT");
                }
            }
            assertThat(events.settled()).hasSize(rounds);
            QueueStats stats = queue.stats();
            assertThat(stats.completed()).isEqualTo(completed);
            assertThat(stats.dead()).isEqualTo(rounds - completed);
            assertThat(stats.pending() + stats.active() + stats.delayed()).isZero();
            assertThat(w.counts().completed()).isEqualTo(completed);
            assertThat(w.counts().dead()).isEqualTo(rounds - completed);
            System.out.printf("per-job timeout race: %d completed, %d timed out of %d%n", completed,
                    rounds - completed, rounds);
        }
    }

    @Test
    void badTimeoutsAreRefusedBeforeRedisIsTouched() {
        EnqueueOptions o = EnqueueOptions.defaults();
        ShardedQueue sq = client.shardedQueue("s", 2);
        raw().call("FLUSHALL");   // the sharded queue's mark was written when it was opened
        Map<Duration, String> bad = Map.of(
                Duration.ZERO, "must be positive, was PT0S",
                Duration.ofMillis(-5), "must be positive, was PT-0.005S",
                Duration.ofNanos(500), "must be at least 1 ms",
                Duration.ofDays(1).plusMillis(1), "is above the maximum of PT24H");
        bad.forEach((timeout, message) -> {
            assertThatThrownBy(() -> o.withTimeout(timeout)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("timeout").hasMessageContaining(message);
            assertThatThrownBy(() -> queue.setDefaultTimeout(timeout)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("default timeout").hasMessageContaining(message);
            assertThatThrownBy(() -> sq.setDefaultTimeout(timeout)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(message);
        });
        assertThatThrownBy(() -> o.withTimeout(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timeout must not be null");
        assertThatThrownBy(() -> queue.setDefaultTimeout(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("default timeout must not be null");
        assertThat(o.withTimeout(Duration.ofDays(1)).timeout()).contains(Duration.ofDays(1));
        assertThat(o.timeout()).isEmpty();
        assertThat(raw().call("DBSIZE")).isEqualTo(0L);
    }
}
