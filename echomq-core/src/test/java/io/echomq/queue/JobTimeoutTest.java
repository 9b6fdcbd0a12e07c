package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The worker's timeout: distinct from the lease, it interrupts a handler and fails its job as TIMEOUT. */
@Timeout(90)
class JobTimeoutTest extends QueueTestBase {
    /** These tests read completed jobs' hashes: the test client keeps them for an hour. */
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
    void aBlockingHandlerIsAskedToStopAtItsTimeoutThenRetriedThenDeadWithReasonTimeout() {
        RecordingListener events = new RecordingListener();
        ConcurrentLinkedQueue<Long> ranMillis = new ConcurrentLinkedQueue<>();
        AtomicInteger sawTimedOut = new AtomicInteger();
        AtomicInteger interrupted = new AtomicInteger();
        String id = queue.enqueue("hangs", FAST_RETRY.withMaxAttempts(2)).id();
        long t0 = System.nanoTime();
        try (Worker w = worker(job -> {
            long start = System.nanoTime();
            try {
                job.stopSignal().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
                throw e;
            }
            ranMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            if (job.timedOut() && job.stopRequested()) {
                sawTimedOut.incrementAndGet();
            }
            throw new IllegalStateException("stopped");
        }).concurrency(1).lease(Duration.ofSeconds(5)).timeout(Duration.ofMillis(300)).listener(events).start()) {
            await().atMost(WAIT).until(() -> events.settled(id).size() == 2);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

            assertThat(events.outcomes(id)).containsExactly(SettleOutcome.RETRYING, SettleOutcome.DEAD);
            assertThat(events.settled(id)).allSatisfy(s -> {
                assertThat(s.error()).isInstanceOf(JobTimeoutException.class);
                assertThat(((JobTimeoutException) s.error()).timeout()).isEqualTo(Duration.ofMillis(300));
                assertThat(s.job().timedOut()).isTrue();
                assertThat(s.job().leaseLost()).as("a timeout is not a lease loss").isFalse();
            });
            // the timeout runs from the worker's start of the handler: under load the handler's own
            // first line may run later, so only the whole is bounded below
            assertThat(tookMs).as("two attempts of 300 ms each").isGreaterThanOrEqualTo(600L);
            assertThat(ranMillis).as("stopped long before its wait ends").hasSize(2)
                    .allSatisfy(ms -> assertThat(ms).isLessThan(5_000L));
            assertThat(sawTimedOut).hasValue(2);
            assertThat(interrupted).as("a timeout does not interrupt by default").hasValue(0);
            assertThat(events.lost()).isEmpty();
            assertThat(stateOf(id)).isEqualTo("dead");
            assertThat(queue.inspect(id).orElseThrow().lastError().orElseThrow())
                    .startsWith(JobTimeoutException.class.getName() + ": TIMEOUT: job " + id + " attempt 2");
            assertThat(w.counts().retrying()).isEqualTo(1);
            assertThat(w.counts().dead()).isEqualTo(1);
        }
    }

    @Test
    void theRetryPolicyDecidesWhatATimeoutDoes() {
        RecordingListener events = new RecordingListener();
        String id = queue.enqueue("hangs", FAST_RETRY.withMaxAttempts(5)).id();
        RetryPolicy noRetryOnTimeout = RetryPolicy.builder().on(JobTimeoutException.class, RetryAction.noRetry()).build();
        try (Worker w = worker(job -> Thread.sleep(WAIT.toMillis())).concurrency(1).timeout(Duration.ofMillis(100))
                .retryPolicy(noRetryOnTimeout).listener(events).start()) {
            await().atMost(WAIT).until(() -> events.settled(id).size() == 1);
            assertThat(events.outcomes(id)).containsExactly(SettleOutcome.DEAD);
            assertThat(stateOf(id)).isEqualTo("dead");
            assertThat(field(id, "spent")).isEqualTo("1");
        }
    }

    @Test
    void aJobThatFinishesBeforeItsTimeoutCompletesNormally() {
        RecordingListener events = new RecordingListener();
        AtomicBoolean timedOut = new AtomicBoolean(true);
        String id = queue.enqueue("quick");
        try (Worker w = worker(job -> {
            Thread.sleep(50);
            timedOut.set(job.timedOut());
        }).concurrency(1).timeout(Duration.ofSeconds(5)).listener(events).start()) {
            await().atMost(WAIT).until(() -> events.settled(id).size() == 1);
            assertThat(events.outcomes(id)).containsExactly(SettleOutcome.COMPLETED);
            assertThat(events.settled(id).get(0).error()).isNull();
            assertThat(timedOut).isFalse();
            assertThat(stateOf(id)).isEqualTo("done");
        }
    }

    @Test
    void theLeaseStaysRenewedWhileALongJobRunsWithinItsTimeout() {
        RecordingListener events = new RecordingListener();
        AtomicBoolean heldAtEnd = new AtomicBoolean();
        String id = queue.enqueue("long");
        Duration lease = Duration.ofMillis(300);
        // five leases long, well within the timeout: only renewals keep it
        try (Worker w = worker(job -> {
            Thread.sleep(lease.toMillis() * 5);
            heldAtEnd.set(job.isHeld());
        }).concurrency(1).lease(lease).timeout(Duration.ofSeconds(10)).listener(events).start()) {
            await().atMost(WAIT).until(() -> events.settled(id).size() == 1);
            assertThat(events.outcomes(id)).containsExactly(SettleOutcome.COMPLETED);
            assertThat(heldAtEnd).isTrue();
            assertThat(events.lost()).isEmpty();
            assertThat(field(id, "attempts")).as("never reaped and claimed again").isEqualTo("1");
        }
    }

