package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.MonotonicClock;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Redlock on five real masters that all stay up: grant, fence, release on every master, renewal
 * by quorum, validity on an injected clock. Faults (masters killed) are in {@link RedlockFaultTest}.
 */
class RedlockTest {
    private static final int N = 5;
    private static final String LOCK = "emq:lock:{orders}:lock";
    private static final String FENCE = "emq:lock:{orders}:fence";
    private static RedlockMastersFixture masters;
    private RedlockClient redlock;

    @BeforeAll
    static void start() {
        masters = new RedlockMastersFixture(N);
    }

    @AfterAll
    static void stop() {
        masters.close();
    }

    @BeforeEach
    void fresh() {
        masters.flushAll();
        redlock = masters.client();
    }

    private List<Object> onEach(String key) {
        return masters.getOnEach(key);
    }

    private static List<Object> all(Object value) {
        return Collections.nCopies(N, value);
    }

    @Test
    void grantPutsOneTokenOnEveryMasterWithTheTtl() {
        long before = masterMicros(0);
        Lease lease = redlock.tryAcquire("orders", Duration.ofSeconds(30)).orElseThrow();

        assertThat(redlock.masterCount()).isEqualTo(N);
        assertThat(redlock.quorum()).isEqualTo(3);
        assertThat(onEach(LOCK)).isEqualTo(all(lease.token()));
        for (int i = 0; i < N; i++) {
            assertThat((Long) masters.raw(i).call("PTTL", LOCK)).isBetween(1L, 30_000L);
        }
        assertThat(lease.resource()).isEqualTo("orders");
        assertThat(lease.isHeld()).isTrue();
        // fresh on every master: the fence is a master's clock at its grant (one machine, one clock)
        assertThat(lease.fence()).isBetween(before, masterMicros(0));
        assertThat(onEach(FENCE)).isEqualTo(all(Long.toString(lease.fence())));
    }

