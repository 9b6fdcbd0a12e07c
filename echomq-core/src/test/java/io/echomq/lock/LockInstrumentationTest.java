package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.observe.Instrumentation;
import io.echomq.RecordingInstrumentation;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * What a lock client tells its {@link Instrumentation}: each acquire's outcome and mode, held
 * leases ended by release or loss, losses by reason, renewals by result; and that an
 * instrumentation which throws from every method changes nothing a lock does.
 */
class LockInstrumentationTest extends LockTestBase {
    private static final Duration TTL = Duration.ofSeconds(10);
    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void acquiresAreReportedWithTheirOutcomeAndMode() throws Exception {
        RecordingInstrumentation rec = new RecordingInstrumentation();
        LockClient c = client(b -> b.instrumentation(rec));

        Lease fenced = c.tryAcquire("a", TTL).orElseThrow();
        assertThat(c.tryAcquire("a", TTL)).isEmpty();
        Lease plain = c.tryAcquire("b", TTL, AcquireOptions.defaults().plain()).orElseThrow();
        assertThatThrownBy(() -> c.acquire("a", TTL, Duration.ofMillis(50)))
                .isInstanceOf(LockWaitTimeoutException.class);
        Lease waited = c.acquire("c", TTL, Duration.ofSeconds(1));
        assertThat(c.tryAcquireAsync("a", TTL, AcquireOptions.defaults()).get()).isEmpty();

        assertThat(rec.calls("acquire")).containsExactly(
                "acquire FENCED ACQUIRED", "acquire FENCED BUSY", "acquire PLAIN ACQUIRED",
                "acquire FENCED TIMED_OUT", "acquire FENCED ACQUIRED", "acquire FENCED BUSY");
        assertThat(rec.acquireNanos).allSatisfy(n -> assertThat(n).isPositive());
        assertThat(rec.acquireNanos.get(3)).as("the timed-out wait is timed whole")
                .isGreaterThanOrEqualTo(Duration.ofMillis(50).toNanos());
        assertThat(rec.calls("held")).containsExactly("held FENCED", "held PLAIN", "held FENCED");
        assertThat(rec.calls("ended")).isEmpty();

        fenced.release();
        plain.close();
        waited.release();
        waited.release();   // remembered: no second end
        assertThat(rec.calls("ended")).containsExactly("ended true", "ended true", "ended true");
        assertThat(rec.calls("lost")).isEmpty();
    }