    @Test
    void withInterruptHandlersABlockingHandlerIsInterruptedAtItsTimeout() {
        RecordingListener events = new RecordingListener();
        AtomicReference<Boolean> timedOutWhenInterrupted = new AtomicReference<>();
        String id = queue.enqueue("hangs", FAST_RETRY.withMaxAttempts(1)).id();
        try (Worker w = worker(job -> {
            try {
                Thread.sleep(WAIT.toMillis());
            } catch (InterruptedException e) {
                timedOutWhenInterrupted.set(job.timedOut() && job.stopRequested());
                throw e;
            }
        }).concurrency(1).timeout(Duration.ofMillis(200)).interruptHandlers(true).listener(events).start()) {
            await().atMost(WAIT).until(() -> events.settled(id).size() == 1);
            assertThat(events.outcomes(id)).containsExactly(SettleOutcome.DEAD);
            assertThat(events.settled(id).get(0).error()).isInstanceOf(JobTimeoutException.class);
            await().atMost(WAIT).until(() -> timedOutWhenInterrupted.get() != null);
            assertThat(timedOutWhenInterrupted.get()).isTrue();
            await().atMost(WAIT).until(() -> w.runningJobs() == 0);
        }
    }

    @Test
    void aHandlerThatIgnoresTheStopIsFailedAnywayAndItsLateResultIsNotKept() throws Exception {
        RecordingListener events = new RecordingListener();
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean returned = new AtomicBoolean();
        String id = queue.enqueue("stubborn", FAST_RETRY.withMaxAttempts(1)).id();
        try (Worker w = worker(job -> {
            while (release.getCount() > 0) {
                try {
                    release.await();
                } catch (InterruptedException ignored) {
                    // this handler would ignore an interrupt too
                }
            }
            returned.set(true);
        }).concurrency(1).timeout(Duration.ofMillis(200)).listener(events).start()) {
            await().atMost(WAIT).until(() -> events.settled(id).size() == 1);
            assertThat(events.outcomes(id)).containsExactly(SettleOutcome.DEAD);
            assertThat(returned).as("the failed job's handler still runs").isFalse();
            assertThat(w.runningJobs()).as("and holds its slot").isEqualTo(1);
            assertThat(stateOf(id)).isEqualTo("dead");

            release.countDown();
            await().atMost(WAIT).until(() -> w.runningJobs() == 0);
            assertThat(returned).isTrue();
            assertThat(events.settled(id)).as("its return is not a second settle").hasSize(1);
            assertThat(stateOf(id)).isEqualTo("dead");
            assertThat(queue.stats().completed()).isZero();
            assertThat(w.counts().dead()).isEqualTo(1);
            assertThat(w.counts().completed()).isZero();
        }
    }

    @Test
    void timeoutAgainstCompletionEndsEachRoundOnceCompletedOrTimedOutNeverBothNeverLost() {
        int rounds = 80;
        long timeoutMs = 40;
        RecordingListener events = new RecordingListener();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            ids.add(queue.enqueue("r" + i, EnqueueOptions.defaults().withMaxAttempts(1)).id());
        }
        // each handler returns normally close to the timeout, on either side of it, whatever interrupts it
        try (Worker w = worker(job -> {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextLong(30, 51));
            while (System.nanoTime() - end < 0) {
                LockSupport.parkNanos(end - System.nanoTime());
            }
        }).concurrency(4).timeout(Duration.ofMillis(timeoutMs)).listener(events).start()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> events.settled().size() >= rounds && w.isIdle());

            int completed = 0;
            int timedOut = 0;
            for (String id : ids) {
                List<RecordingListener.Settled> s = events.settled(id);
                assertThat(s).as("job %s settled once", id).hasSize(1);
                if (s.get(0).outcome() == SettleOutcome.COMPLETED) {
                    completed++;
                    assertThat(stateOf(id)).isEqualTo("done");
                    assertThat(field(id, "last_error")).isNull();
                } else {
                    timedOut++;
                    assertThat(s.get(0).outcome()).isEqualTo(SettleOutcome.DEAD);
                    assertThat(s.get(0).error()).isInstanceOf(JobTimeoutException.class);
                    assertThat(stateOf(id)).isEqualTo("dead");
                    assertThat(field(id, "last_error")).contains("TIMEOUT");
                }
            }
            assertThat(events.settled()).hasSize(rounds);
            assertThat(completed + timedOut).isEqualTo(rounds);
            QueueStats stats = queue.stats();
            assertThat(stats.completed()).isEqualTo(completed);
            assertThat(stats.pending() + stats.active() + stats.delayed()).isZero();
            assertThat(w.counts().completed()).isEqualTo(completed);
            assertThat(w.counts().dead()).isEqualTo(timedOut);
            System.out.printf("timeout race: %d completed, %d timed out of %d%n", completed, timedOut, rounds);
        }
    }

    @Test
    void badTimeoutsAreRefusedBeforeTheWorkerStarts() {
        Worker.Builder b = client.worker("q", job -> { });
        assertThatThrownBy(() -> b.timeout(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timeout must not be null");
        assertThatThrownBy(() -> b.timeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timeout must be positive, was PT0S");
        assertThatThrownBy(() -> b.timeout(Duration.ofMillis(-5))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timeout must be positive, was PT-0.005S");
        assertThatThrownBy(() -> b.timeout(Duration.ofNanos(500))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1 ms");
        assertThatThrownBy(() -> b.timeout(Duration.ofDays(2))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("above the maximum");
        assertThat(raw().call("DBSIZE")).isEqualTo(0L);
    }
}
