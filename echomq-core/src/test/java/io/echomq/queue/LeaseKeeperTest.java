package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.MonotonicClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The worker's lease keeper, driven by a fake monotonic clock and by calling its tick by hand:
 * when renewals are due, what a renewal's answer moves, and when the local deadline counts a
 * lease lost. Nothing sleeps; only the server's answers are awaited.
 */
class LeaseKeeperTest extends QueueTestBase {
    private static final long LEASE_MS = 3000;   // renewed every 1000 ms
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final AtomicLong now = new AtomicLong(5_000_000_000L);
    private final MonotonicClock clock = now::get;
    private final RecordingListener events = new RecordingListener();

    private void advanceMs(long ms) {
        now.addAndGet(ms * 1_000_000L);
    }

    private long serverMillis() {
        java.util.List<?> t = (java.util.List<?>) raw().call("TIME");
        return Long.parseLong(t.get(0).toString()) * 1000 + Long.parseLong(t.get(1).toString()) / 1000;
    }

    private long activeScore(String id) {
        return (long) Double.parseDouble(raw().call("ZSCORE", "emq:{q}:active", id).toString());
    }

    @Test
    void renewalsAreSentAThirdOfTheLeaseAfterTheClaimAndMoveTheLocalDeadline() {
        Queue q = client(b -> b.clock(clock)).queue("q");
        for (int i = 0; i < 3; i++) {
            q.enqueue("job-" + i);
        }
        List<Job> jobs = q.claim(3, Duration.ofMillis(LEASE_MS));
        LeaseKeeper keeper = new LeaseKeeper("test", org.slf4j.LoggerFactory.getLogger(LeaseKeeperTest.class), LEASE_MS, clock, events);
        jobs.forEach(keeper::track);
        Duration full = Duration.ofNanos(JobLease.validityNanos(LEASE_MS));
        long scoreBefore = activeScore(jobs.get(0).id());

        assertThat(keeper.tick()).as("at the claim").isZero();
        advanceMs(999);
        assertThat(keeper.tick()).as("1 ms before a third of the lease").isZero();
        // the fake clock moves at will, the server's does not: let it pass the claim's millisecond, so
        // that a renewal's deadline (server now + lease) can be seen to move
        long claimedAt = scoreBefore - LEASE_MS;
        await().atMost(WAIT).until(() -> serverMillis() > claimedAt);
        advanceMs(1);
        assertThat(keeper.tick()).as("a third of the lease on: one renewal per job").isEqualTo(3);
        // the answer moves each local deadline to the renewal's send time + lease − drift
        await().atMost(WAIT).until(() -> jobs.stream().allMatch(j -> j.remaining().equals(full)));
        assertThat(activeScore(jobs.get(0).id())).as("the server's deadline moved too").isGreaterThan(scoreBefore);

        advanceMs(500);
        assertThat(keeper.tick()).as("half way to the next renewal").isZero();
        advanceMs(500);
        assertThat(keeper.tick()).isEqualTo(3);
        assertThat(events.lost()).isEmpty();

        keeper.untrack(jobs.get(2));
        advanceMs(1000);
        assertThat(keeper.tick()).as("an untracked job is not renewed").isEqualTo(2);
    }

    @Test
    void theLocalDeadlineCountsALeaseLostOnceAndItIsNoLongerRenewed() {
        Queue q = client(b -> b.clock(clock)).queue("q");
        q.enqueue("a");
        q.enqueue("b");
        List<Job> jobs = q.claim(2, Duration.ofMillis(LEASE_MS));
        LeaseKeeper keeper = new LeaseKeeper("test", org.slf4j.LoggerFactory.getLogger(LeaseKeeperTest.class), LEASE_MS, clock, events);
        jobs.forEach(keeper::track);

        // no tick ran for a whole lease (a paused process): the next one finds both deadlines passed
        advanceMs(LEASE_MS);
        assertThat(keeper.tick()).as("nothing renewed").isZero();
        assertThat(jobs).allMatch(j -> j.lossReason().orElse(null) == LeaseLossReason.DEADLINE_PASSED);
        assertThat(events.lost()).extracting(RecordingListener.Lost::reason)
                .containsExactly(LeaseLossReason.DEADLINE_PASSED, LeaseLossReason.DEADLINE_PASSED);

        advanceMs(LEASE_MS);
        assertThat(keeper.tick()).as("a lost lease is never renewed").isZero();
        assertThat(jobs.get(0).leaseLost()).isTrue();
        assertThat(events.lost()).as("reported once").hasSize(2);
    }

    @Test
    void aRefusedRenewalIsReportedOnceWithTheServersReason() {
        Queue q = client(b -> b.clock(clock)).queue("q");
        q.enqueue("kept");
        q.enqueue("taken");
        List<Job> jobs = q.claim(2, Duration.ofMillis(LEASE_MS));
        LeaseKeeper keeper = new LeaseKeeper("test", org.slf4j.LoggerFactory.getLogger(LeaseKeeperTest.class), LEASE_MS, clock, events);
        jobs.forEach(keeper::track);
        Job taken = jobs.get(1);
        raw().call("HINCRBY", "emq:{q}:job:" + taken.id(), "attempts", "1");

        advanceMs(LEASE_MS / 3);
        assertThat(keeper.tick()).isEqualTo(2);
        await().atMost(WAIT).until(() -> !events.lost().isEmpty());
        assertThat(events.lost()).extracting(RecordingListener.Lost::id).containsExactly(taken.id());
        assertThat(events.lost().get(0).reason()).isEqualTo(LeaseLossReason.SUPERSEDED);
        assertThat(jobs.get(0).isHeld()).isTrue();

        advanceMs(LEASE_MS / 3);
        assertThat(keeper.tick()).as("only the kept job").isEqualTo(1);
        assertThat(events.lost()).hasSize(1);
    }

    @Test
    void aLateTickMakesTheNextRenewalsComeSoonerThanAThirdOfTheLease() {
        Queue q = client(b -> b.clock(clock)).queue("q");
        q.enqueue("a");
        List<Job> jobs = q.claim(1, Duration.ofMillis(LEASE_MS));
        LeaseKeeper keeper = new LeaseKeeper("test", org.slf4j.LoggerFactory.getLogger(LeaseKeeperTest.class), LEASE_MS, clock, events);
        jobs.forEach(keeper::track);

        assertThat(keeper.scheduledTick()).as("at the claim").isZero();   // ticks every 500 ms
        advanceMs(1400);
        assertThat(keeper.scheduledTick()).as("the next tick, 900 ms late, renews").isEqualTo(1);
        advanceMs(500);
        // on time the next renewal would be 1000 ms on; a starved keeper renews at twice the pace
        assertThat(keeper.scheduledTick()).as("half a third of the lease after the late renewal").isEqualTo(1);
        assertThat(events.lost()).isEmpty();
    }
}
