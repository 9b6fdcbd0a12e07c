package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** stats(): one consistent snapshot of the counts, matching the raw sets; overdue counts expired leases. */
@Timeout(60)
class StatsTest extends SemanticsTestBase {

    private Job claim(String id, Duration lease) {
        Job job = queue.claim(lease).orElseThrow();
        assertThat(job.id()).isEqualTo(id);
        return job;
    }

    private void assertMatchesRawSets(QueueStats s) {
        assertThat(s.pending()).isEqualTo(pendingCount());
        assertThat(s.active()).isEqualTo(card(ACTIVE));
        assertThat(s.delayed()).isEqualTo(card(DELAYED));
        assertThat(s.dead()).isEqualTo(card(DEAD));
    }

    @Test
    void anEmptyQueueIsDrainedAndAllZero() {
        QueueStats s = queue.stats();
        assertThat(s).isEqualTo(new QueueStats(0, 0, 0, 0, 0, 0, 0));
        assertThat(s.drained()).isTrue();
        assertThat(dbSize()).as("reading stats writes nothing").isZero();
    }

    @Test
    void countsFollowAMixOfOperations() {
        String completed = queue.enqueue("completed");
        String retried = queue.enqueue("retried");
        String killed = queue.enqueue("killed");
        String overdue = queue.enqueue("overdue");
        String returned = queue.enqueue("returned");
        String waiting = queue.enqueue("waiting");
        queue.enqueue("later".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));
        assertThat(queue.stats()).isEqualTo(new QueueStats(6, 0, 1, 0, 0, 0, 0));

        assertThat(claim(completed, LONG_LEASE).complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThat(claim(retried, LONG_LEASE).fail("boom")).isEqualTo(SettleOutcome.RETRYING);
        assertThat(claim(killed, LONG_LEASE).failWithoutRetry("fatal")).isEqualTo(SettleOutcome.DEAD);
        Job expiring = claim(overdue, Duration.ofMillis(50));
        Job giveBack = claim(returned, LONG_LEASE);

        QueueStats s = queue.stats();
        // pending: waiting; active: overdue-to-be, returned; delayed: later, retried; dead: killed
        assertThat(s).isEqualTo(new QueueStats(1, 2, 2, 1, 1, 2, s.overdue()));
        assertMatchesRawSets(s);
        assertThat(s.drained()).isFalse();

        assertThat(giveBack.returnLease()).isEqualTo(SettleOutcome.RETURNED);
        awaitLeaseExpired(overdue);
        s = queue.stats();
        assertThat(s).as("an expired lease is still active, and overdue")
                .isEqualTo(new QueueStats(2, 1, 2, 1, 1, 2, 1));
        assertMatchesRawSets(s);

        assertThat(queue.reap(10)).isEqualTo(new ReapResult(1, 0));
        assertThat(expiring.isSettled()).isFalse();
        s = queue.stats();
        assertThat(s).isEqualTo(new QueueStats(3, 0, 2, 1, 1, 2, 0));
        assertMatchesRawSets(s);
        assertThat(pendingIds()).containsExactly(overdue, returned, waiting);
    }

    @Test
    void overdueCountsOnlyExpiredLeases() {
        for (int i = 0; i < 4; i++) {
            queue.enqueue("j" + i);
        }
        List<Job> shortLeases = queue.claim(3, Duration.ofMillis(50));
        queue.claim(LONG_LEASE).orElseThrow();
        shortLeases.forEach(j -> awaitLeaseExpired(j.id()));
        QueueStats s = queue.stats();
        assertThat(s.active()).isEqualTo(4);
        assertThat(s.overdue()).isEqualTo(3);
    }

    @Test
    void completedAndFailedAreLifetimeCounters() {
        Queue kept = client(b -> b.retainCompleted(Duration.ofHours(1))).queue("q");   // a done job to remove
        for (int i = 0; i < 3; i++) {
            kept.enqueue("j" + i);
        }
        Job a = kept.claim(LONG_LEASE).orElseThrow();
        Job b = a.completeAndClaimNext(LONG_LEASE).orElseThrow();
        assertThat(b.fail("once")).isEqualTo(SettleOutcome.RETRYING);
        Job c = kept.claim(LONG_LEASE).orElseThrow();
        assertThat(c.complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThat(kept.remove(a.id(), false)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(kept.purgeDead(10)).isZero();

        QueueStats s = kept.stats();
        assertThat(s.completed()).as("removing a done job does not uncount it").isEqualTo(2);
        assertThat(s.failed()).isEqualTo(1);
        assertThat(field(b.id(), "state")).isEqualTo("delayed");
        assertThat(raw().call("HGET", P + "stats", "completed")).isEqualTo("2");
        assertThat(raw().call("HGET", P + "stats", "failed")).isEqualTo("1");
    }

    @Test
    void refusedCallsAreNotCounted() {
        String a = queue.enqueue("a");
        String b = queue.enqueue("b");
        Job jobA = claim(a, Duration.ofMillis(50));
        Job jobB = claim(b, Duration.ofMillis(50));
        awaitLeaseExpired(a);
        awaitLeaseExpired(b);
        assertThat(jobA.complete()).isEqualTo(SettleOutcome.LEASE_LOST);
        assertThat(jobB.fail("late")).isEqualTo(SettleOutcome.LEASE_LOST);
        assertThat(queue.stats()).isEqualTo(new QueueStats(0, 2, 0, 0, 0, 0, 2));
    }
}
