package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pending layout (docs/protocol.md, "Pending: the wait LIST and the pending ZSET"): priority-0
 * jobs wait in the LIST {@code emq:{q}:wait}, every other priority in the pending ZSET, and a claim
 * takes priority &gt; 0, then priority-0 entries an older version left in the ZSET, then the LIST,
 * then priority &lt; 0. Every layout assertion reads Redis raw.
 */
@Timeout(60)
class WaitListTest extends SemanticsTestBase {
    private static final Duration SHORT = Duration.ofMillis(60);

    private String enqueue(String payload, int priority) {
        return queue.enqueue(payload.getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withPriority(priority)).id();
    }

    private List<String> claimAllIds() {
        List<String> out = new ArrayList<>();
        List<Job> batch;
        while (!(batch = queue.claim(3, LONG_LEASE)).isEmpty()) {
            batch.forEach(j -> out.add(j.id()));
        }
        return out;
    }

    /** A priority-0 job as a version before the LIST wrote it: a hash and a ZSET entry scored seq. */
    private void writeLegacy(String id, long score) {
        raw().call("HSET", jobKey(id), "payload", "legacy-" + id);
        raw().call("ZADD", PENDING, Long.toString(score), id);
    }

    @Test
    void priorityZeroIsFifoThroughTheListWhateverTheWayItWasEnqueued() {
        List<String> ids = new ArrayList<>();
        ids.add(queue.enqueue("single-1"));
        queue.enqueueAll(List.of(JobRequest.of("bulk-1"), JobRequest.of("bulk-2"), JobRequest.of("bulk-3")))
                .forEach(r -> ids.add(r.id()));
        ids.add(enqueue("single-2", 0));

        assertThat(waiting()).containsExactlyElementsOf(ids);
        assertThat(card(PENDING)).as("nothing of priority 0 in the ZSET").isZero();
        assertThat(raw().call("TYPE", WAIT_LIST)).isEqualTo("list");
        assertThat(claimAllIds()).containsExactlyElementsOf(ids);
        assertThat(raw().call("EXISTS", WAIT_LIST)).as("an empty LIST is no key").isEqualTo(0L);
    }

    @Test
    void mixedPrioritiesClaimHigherFirstThenTheListThenLower() {
        String zero1 = enqueue("zero-1", 0);
        String minus1 = enqueue("minus-1", -1);
        String three1 = enqueue("three-1", 3);
        String zero2 = enqueue("zero-2", 0);
        String one = enqueue("one", 1);
        String minus5 = enqueue("minus-5", -5);
        String three2 = enqueue("three-2", 3);
        String zero3 = enqueue("zero-3", 0);

        assertThat(waiting()).containsExactly(zero1, zero2, zero3);
        assertThat(members(PENDING)).containsExactly(three1, three2, one, minus1, minus5);
        assertThat(pendingIds()).containsExactly(three1, three2, one, zero1, zero2, zero3, minus1, minus5);
        assertThat(claimAllIds()).containsExactly(three1, three2, one, zero1, zero2, zero3, minus1, minus5);
    }

    @Test
    void aLegacyPriorityZeroZsetEntryIsClaimedAfterHigherPrioritiesAndBeforeTheList() {
        // an older version's queue, then this version's enqueues on top of it (no migration step)
        writeLegacy("1", 1);
        writeLegacy("2", 2);
        raw().call("SET", P + "seq", "2");
        String listed = enqueue("listed", 0);
        String high = enqueue("high", 2);
        String low = enqueue("low", -2);

        assertThat(queue.stats().pending()).as("ZCARD + LLEN").isEqualTo(5);
        assertThat(pendingIds()).containsExactly(high, "1", "2", listed, low);
        List<Job> jobs = queue.claim(5, LONG_LEASE);
        assertThat(jobs).extracting(Job::id).containsExactly(high, "1", "2", listed, low);
        assertThat(jobs.get(1).payloadUtf8()).isEqualTo("legacy-1");
        assertThat(jobs).allSatisfy(j -> assertThat(j.complete()).isEqualTo(SettleOutcome.COMPLETED));
        assertThat(pendingCount()).isZero();
    }