    @Test
    void inputRejectedBeforeRedisIsNotReported() {
        RecordingInstrumentation rec = new RecordingInstrumentation();
        LockClient c = client(b -> b.instrumentation(rec));
        assertThatThrownBy(() -> c.tryAcquire("", TTL)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.acquire("x", Duration.ZERO, WAIT)).isInstanceOf(IllegalArgumentException.class);
        assertThat(rec.calls).isEmpty();
        assertThatThrownBy(() -> LockClient.builder().instrumentation(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("instrumentation");
    }

    @Test
    void renewalsAndLossesAreReported() {
        RecordingInstrumentation rec = new RecordingInstrumentation();
        LockClient c = client(b -> b.instrumentation(rec));
        Lease lease = c.tryAcquire("r", TTL).orElseThrow();
        assertThat(lease.renew()).isEqualTo(RenewOutcome.RENEWED);
        raw().call("DEL", c.lockKey("r"));
        assertThat(lease.renew()).isEqualTo(RenewOutcome.EXPIRED);
        assertThat(lease.renew()).as("refused locally: nothing sent, nothing reported").isEqualTo(RenewOutcome.EXPIRED);

        assertThat(rec.calls("renewal")).containsExactly("renewal FENCED RENEWED", "renewal FENCED REFUSED");
        assertThat(rec.calls("lost")).containsExactly("lost FENCED EXPIRED");
        assertThat(rec.calls("ended")).containsExactly("ended true");

        Lease taken = c.tryAcquire("t", TTL).orElseThrow();
        raw().call("SET", c.lockKey("t"), "someone-else");
        assertThat(taken.release()).isEqualTo(ReleaseOutcome.NOT_OWNER);
        assertThat(rec.calls("lost")).containsExactly("lost FENCED EXPIRED", "lost FENCED NOT_OWNER");
        assertThat(rec.calls("ended")).hasSize(2);
    }

    @Test
    void theWatchdogsRenewalsAndADeadlineLossAreReported() {
        RecordingInstrumentation rec = new RecordingInstrumentation();
        LockClient c = client(b -> b.instrumentation(rec));
        Lease watched = c.tryAcquire("w", Duration.ofMillis(300), AcquireOptions.defaults().withWatchdog()).orElseThrow();
        await().atMost(WAIT).until(() -> rec.calls("renewal").size() >= 2);
        assertThat(rec.calls("renewal")).allSatisfy(r -> assertThat(r).isEqualTo("renewal FENCED RENEWED"));
        watched.release();

        Lease short_ = c.tryAcquire("d", Duration.ofMillis(100)).orElseThrow();
        short_.lost();   // arms the deadline timer
        await().atMost(WAIT).until(() -> rec.calls("lost").contains("lost FENCED DEADLINE_PASSED"));
        assertThat(rec.calls("ended")).hasSize(2);
    }

    @Test
    void anInstrumentationThatAlwaysThrowsChangesNothing() throws Exception {
        RecordingInstrumentation rec = new RecordingInstrumentation(true);
        LockClient c = client(b -> b.instrumentation(rec));

        Optional<Lease> lease = c.tryAcquire("x", TTL);
        assertThat(lease).isPresent();
        assertThat(c.tryAcquire("x", TTL)).isEmpty();
        assertThat(c.tryAcquireAsync("y", TTL, AcquireOptions.defaults()).get()).isPresent();
        assertThatThrownBy(() -> c.acquire("x", TTL, Duration.ofMillis(20))).isInstanceOf(LockWaitTimeoutException.class);
        assertThat(lease.get().renew()).isEqualTo(RenewOutcome.RENEWED);
        assertThat(lease.get().release()).isEqualTo(ReleaseOutcome.RELEASED);
        Lease watched = c.acquire("z", Duration.ofMillis(300), WAIT, AcquireOptions.defaults().withWatchdog());
        await().atMost(WAIT).until(() -> rec.calls("renewal").size() >= 2);
        assertThat(watched.isHeld()).as("the watchdog carries on").isTrue();
        raw().call("DEL", c.lockKey("z"));
        await().atMost(WAIT).until(watched::isLost);
        assertThat(watched.lossReason()).contains(LossReason.EXPIRED);

        assertThat(rec.calls("acquire")).hasSize(5);
        assertThat(rec.calls("lost")).containsExactly("lost FENCED EXPIRED");
        // leaseHeld threw, so no handle was returned and no end is reported
        assertThat(rec.calls("ended")).isEmpty();
    }

    /**
     * A lost lease answers {@code isLost()} and its {@code lossReason()} together from the moment it
     * turns lost, also while the loss is still being reported: the instrumentation, told of the end
     * before the loss's future completes, reads both from the lease it was handed.
     */
    @Test
    void aLostLeaseHasItsReasonWhileTheLossIsBeingReported() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        Instrumentation probe = new Instrumentation() {
            @Override
            public Object leaseHeld(LockMode mode, Lease lease) {
                return lease;
            }

            @Override
            public void leaseEnded(Object handle) {
                Lease l = (Lease) handle;
                seen.add(l.isLost() + " " + l.lossReason().map(Enum::name).orElse("none"));
            }
        };
        LockClient c = client(b -> b.instrumentation(probe));
        Lease lease = c.tryAcquire("told", TTL).orElseThrow();
        raw().call("DEL", c.lockKey("told"));
        assertThat(lease.renew()).isEqualTo(RenewOutcome.EXPIRED);
        assertThat(seen).containsExactly("true EXPIRED");
        assertThat(lease.lossReason()).contains(LossReason.EXPIRED);
    }

    @Test
    void redlockReportsItsMode() throws Exception {
        RecordingInstrumentation rec = new RecordingInstrumentation();
        try (RedlockMastersFixture masters = new RedlockMastersFixture(3)) {
            RedlockClient r = masters.client(b -> b.instrumentation(rec));
            Lease lease = r.tryAcquire("m", TTL).orElseThrow();
            assertThat(r.tryAcquire("m", TTL)).isEmpty();
            assertThatThrownBy(() -> r.acquire("m", TTL, Duration.ofMillis(50)))
                    .isInstanceOf(LockWaitTimeoutException.class);
            assertThat(lease.renew()).isEqualTo(RenewOutcome.RENEWED);
            lease.release();
            assertThat(rec.calls).containsExactly("held REDLOCK", "acquire REDLOCK ACQUIRED",
                    "acquire REDLOCK BUSY", "acquire REDLOCK TIMED_OUT", "renewal REDLOCK RENEWED", "ended true");
        }
    }

    @Test
    void withoutInstrumentationNoClockReadIsAdded() throws Exception {
        java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();
        io.echomq.MonotonicClock counting = () -> {
            reads.incrementAndGet();
            return System.nanoTime();
        };
        LockClient plain = client(b -> b.clock(counting));
        Lease lease = plain.tryAcquire("n", TTL).orElseThrow();
        lease.release();
        assertThat(reads).as("the one read of the acquire's start, as before the hook").hasValue(1);

        reads.set(0);
        LockClient observed = client(b -> b.clock(counting).instrumentation(new RecordingInstrumentation()));
        observed.tryAcquire("o", TTL).orElseThrow().release();
        assertThat(reads).as("the acquire's start, and the timing's start and end").hasValue(3);
    }

    @Test
    void aClientWithoutInstrumentationHoldsTheSharedNoOp() {
        assertThat(LockClient.builder().observations(false)).isSameAs(LockObservations.NONE);
        assertThat(LockClient.builder().instrumentation(Instrumentation.NONE).observations(false))
                .isSameAs(LockObservations.NONE);
        assertThat(LockObservations.NONE.start()).as("no clock read").isZero();
    }
}