    @Test
    void aLabelledClientsHolderShowsItsLabelAndLastRenewalOnEveryMaster() {
        RedlockClient labelled = masters.client(b -> b.holderLabel("host-a:7:report"));
        Lease lease = labelled.tryAcquire("orders", Duration.ofSeconds(30)).orElseThrow();
        assertThat(lease.token()).endsWith("+30000+host-a:7:report");
        assertThat(onEach(LOCK)).isEqualTo(all(lease.token()));
        LockInfo seen = labelled.inspect("orders");
        assertThat(seen.holderLabel()).contains("host-a:7:report");
        assertThat(seen.lastRenewalAgo()).isPresent();
        assertThat(lease.renew()).isEqualTo(RenewOutcome.RENEWED);
        assertThat(lease.release()).isEqualTo(ReleaseOutcome.RELEASED);
        assertThatThrownBy(() -> RedlockClient.builder().holderLabel("no spaces"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holderLabel");
    }

    /** @return master {@code i}'s clock in microseconds ({@code TIME}) */
    private static long masterMicros(int i) {
        List<?> t = (List<?>) masters.raw(i).call("TIME");
        return Long.parseLong(t.get(0).toString()) * 1_000_000L + Long.parseLong(t.get(1).toString());
    }

    @Test
    void fenceIsTheLargestGrantingFenceAndIsWrittenBackToEveryMasterWithAnExpiry() {
        // fences ahead of the masters' clocks (as a master with a faster clock would have granted):
        // base, base + 10, ..., base + 40, each counting on by one at its grant
        long base = masterMicros(0) + 600_000_000L;   // ten minutes ahead
        for (int i = 0; i < N; i++) {
            masters.raw(i).call("SET", FENCE, Long.toString(base + 10L * i));
        }

        Lease lease = redlock.tryAcquire("orders", Duration.ofSeconds(30)).orElseThrow();

        assertThat(lease.fence()).isEqualTo(base + 41);
        assertThat(onEach(FENCE)).isEqualTo(all(Long.toString(base + 41)));
        for (int i = 0; i < N; i++) {
            // kept until this master's clock has passed the fence, not just for the ttl, and never forever
            assertThat((Long) masters.raw(i).call("PTTL", FENCE)).isBetween(590_000L, 700_000L);
        }
    }

    @Test
    void fencesRiseAcrossGrantsEvenWhenEachQuorumIsADifferentMajority() {
        long last = 0;
        for (int round = 0; round < N; round++) {
            // Someone else holds two different masters each round, so our quorum moves around.
            String other = "someone-else";
            masters.raw(round).call("SET", LOCK, other, "PX", "30000");
            masters.raw((round + 1) % N).call("SET", LOCK, other, "PX", "30000");
            Lease lease = redlock.tryAcquire("orders", Duration.ofSeconds(30)).orElseThrow();
            assertThat(lease.fence()).as("round %d", round).isGreaterThan(last);
            last = lease.fence();
            assertThat(lease.release()).isEqualTo(ReleaseOutcome.RELEASED);
            masters.raw(round).call("DEL", LOCK);
            masters.raw((round + 1) % N).call("DEL", LOCK);
        }
    }

    @Test
    void releaseDeletesOnEveryMaster() {
        Lease lease = redlock.tryAcquire("orders", Duration.ofSeconds(30)).orElseThrow();

        assertThat(lease.release()).isEqualTo(ReleaseOutcome.RELEASED);

        assertThat(onEach(LOCK)).isEqualTo(all(null));
        assertThat(lease.isHeld()).isFalse();
        assertThat(redlock.tryAcquire("orders", Duration.ofSeconds(30))).isPresent();
    }

    @Test
    void aQuorumHeldElsewhereIsEmptyAndOurMinorityGrantsAreUndone() {
        for (int i = 0; i < 3; i++) {
            masters.raw(i).call("SET", LOCK, "someone-else", "PX", "30000");
        }

        Optional<Lease> lease = redlock.tryAcquire("orders", Duration.ofSeconds(30));

        assertThat(lease).isEmpty();
        assertThat(onEach(LOCK)).containsExactly("someone-else", "someone-else", "someone-else", null, null);
    }

    @Test
    void aMinorityHeldElsewhereStillGrantsAndReleaseLeavesTheirKeys() {
        masters.raw(0).call("SET", LOCK, "someone-else", "PX", "30000");
        masters.raw(4).call("SET", LOCK, "someone-else", "PX", "30000");

        Lease lease = redlock.tryAcquire("orders", Duration.ofSeconds(30)).orElseThrow();
        assertThat(onEach(LOCK)).containsExactly("someone-else", lease.token(), lease.token(), lease.token(),
                "someone-else");

        assertThat(lease.release()).isEqualTo(ReleaseOutcome.RELEASED);
        assertThat(onEach(LOCK)).containsExactly("someone-else", null, null, null, "someone-else");
    }

    @Test
    void plainAcquireSendsSetNxPxAndHasNoFence() {
        Lease lease = redlock.tryAcquire("orders", Duration.ofSeconds(30), AcquireOptions.defaults().plain())
                .orElseThrow();

        assertThat(lease.isFenced()).isFalse();
        assertThatThrownBy(lease::fence).isInstanceOf(IllegalStateException.class);
        assertThat(onEach(LOCK)).isEqualTo(all(lease.token()));
        assertThat(onEach(FENCE)).isEqualTo(all(null));
    }

    @Test
    void renewNeedsAQuorumAndNeverRevivesALostLease() {
        Lease lease = redlock.tryAcquire("orders", Duration.ofSeconds(5)).orElseThrow();
        masters.raw(0).call("DEL", LOCK);
        masters.raw(1).call("DEL", LOCK);

        assertThat(lease.renew(Duration.ofSeconds(60))).isEqualTo(RenewOutcome.RENEWED);
        for (int i = 2; i < N; i++) {
            assertThat((Long) masters.raw(i).call("PTTL", LOCK)).as("master %d", i).isGreaterThan(5_000L);
        }
        assertThat(onEach(LOCK).subList(0, 2)).as("never revived where it was gone").containsExactly(null, null);

        masters.raw(2).call("DEL", LOCK);
        assertThat(lease.renew()).isEqualTo(RenewOutcome.EXPIRED);
        assertThat(lease.isLost()).isTrue();
        assertThat(lease.lossReason()).contains(LossReason.EXPIRED);
        long pttl = (Long) masters.raw(3).call("PTTL", LOCK);
        assertThat(lease.renew(Duration.ofSeconds(60))).as("a lost lease is not sent").isEqualTo(RenewOutcome.EXPIRED);
        assertThat((Long) masters.raw(3).call("PTTL", LOCK)).isLessThanOrEqualTo(pttl);
    }

    @Test
    void renewFindingAnotherHolderOnAMajorityIsNotOwner() {
        Lease lease = redlock.tryAcquire("orders", Duration.ofSeconds(30)).orElseThrow();
        for (int i = 0; i < 3; i++) {
            masters.raw(i).call("SET", LOCK, "someone-else", "PX", "30000");
        }

        assertThat(lease.renew()).isEqualTo(RenewOutcome.NOT_OWNER);
        assertThat(lease.lossReason()).contains(LossReason.NOT_OWNER);
        assertThat(lease.release()).as("release still cleans our own keys").isEqualTo(ReleaseOutcome.RELEASED);
        assertThat(onEach(LOCK)).containsExactly("someone-else", "someone-else", "someone-else", null, null);
    }

    @Test
    void byTokenReleaseAndRenewAnswerLikeTheLease() {
        Lease lease = redlock.tryAcquire("orders", Duration.ofSeconds(30)).orElseThrow();

        assertThat(redlock.renew("orders", "not-our-token", Duration.ofSeconds(30))).isEqualTo(RenewOutcome.NOT_OWNER);
        assertThat(redlock.release("orders", "not-our-token")).isEqualTo(ReleaseOutcome.NOT_OWNER);
        assertThat(redlock.renew("orders", lease.token(), Duration.ofSeconds(60))).isEqualTo(RenewOutcome.RENEWED);
        assertThat(redlock.release("orders", lease.token())).isEqualTo(ReleaseOutcome.RELEASED);
        assertThat(onEach(LOCK)).isEqualTo(all(null));
        assertThat(redlock.release("orders", lease.token())).isEqualTo(ReleaseOutcome.EXPIRED);
        assertThat(redlock.renew("orders", lease.token(), Duration.ofSeconds(60))).isEqualTo(RenewOutcome.EXPIRED);
    }

    @Test
    void inspectMastersReadsEveryMaster() {
        masters.raw(4).call("SET", LOCK, "someone-else", "PX", "30000");
        Lease lease = redlock.tryAcquire("orders", Duration.ofSeconds(30)).orElseThrow();

        List<Optional<LockInfo>> infos = redlock.inspectMasters("orders");

        assertThat(infos).hasSize(N);
        for (int i = 0; i < 4; i++) {
            LockInfo info = infos.get(i).orElseThrow();
            assertThat(info.holderToken()).contains(lease.token());
            assertThat(info.lastFence()).isEqualTo(lease.fence());
        }
        assertThat(infos.get(4).orElseThrow().holderToken()).contains("someone-else");
    }

    @Test
    void inspectIsTheVerdictOfAQuorum() {
        assertThat(redlock.inspect("orders").isHeld()).as("never granted").isFalse();
        assertThat(redlock.inspect("orders").ttlMillis()).isEqualTo(-2);
        masters.raw(4).call("SET", LOCK, "someone-else", "PX", "30000");
        Lease lease = redlock.tryAcquire("orders", Duration.ofSeconds(30)).orElseThrow();
        // The quorum (3 of 5) holds the lease for as long as the third-longest ttl among its 4 masters.
        masters.raw(0).call("PEXPIRE", LOCK, "1000");
        masters.raw(1).call("PEXPIRE", LOCK, "20000");

        LockInfo info = redlock.inspect("orders");

        assertThat(info.resource()).isEqualTo("orders");
        assertThat(info.holderToken()).contains(lease.token());
        assertThat(info.lastFence()).isEqualTo(lease.fence());
        assertThat(info.ttlMillis()).as("master 1's ttl, not master 0's nor the others'").isBetween(10_001L, 20_000L);

        // Two masters holding a token is a minority: no lock, whatever they say.
        masters.raw(2).call("DEL", LOCK);
        masters.raw(3).call("DEL", LOCK);
        LockInfo minority = redlock.inspect("orders");
        assertThat(minority.isHeld()).isFalse();
        assertThat(minority.ttlMillis()).isEqualTo(-2);
        assertThat(minority.lastFence()).isEqualTo(lease.fence());
    }

    /** A clock that moves on by {@code step} every time it is read. */
    static final class SteppingClock implements MonotonicClock {
        final AtomicLong now = new AtomicLong(TimeUnit.HOURS.toNanos(1));
        volatile long step;

        void step(Duration d) {
            step = d.toNanos();
        }

        @Override
        public long nanoTime() {
            return now.getAndAdd(step);
        }
    }

    @Test
    void validityIsTtlMinusElapsedMinusDrift() {
        SteppingClock clock = new SteppingClock();
        RedlockClient timed = masters.client(b -> b.clock(clock));
        long t0 = clock.now.get();
        clock.step(Duration.ofMillis(1_000));   // the acquire reads the clock before and after: 1 s elapsed

        Lease lease = timed.tryAcquire("orders", Duration.ofSeconds(10)).orElseThrow();

        // drift = 10 000/100 + 2 = 102 ms; the deadline counts from the start of the acquire.
        assertThat(lease.validUntilNanos()).isEqualTo(t0 + TimeUnit.MILLISECONDS.toNanos(10_000 - 102));
        // remaining() reads the clock a third time (t0 + 2 s): ttl − elapsed − drift.
        assertThat(lease.remaining()).isEqualTo(Duration.ofMillis(10_000 - 2_000 - 102));
    }

    @Test
    void aGrantThatTookItsWholeValidityIsUndoneOnEveryMaster() {
        SteppingClock clock = new SteppingClock();
        RedlockClient timed = masters.client(b -> b.clock(clock));

        clock.step(Duration.ofMillis(10_000 - 102 - 1));
        Lease justInTime = timed.tryAcquire("orders", Duration.ofSeconds(10)).orElseThrow();
        assertThat(justInTime.release()).isEqualTo(ReleaseOutcome.RELEASED);

        clock.step(Duration.ofMillis(10_000 - 102));
        assertThat(timed.tryAcquire("orders", Duration.ofSeconds(10))).isEmpty();
        assertThat(onEach(LOCK)).as("released on every master").isEqualTo(all(null));
    }

    @Test
    void aRenewalThatCameBackTooLateDoesNotCount() {
        SteppingClock clock = new SteppingClock();
        RedlockClient timed = masters.client(b -> b.clock(clock));
        Lease lease = timed.tryAcquire("orders", Duration.ofSeconds(10)).orElseThrow();

        // A renewal reads the clock three times: the lease's own deadline check, the send, the reply.
        clock.step(Duration.ofMillis(10_000 - 102 - 1));
        assertThat(lease.renew()).isEqualTo(RenewOutcome.RENEWED);

        clock.step(Duration.ZERO);
        Lease late = timed.tryAcquire("other", Duration.ofSeconds(10)).orElseThrow();
        clock.step(Duration.ofMillis(10_000 - 102));
        assertThat(late.renew()).isEqualTo(RenewOutcome.EXPIRED);
        assertThat(late.lossReason()).contains(LossReason.EXPIRED);
    }

    @Test
    void aLeaseWithoutWatchdogIsLostAtItsDeadline() throws Exception {
        Lease lease = redlock.tryAcquire("orders", Duration.ofMillis(300)).orElseThrow();

        assertThat(lease.lost().get(5, TimeUnit.SECONDS)).isEqualTo(LossReason.DEADLINE_PASSED);
        assertThat(lease.isHeld()).isFalse();
    }

    @Test
    void theWatchdogRenewsOnEveryMaster() {
        Lease lease = redlock.tryAcquire("orders", Duration.ofMillis(1_500), AcquireOptions.defaults().withWatchdog())
                .orElseThrow();

        // Held for twice its ttl: only renewals by a quorum (every 500 ms) can have moved its deadline.
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(15)).until(lease::isHeld);
        assertThat(onEach(LOCK)).isEqualTo(all(lease.token()));
        assertThat(lease.release()).isEqualTo(ReleaseOutcome.RELEASED);
        assertThat(onEach(LOCK)).isEqualTo(all(null));
    }

    @Test
    void acquireRetriesUntilTheHolderExpiresOrTheWaitRunsOut() throws Exception {
        RedlockClient other = masters.client(b -> b.retryDelay(Duration.ofMillis(20)));
        Lease first = redlock.tryAcquire("orders", Duration.ofMillis(400)).orElseThrow();

        Lease next = other.acquire("orders", Duration.ofSeconds(30), Duration.ofSeconds(10));
        // Higher, but not necessarily by one: an attempt that caught the first lease expired on
        // some masters only also counted there before it was undone.
        assertThat(next.fence()).isGreaterThan(first.fence());

        assertThatThrownBy(() -> redlock.acquire("orders", Duration.ofSeconds(1), Duration.ofMillis(200)))
                .isInstanceOf(LockWaitTimeoutException.class)
                .hasMessage("Timed out after 200 ms waiting for lock 'orders': still held");
    }
}