    @Test
    void aReapedLegacyEntryMovesToTheFrontOfTheList() {
        writeLegacy("1", 1);
        raw().call("SET", P + "seq", "1");
        String listed = enqueue("listed", 0);
        Job legacy = queue.claim(SHORT).orElseThrow();
        assertThat(legacy.id()).isEqualTo("1");
        awaitLeaseExpired("1");

        assertThat(queue.reap(10)).isEqualTo(new ReapResult(1, 0));
        assertThat(card(PENDING)).isZero();
        assertThat(waiting()).containsExactly("1", listed);
    }

    @Test
    void anExpiredPriorityZeroLeaseGoesBackToTheFrontOfTheList() {
        String first = queue.enqueue("first");
        String second = queue.enqueue("second");
        String third = queue.enqueue("third");
        Job job = queue.claim(SHORT).orElseThrow();
        assertThat(job.id()).isEqualTo(first);
        assertThat(waiting()).containsExactly(second, third);
        awaitLeaseExpired(first);

        assertThat(queue.reap(10)).isEqualTo(new ReapResult(1, 0));
        assertThat(waiting()).as("LPUSH: older than anything waiting").containsExactly(first, second, third);
        assertThat(queue.claim(LONG_LEASE).orElseThrow().id()).isEqualTo(first);
    }

    @Test
    void aReturnedPriorityZeroLeaseGoesBackToTheFrontOfTheList() {
        String first = queue.enqueue("first");
        String second = queue.enqueue("second");
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        String third = queue.enqueue("third");

        assertThat(job.returnLease()).isEqualTo(SettleOutcome.RETURNED);
        assertThat(waiting()).containsExactly(first, second, third);
    }

    @Test
    void promotionAndRedriveGoToTheBackOfTheList() {
        String delayed = queue.enqueue("delayed".getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withDelay(Duration.ofSeconds(1))).id();
        String doomed = queue.enqueue("doomed".getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withMaxAttempts(1)).id();
        assertThat(queue.claim(LONG_LEASE).orElseThrow().fail("boom")).isEqualTo(SettleOutcome.DEAD);
        String waitingId = queue.enqueue("waiting");
        awaitServerTimePast(score(DELAYED, delayed));

        assertThat(queue.promote(10)).isEqualTo(1);
        assertThat(waiting()).as("promoted: RPUSH, behind what waits").containsExactly(waitingId, delayed);
        assertThat(queue.redrive(10)).isEqualTo(1);
        assertThat(waiting()).as("redriven: RPUSH").containsExactly(waitingId, delayed, doomed);
        assertThat(card(PENDING)).isZero();
    }

    @Test
    void removeOfAListEntryTakesItOutOfTheList() {
        String a = queue.enqueue("a");
        String b = queue.enqueue("b");
        String c = queue.enqueue("c");

        assertThat(queue.remove(b, false)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(waiting()).containsExactly(a, c);
        assertThat(exists(jobKey(b))).isFalse();
        assertThat(queue.remove(b, false)).isEqualTo(RemoveOutcome.MISSING);
        assertThat(queue.stats().pending()).isEqualTo(2);
        assertThat(claimAllIds()).containsExactly(a, c);
    }

    @Test
    void statsCountTheListAndTheZset() {
        enqueue("zero-1", 0);
        enqueue("zero-2", 0);
        enqueue("high", 4);
        enqueue("low", -4);
        writeLegacy("legacy", 1);

        QueueStats s = queue.stats();
        assertThat(s.pending()).isEqualTo(5).isEqualTo(pendingCount());
        queue.claim(2, LONG_LEASE);
        assertThat(queue.stats().pending()).isEqualTo(3);
        assertThat(queue.stats().active()).isEqualTo(2);
    }
}
