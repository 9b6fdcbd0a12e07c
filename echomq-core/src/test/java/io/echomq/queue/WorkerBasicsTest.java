package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The worker runs handlers concurrently, turns their results into settles, and never stops on a bad job. */
@Timeout(60)
class WorkerBasicsTest extends QueueTestBase {
    /** These tests read completed (or cancelled) jobs' hashes: the test client keeps them for an hour. */
    @Override
    Duration retainCompleted() {
        return Duration.ofHours(1);
    }

    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final EnqueueOptions FAST_RETRY =
            EnqueueOptions.defaults().withBackoff(Duration.ofMillis(1), Duration.ofMillis(5));

    private Worker.Builder worker(JobHandler handler) {
        return client.worker("q", handler).shutdownGrace(Duration.ofSeconds(2));
    }

    private String enqueue(String payload, EnqueueOptions options) {
        return queue.enqueue(payload.getBytes(StandardCharsets.UTF_8), options).id();
    }

    @Test
    void runsExactlyConcurrencyHandlersAtOnce() throws Exception {
        int n = 6;
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger maxInFlight = new AtomicInteger();
        CountDownLatch allN = new CountDownLatch(n);
        CountDownLatch gate = new CountDownLatch(1);
        for (int i = 0; i < 3 * n; i++) {
            queue.enqueue("job-" + i);
        }
        try (Worker w = worker(job -> {
            maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            try {
                allN.countDown();
                assertThat(gate.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            } finally {
                inFlight.decrementAndGet();
            }
        }).concurrency(n).start()) {
            // The first n handlers all block until n of them run at the same moment.
            assertThat(allN.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("n handlers at once").isTrue();
            assertThat(w.runningJobs()).isEqualTo(n);
            QueueStats held = queue.stats();
            assertThat(held.active()).isEqualTo(n);
            assertThat(held.pending()).isEqualTo(2L * n);
            assertThat(maxInFlight.get()).isEqualTo(n);

            gate.countDown();
            await().atMost(WAIT).until(() -> queue.stats().completed() == 3L * n);
            assertThat(maxInFlight.get()).as("never more than the concurrency").isEqualTo(n);
            assertThat(queue.stats().drained()).isTrue();
            assertThat(w.counts().completed()).isEqualTo(3L * n);
        }
    }

    @Test
    void handlerExceptionRetriesThenGoesDeadWithItsStackTrace() {
        RecordingListener events = new RecordingListener();
        String id = enqueue("always fails", FAST_RETRY.withMaxAttempts(3));
        try (Worker w = worker(job -> {
            throw new IllegalStateException("boom on attempt " + job.attempt());
        }).concurrency(1).listener(events).start()) {
            await().atMost(WAIT).until(() -> "dead".equals(field(id, "state")));
            await().atMost(WAIT).until(() -> events.settled(id).size() == 3);

            assertThat(events.outcomes(id))
                    .containsExactly(SettleOutcome.RETRYING, SettleOutcome.RETRYING, SettleOutcome.DEAD);
            assertThat(events.settled(id)).extracting(RecordingListener.Settled::attempt).containsExactly(1L, 2L, 3L);
            assertThat(events.settled(id)).allSatisfy(s ->
                    assertThat(s.error()).isInstanceOf(IllegalStateException.class));
            assertThat(field(id, "last_error"))
                    .startsWith("java.lang.IllegalStateException: boom on attempt 3")
                    .contains("\tat io.echomq.queue.WorkerBasicsTest");
            assertThat(field(id, "attempts")).isEqualTo("3");
            assertThat(field(id, "spent")).isEqualTo("3");
            assertThat(field(id, "dead_reason")).isEqualTo("failed on attempt 3 of 3");
            assertThat(queue.dead(10)).extracting(DeadJob::id).containsExactly(id);
            QueueStats s = queue.stats();
            assertThat(s.failed()).isEqualTo(3);
            assertThat(s.completed()).isZero();
            assertThat(s.drained()).isTrue();
            WorkerCounts c = w.counts();
            assertThat(c.retrying()).isEqualTo(2);
            assertThat(c.dead()).isEqualTo(1);
            assertThat(c.ackErrors()).isZero();
        }
    }

    @Test
    void aPoisonJobNeverStopsTheLoop() {
        AtomicInteger poisonCalls = new AtomicInteger();
        List<String> done = java.util.Collections.synchronizedList(new ArrayList<>());
        String poison = enqueue("poison", FAST_RETRY.withMaxAttempts(3));
        List<String> good = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            good.add(enqueue("good-" + i, FAST_RETRY));
        }
        try (Worker w = worker(job -> {
            if (job.payloadUtf8().equals("poison")) {
                poisonCalls.incrementAndGet();
                throw new OutOfMemoryError("simulated: the poison job breaks its handler badly");
            }
            done.add(job.id());
        }).concurrency(1).start()) {
            await().atMost(WAIT).until(() -> done.size() == good.size() && "dead".equals(field(poison, "state")));
            assertThat(done).containsExactlyInAnyOrderElementsOf(good);
            assertThat(poisonCalls.get()).isEqualTo(3);
            assertThat(field(poison, "last_error")).startsWith("java.lang.OutOfMemoryError: simulated");

            // The loop still runs after the poison job died.
            String later = queue.enqueue("after the poison");
            await().atMost(WAIT).until(() -> done.contains(later));
            assertThat(w.isRunning()).isTrue();
            assertThat(queue.stats().completed()).isEqualTo(good.size() + 1);
        }
    }

    @Test
    void nonRetryableExceptionSendsTheJobToDeadAtOnce() {
        RecordingListener events = new RecordingListener();
        AtomicInteger calls = new AtomicInteger();
        String id = enqueue("bad input", FAST_RETRY.withMaxAttempts(5));
        try (Worker w = worker(job -> {
            calls.incrementAndGet();
            throw new NonRetryableException("cannot parse " + job.payloadUtf8());
        }).concurrency(2).listener(events).start()) {
            await().atMost(WAIT).until(() -> "dead".equals(field(id, "state")));
            await().atMost(WAIT).until(() -> events.settled(id).size() == 1);
            assertThat(events.outcomes(id)).containsExactly(SettleOutcome.DEAD);
            assertThat(events.settled(id).get(0).error()).isInstanceOf(NonRetryableException.class);
            assertThat(calls.get()).isEqualTo(1);
            assertThat(field(id, "attempts")).isEqualTo("1");
            assertThat(field(id, "dead_reason")).isEqualTo("failed without retry on attempt 1");
            assertThat(field(id, "last_error")).startsWith(
                    "io.echomq.queue.NonRetryableException: cannot parse bad input");
            assertThat(w.counts().dead()).isEqualTo(1);
            assertThat(w.counts().retrying()).isZero();
        }
    }

    @Test
    void aHandlerThatSettlesItsJobItselfIsLeftAlone() {
        RecordingListener events = new RecordingListener();
        Map<String, Throwable> handlerErrors = new ConcurrentHashMap<>();
        EnqueueOptions slowRetry = EnqueueOptions.defaults().withBackoff(Duration.ofHours(1), Duration.ofHours(1));
        String failsItself = enqueue("fail-myself", slowRetry);
        String completesThenThrows = enqueue("complete-then-throw", slowRetry);
        String killsItself = enqueue("fail-without-retry", slowRetry);
        try (Worker w = worker(job -> {
            try {
                switch (job.payloadUtf8()) {
                    case "fail-myself" -> assertThat(job.fail("handled by me")).isEqualTo(SettleOutcome.RETRYING);
                    case "complete-then-throw" -> {
                        assertThat(job.complete()).isEqualTo(SettleOutcome.COMPLETED);
                        throw new IllegalStateException("thrown after completing");
                    }
                    case "fail-without-retry" ->
                            assertThat(job.failWithoutRetry("not for me")).isEqualTo(SettleOutcome.DEAD);
                    default -> throw new AssertionError(job.payloadUtf8());
                }
            } catch (AssertionError e) {
                handlerErrors.put(job.id(), e);
                throw e;
            }
        }).concurrency(3).listener(events).start()) {
            await().atMost(WAIT).until(() -> events.settled().size() == 3);
            assertThat(handlerErrors).isEmpty();

            assertThat(events.outcomes(failsItself)).containsExactly(SettleOutcome.RETRYING);
            assertThat(events.settled(failsItself).get(0).error()).isNull();
            assertThat(field(failsItself, "state")).isEqualTo("delayed");
            assertThat(field(failsItself, "last_error")).isEqualTo("handled by me");

            assertThat(events.outcomes(completesThenThrows)).containsExactly(SettleOutcome.COMPLETED);
            assertThat(events.settled(completesThenThrows).get(0).error())
                    .isInstanceOf(IllegalStateException.class);
            assertThat(field(completesThenThrows, "state")).isEqualTo("done");
            assertThat(field(completesThenThrows, "last_error")).isNull();

            assertThat(events.outcomes(killsItself)).containsExactly(SettleOutcome.DEAD);
            assertThat(field(killsItself, "last_error")).isEqualTo("not for me");

            QueueStats s = queue.stats();
            assertThat(s.completed()).isEqualTo(1);
            assertThat(s.failed()).as("only the handlers' own two failures").isEqualTo(2);
            WorkerCounts c = w.counts();
            assertThat(c.completed()).isEqualTo(1);
            assertThat(c.retrying()).isEqualTo(1);
            assertThat(c.dead()).isEqualTo(1);
            assertThat(c.ackErrors()).isZero();
            assertThat(events.lost()).isEmpty();
        }
    }

    @Test
    void theListenerHearsEverySettledJobWithItsOutcome() {
        RecordingListener events = new RecordingListener();
        List<String> ok = new ArrayList<>();
        List<String> rejected = new ArrayList<>();
        List<String> flaky = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ok.add(enqueue("ok", FAST_RETRY));
            rejected.add(enqueue("reject", FAST_RETRY));
            flaky.add(enqueue("flaky", FAST_RETRY));
        }
        try (Worker w = worker(job -> {
            switch (job.payloadUtf8()) {
                case "reject" -> throw new NonRetryableException("rejected");
                case "flaky" -> {
                    if (job.attempt() == 1) {
                        throw new java.io.IOException("first try fails");
                    }
                }
                default -> {
                    // completes
                }
            }
        }).concurrency(4).maintenanceInterval(Duration.ofMillis(100)).listener(events).start()) {
            await().atMost(WAIT).until(() -> events.settled().size() == 40);
            for (String id : ok) {
                assertThat(events.outcomes(id)).containsExactly(SettleOutcome.COMPLETED);
                assertThat(events.settled(id).get(0).error()).isNull();
            }
            for (String id : rejected) {
                assertThat(events.outcomes(id)).containsExactly(SettleOutcome.DEAD);
                assertThat(events.settled(id).get(0).error()).isInstanceOf(NonRetryableException.class);
            }
            for (String id : flaky) {
                assertThat(events.outcomes(id)).containsExactly(SettleOutcome.RETRYING, SettleOutcome.COMPLETED);
                assertThat(events.settled(id)).extracting(RecordingListener.Settled::attempt).containsExactly(1L, 2L);
                assertThat(events.settled(id).get(0).error()).isInstanceOf(java.io.IOException.class);
            }
            assertThat(events.lost()).isEmpty();
            QueueStats s = queue.stats();
            assertThat(s.drained()).isTrue();
            assertThat(s.completed()).isEqualTo(20);
            assertThat(s.dead()).isEqualTo(10);
            assertThat(s.failed()).isEqualTo(20);
            assertThat(w.counts()).isEqualTo(new WorkerCounts(20, 10, 10, 0, 0, 0));
        }
    }

    /**
     * Regression: the first maintenance run, continuing on a Lettuce event-loop thread, used to
     * open the queue's connection there while the dispatcher was opening it, and the two
     * deadlocked (about one worker in four on a fresh client with a 10 ms maintenance interval).
     */
    @Test
    void workersOnFreshClientsStartWorkingEvenWhenMaintenanceRunsAtOnce() throws Exception {
        int hung = 0;
        for (int i = 0; i < 30; i++) {
            QueueClient fresh = QueueClient.builder().redisUrl(REDIS.url()).build();
            CountDownLatch done = new CountDownLatch(1);
            queue.enqueue("job-" + i);
            Worker w = fresh.worker("q", job -> done.countDown()).concurrency(1)
                    .maintenanceInterval(Duration.ofMillis(10)).start();
            if (done.await(5, TimeUnit.SECONDS)) {
                fresh.close();
            } else {
                hung++;
                w.abandon();   // closing a deadlocked client would hang too
            }
        }
        assertThat(hung).as("workers that never claimed").isZero();
        await().atMost(WAIT).until(() -> queue.stats().completed() == 30);
    }
}
