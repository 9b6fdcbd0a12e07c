package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The per-job lock subkey by layout (docs/protocol.md, "Keys" and "Pending layouts"): the LIST
 * layout writes none, and its running lease is its score in active, which remove refuses by; the
 * ZSET layout keeps the subkey at claim, extend and settle.
 */
@Timeout(60)
class LeaseSubkeyLayoutTest extends SemanticsTestBase {
    /** Its tests remove jobs after they settled, which needs their hashes kept. */
    @Override
    java.time.Duration retainCompleted() {
        return java.time.Duration.ofHours(1);
    }


    /** Every key of the keyspace that names a job's lock subkey. */
    private List<?> lockKeys() {
        return (List<?>) raw().call("KEYS", P + "job:*:lock");
    }

    @Test
    void theListLayoutWritesNoSubkeyAndRemoveRefusesWhileTheLeaseRuns() {
        String id = queue.enqueue("x");
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(lockKeys()).as("no lock subkey for an active job").isEmpty();
        assertThat(job.extend(LONG_LEASE)).isTrue();
        assertThat(lockKeys()).as("extend writes none either").isEmpty();

        Map<String, Object> before = snapshot();
        assertThat(queue.remove(id, false)).isEqualTo(RemoveOutcome.LOCKED);
        assertThat(snapshot()).as("a refused remove changes nothing").isEqualTo(before);
        JobLock lock = JobLock.read(queue, id);
        assertThat(lock.held()).isTrue();
        assertThat(lock.attempt()).isEqualTo(1);
        assertThat(lock.ttlMillis()).isBetween(1L, LONG_LEASE.toMillis());

        assertThat(job.complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThat(JobLock.read(queue, id).held()).isFalse();
        assertThat(queue.remove(id, false)).as("a settled job").isEqualTo(RemoveOutcome.REMOVED);
    }

    @Test
    void theListLayoutRemovesOnceTheLeaseRanOut() {
        String id = queue.enqueue("x");
        queue.claim(Duration.ofMillis(300)).orElseThrow();
        assertThat(lockKeys()).isEmpty();
        awaitLeaseExpired(id);
        assertThat(JobLock.read(queue, id)).isEqualTo(new JobLock(false, -1, -2));
        assertThat(queue.remove(id, false)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(card(ACTIVE)).isZero();
    }

    @Test
    void removeRefusesARunningLeaseWithNoSubkeyUnlessForced() {
        String id = queue.enqueue("x");
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        raw().call("DEL", lockKey(id));   // as when the claim ran under the LIST layout
        assertThat(queue.remove(id, false)).isEqualTo(RemoveOutcome.LOCKED);
        assertThat(score(ACTIVE, id)).isNotNull();

        assertThat(queue.remove(id, true)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(card(ACTIVE)).isZero();
        assertThat(exists(jobKey(id))).isFalse();
        assertThat(job.complete()).isEqualTo(SettleOutcome.LEASE_LOST);
    }

    @Test
    void aJobClaimedUnderTheListLayoutGetsNoSubkeyFromAnExtendUnderTheZsetLayout() {
        String id = queue.enqueue("x");
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        queue.setLayout(QueueLayout.ZSET);
        assertThat(job.extend(LONG_LEASE)).isTrue();
        assertThat(lockKeys()).isEmpty();
        assertThat(queue.remove(id, false)).as("refused by its lease in active").isEqualTo(RemoveOutcome.LOCKED);
        assertThat(job.complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThat(queue.remove(id, false)).isEqualTo(RemoveOutcome.REMOVED);
    }

    @Test
    void theZsetLayoutKeepsTheSubkeyFromClaimToSettle() {
        queue.setLayout(QueueLayout.ZSET);
        String id = queue.enqueue("x");
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(get(lockKey(id))).isEqualTo("1");
        assertThat(pttl(lockKey(id))).isBetween(1L, LONG_LEASE.toMillis());
        assertThat(job.extend(Duration.ofMinutes(5))).isTrue();
        assertThat(pttl(lockKey(id))).as("extend moves the subkey with the lease").isGreaterThan(LONG_LEASE.toMillis());
        assertThat(queue.remove(id, false)).isEqualTo(RemoveOutcome.LOCKED);
        assertThat(job.complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThat(exists(lockKey(id))).isFalse();
    }

    @Test
    void aSubkeyFromTheZsetLayoutFollowsItsLeaseUnderTheListLayoutAndEndsWithIt() {
        queue.setLayout(QueueLayout.ZSET);
        String id = queue.enqueue("x");
        Job job = queue.claim(Duration.ofMillis(400)).orElseThrow();
        queue.setLayout(QueueLayout.LIST);
        assertThat(job.extend(Duration.ofMillis(400))).isTrue();
        long deadline = score(ACTIVE, id);
        assertThat(pttl(lockKey(id))).isBetween(1L, 400L);
        assertThat(queue.remove(id, false)).isEqualTo(RemoveOutcome.LOCKED);
        awaitServerTimePast(deadline);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> get(lockKey(id)) == null);
        assertThat(queue.remove(id, false)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(lockKeys()).isEmpty();
    }
}
