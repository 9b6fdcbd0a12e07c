package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.MonotonicClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A job's own lease check is decided at the call, on the injected monotonic clock: the moment the
 * local deadline has passed it answers lost, with no renewal tick or answer involved, and a renewal
 * answered later does not revive it. The clock is a fake advanced by hand; nothing sleeps.
 */
class JobDeadlineTest extends QueueTestBase {
    private static final Duration LEASE = Duration.ofSeconds(10);

    /** A clock that moves only when told. */
    private static final class FakeClock implements MonotonicClock {
        private final AtomicLong now = new AtomicLong(1_000_000_000L);

        @Override
        public long nanoTime() {
            return now.get();
        }

        void advance(Duration d) {
            now.addAndGet(d.toNanos());
        }
    }

    private final FakeClock clock = new FakeClock();

    private Queue fakeTimed() {
        return client(b -> b.clock(clock)).queue("q");
    }

    @Test
    void theDeadlinePassingAnswersLostAtOnceWithoutAnyRenewal() {
        Queue q = fakeTimed();
        q.enqueue("x");
        Job job = q.claim(LEASE).orElseThrow();
        long validity = JobLease.validityNanos(LEASE.toMillis());

        assertThat(job.leaseLost()).isFalse();
        assertThat(job.isHeld()).isTrue();
        assertThat(job.remaining()).isEqualTo(Duration.ofNanos(validity));

        clock.advance(Duration.ofNanos(validity - 1));
        assertThat(job.isHeld()).as("one nanosecond before the deadline").isTrue();
        assertThat(job.remaining()).isEqualTo(Duration.ofNanos(1));
        assertThat(job.lossReason()).isEmpty();

        clock.advance(Duration.ofNanos(1));
        // no worker, no tick, no command: the call itself decides
        assertThat(job.leaseLost()).isTrue();
        assertThat(job.isHeld()).isFalse();
        assertThat(job.remaining()).isEqualTo(Duration.ZERO);
        assertThat(job.lossReason()).contains(LeaseLossReason.DEADLINE_PASSED);
        assertThat(job.lost()).isCompletedWithValue(LeaseLossReason.DEADLINE_PASSED);
        assertThat(field(job.id(), "state")).as("the server was not asked").isEqualTo("active");
    }

    @Test
    void isHeldAloneAlsoMarksTheLossRequestsTheStopAndInterruptsABoundHandlerThread() throws Exception {
        Queue q = fakeTimed();
        q.enqueue("x");
        Job job = q.claim(LEASE).orElseThrow();
        AtomicReference<Boolean> interrupted = new AtomicReference<>();
        Thread handler = new Thread(() -> {
            job.leaseState().bindHandlerThread(Thread.currentThread());
            clock.advance(LEASE);
            boolean held = job.isHeld();
            interrupted.set(!held && Thread.interrupted());
        });
        handler.start();
        handler.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(interrupted.get()).as("the bound handler's thread is interrupted, as for any loss").isTrue();
        assertThat(job.leaseLost()).isTrue();
        assertThat(job.stopRequested()).isTrue();
        assertThat(job.stopSignal()).succeedsWithin(Duration.ofSeconds(10));
    }

    @Test
    void aRenewalAnsweredAfterTheDeadlineWasSeenDoesNotReviveTheLease() {
        Queue q = fakeTimed();
        q.enqueue("x");
        Job job = q.claim(LEASE).orElseThrow();
        long ms = LEASE.toMillis();

        // A renewal sent just before the deadline; the server accepts it (its lease is valid) ...
        clock.advance(Duration.ofNanos(JobLease.validityNanos(ms) - 1));
        long sentAt = clock.nanoTime();
        List<Long> codes = q.partition().attempts().extend(ms, List.of(job.granted()));
        assertThat(codes).containsExactly(1L);
        // ... but its answer is applied only after the deadline was seen passed.
        clock.advance(Duration.ofMillis(1));
        assertThat(job.leaseLost()).isTrue();
        assertThat(job.leaseState().onExtended(codes.get(0), sentAt, ms)).isFalse();

        assertThat(job.leaseLost()).as("sticky").isTrue();
        assertThat(job.isHeld()).isFalse();
        assertThat(job.remaining()).isEqualTo(Duration.ZERO);
        assertThat(job.lossReason()).contains(LeaseLossReason.DEADLINE_PASSED);
        // and a lost lease is not renewed again: nothing is sent
        String scoreBefore = String.valueOf(raw().call("ZSCORE", "emq:{q}:active", job.id()));
        assertThat(job.extend(LEASE)).isFalse();
        assertThat(String.valueOf(raw().call("ZSCORE", "emq:{q}:active", job.id()))).isEqualTo(scoreBefore);
    }

    @Test
    void aRenewalAnsweredBeforeTheDeadlineMovesIt() {
        Queue q = fakeTimed();
        q.enqueue("x");
        Job job = q.claim(LEASE).orElseThrow();
        clock.advance(Duration.ofSeconds(5));
        assertThat(job.extend(LEASE)).isTrue();
        clock.advance(Duration.ofSeconds(9));
        assertThat(job.isHeld()).as("14 s after the claim, 9 s after a 10 s renewal").isTrue();
        assertThat(job.remaining()).isEqualTo(Duration.ofNanos(JobLease.validityNanos(LEASE.toMillis()))
                .minusSeconds(9));
    }

    @Test
    void aJobSettledCleanlyIsNotLostWhenItsDeadlinePasses() {
        Queue q = fakeTimed();
        q.enqueue("x");
        Job job = q.claim(LEASE).orElseThrow();
        assertThat(job.complete()).isEqualTo(SettleOutcome.COMPLETED);
        clock.advance(LEASE.multipliedBy(2));
        assertThat(job.leaseLost()).isFalse();
        assertThat(job.isHeld()).as("settled: the lease ended").isFalse();
        assertThat(job.remaining()).isEqualTo(Duration.ZERO);
        assertThat(job.lossReason()).isEmpty();
    }
}
