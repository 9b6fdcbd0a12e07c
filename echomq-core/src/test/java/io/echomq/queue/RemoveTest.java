package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** remove(id, force): wherever the job is, all its keys go; a held lock refuses unless forced. */
@Timeout(60)
class RemoveTest extends SemanticsTestBase {
    /** These tests read completed jobs' hashes: the test client keeps them for an hour. */
    @Override
    Duration retainCompleted() {
        return Duration.ofHours(1);
    }

    private static final String SEQ = P + "seq";

    private String enqueue(String payload, EnqueueOptions options) {
        return queue.enqueue(payload.getBytes(StandardCharsets.UTF_8), options).id();
    }

    /**
     * After a remove, only the sequence and the protocol mark (and the counters, the error groups
     * and the events stream, if any) may be left.
     */
    private void assertOnlyQueueBookkeepingLeft() {
        assertThat(snapshot().keySet()).isSubsetOf(SEQ, P + "delayed", P + "stats", P + "events", P + "errors",
                P + "errors:seen");
    }

    @Test
    void removePendingDropsHashEntryAndIdempotencyKey() {
        String id = enqueue("x", EnqueueOptions.defaults().withIdempotencyKey("order-1", Duration.ofHours(1)));
        assertThat(get(P + "idem:order-1")).isEqualTo(id);

        assertThat(queue.remove(id, false)).isEqualTo(RemoveOutcome.REMOVED);

        assertThat(exists(jobKey(id))).isFalse();
        assertThat(pendingCount()).isZero();
        assertThat(exists(P + "idem:order-1")).isFalse();
        assertOnlyQueueBookkeepingLeft();

        // the key is free again: the same key enqueues a new job
        EnqueueResult again = queue.enqueue("x".getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withIdempotencyKey("order-1", Duration.ofHours(1)));
        assertThat(again.created()).isTrue();
        assertThat(again.id()).isNotEqualTo(id);
    }

    @Test
    void removeDelayed() {
        String id = enqueue("x", EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));
        assertThat(queue.remove(id, false)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(card(DELAYED)).isZero();
        assertOnlyQueueBookkeepingLeft();
    }

    @Test
    void removeDead() {
        String id = enqueue("x", EnqueueOptions.defaults());
        assertThat(queue.claim(LONG_LEASE).orElseThrow().failWithoutRetry("no")).isEqualTo(SettleOutcome.DEAD);
        assertThat(queue.remove(id, false)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(card(DEAD)).isZero();
        assertOnlyQueueBookkeepingLeft();
        assertThat(queue.dead(10)).isEmpty();
    }

    @Test
    void removeDone() {
        String id = enqueue("x", EnqueueOptions.defaults());
        assertThat(queue.claim(LONG_LEASE).orElseThrow().complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThat(field(id, "state")).isEqualTo("done");
        assertThat(queue.remove(id, false)).isEqualTo(RemoveOutcome.REMOVED);
        assertOnlyQueueBookkeepingLeft();
        assertThat(queue.inspect(id)).isEmpty();
    }

    @Test
    void aClaimedJobIsLockedUnlessForced() {
        String id = enqueue("x", EnqueueOptions.defaults().withIdempotencyKey("k", Duration.ofHours(1)));
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        Map<String, Object> before = snapshot();

        assertThat(queue.remove(id, false)).isEqualTo(RemoveOutcome.LOCKED);
        assertThat(snapshot()).as("a refused remove changes nothing").isEqualTo(before);
        assertThat(score(ACTIVE, id)).as("refused by the lease in active").isGreaterThan(serverMillis());
        assertThat(exists(lockKey(id))).as("no lock subkey in the LIST layout").isFalse();

        assertThat(queue.remove(id, true)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(card(ACTIVE)).isZero();
        assertThat(exists(lockKey(id))).isFalse();
        assertThat(exists(P + "idem:k")).isFalse();
        assertOnlyQueueBookkeepingLeft();

        assertThat(job.complete()).isEqualTo(SettleOutcome.LEASE_LOST);
        assertThat(job.lossReason()).contains(LeaseLossReason.MISSING);
    }

    @Test
    void aClaimedJobWhoseLockExpiredIsRemovable() {
        String id = enqueue("x", EnqueueOptions.defaults());
        queue.claim(Duration.ofMillis(50)).orElseThrow();
        awaitLeaseExpired(id);
        await().atMost(Duration.ofSeconds(5)).until(() -> !exists(lockKey(id)));
        assertThat(queue.remove(id, false)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(card(ACTIVE)).isZero();
        assertOnlyQueueBookkeepingLeft();
    }

    @Test
    void unknownIdIsMissingAndNothingIsWritten() {
        assertThat(queue.remove("12345", false)).isEqualTo(RemoveOutcome.MISSING);
        assertThat(queue.remove("12345", true)).isEqualTo(RemoveOutcome.MISSING);
        assertThat(dbSize()).isZero();

        String other = queue.enqueue("stays");
        Map<String, Object> before = snapshot();
        assertThat(queue.remove("999", false)).isEqualTo(RemoveOutcome.MISSING);
        assertThat(snapshot()).isEqualTo(before);
        assertThat(queue.remove(other, false)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(queue.remove(other, false)).as("twice").isEqualTo(RemoveOutcome.MISSING);
    }

    @Test
    void anIdempotencyKeyNowNamingAnotherJobIsKept() {
        String first = enqueue("first", EnqueueOptions.defaults().withIdempotencyKey("k", Duration.ofMillis(50)));
        await().atMost(Duration.ofSeconds(5)).until(() -> !exists(P + "idem:k"));
        EnqueueResult second = queue.enqueue("second".getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withIdempotencyKey("k", Duration.ofHours(1)));
        assertThat(second.created()).isTrue();

        assertThat(queue.remove(first, false)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(get(P + "idem:k")).as("the key belongs to the second job").isEqualTo(second.id());
        assertThat(stateOf(second.id())).isEqualTo("pending");
    }

    @Test
    void anEntryWithoutAHashIsRemovedToo() {
        raw().call("ZADD", PENDING, "1", "orphan");
        raw().call("SET", jobKey("stringy"), "junk");
        raw().call("ZADD", DEAD, "1", "stringy");
        assertThat(queue.remove("orphan", false)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(queue.remove("stringy", false)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(raw().call("XLEN", P + "events")).as("one removed event each").isEqualTo(2L);
        raw().call("DEL", P + "events");
        assertThat(dbSize()).isZero();
    }

    @Test
    void badIdsAreRejected() {
        assertThatThrownBy(() -> queue.remove(null, false)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> queue.remove("", false)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> queue.remove("1".repeat(1025), true)).isInstanceOf(IllegalArgumentException.class);
    }
}
