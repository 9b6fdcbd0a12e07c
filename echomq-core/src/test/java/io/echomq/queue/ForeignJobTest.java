package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Jobs written by another client with plain commands (the minimal wire contract: a hash with
 * payload, attempts 0 and state pending, plus an id at the back of the wait LIST, or a pending
 * ZSET entry as an older version wrote them) are first-class jobs with the documented defaults:
 * 3 attempts, 1 s backoff.
 */
@Timeout(60)
class ForeignJobTest extends SemanticsTestBase {
    /** These tests read completed jobs' hashes: the test client keeps them for an hour. */
    @Override
    Duration retainCompleted() {
        return Duration.ofHours(1);
    }


    /** Writes a job the way a client in another language would. */
    private void writeForeign(String id, String payload, long score) {
        raw().call("HSET", jobKey(id), "payload", payload, "attempts", "0", "state", "pending");
        raw().call("ZADD", PENDING, Long.toString(score), id);
    }

    /** Writes a priority-0 job the way the protocol asks today: RPUSH on the wait LIST. */
    private void writeForeignWaiting(String id, String payload) {
        raw().call("HSET", jobKey(id), "payload", payload, "attempts", "0", "state", "pending");
        raw().call("RPUSH", WAIT_LIST, id);
    }

    @Test
    void foreignJobsAreClaimedInScoreOrderAndCompleted() {
        writeForeign("5001", "héllo wörld", 20);
        writeForeign("5000", "{\"n\":1}", 10);

        Job first = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(first.id()).isEqualTo("5000");
        assertThat(first.payloadUtf8()).isEqualTo("{\"n\":1}");
        assertThat(first.attempt()).isEqualTo(1);
        assertThat(first.spentAttempts()).isEqualTo(1);
        assertThat(first.maxAttempts()).isEqualTo(EnqueueOptions.DEFAULT_MAX_ATTEMPTS);
        assertThat(hash("5000")).containsEntry("state", "active").containsEntry("score", "10");
        assertThat(exists(lockKey("5000"))).as("no lock subkey in the LIST layout").isFalse();
        assertThat(first.complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThat(field("5000", "state")).isEqualTo("done");

        Job second = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(second.payload()).isEqualTo("héllo wörld".getBytes(StandardCharsets.UTF_8));
        assertThat(second.complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThat(queue.stats().completed()).isEqualTo(2);
    }

    @Test
    void aHashWithOnlyAPayloadIsEnough() {
        raw().call("HSET", jobKey("x1"), "payload", "bare");
        raw().call("ZADD", PENDING, "1", "x1");
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(job.id()).isEqualTo("x1");
        assertThat(job.attempt()).isEqualTo(1);
        assertThat(job.maxAttempts()).isEqualTo(3);
        assertThat(job.fail("boom")).isEqualTo(SettleOutcome.RETRYING);
    }

    @Test
    void foreignJobsFailWithTheDefaultBackoffAndAttempts() {
        writeForeign("7000", "p", 1);
        long[] fullDelays = {1000, 2000};
        for (int attempt = 1; attempt <= 2; attempt++) {
            Job job = queue.claim(LONG_LEASE).orElseThrow();
            assertThat(job.attempt()).isEqualTo(attempt);
            long t0 = serverMillis();
            assertThat(job.fail("boom " + attempt)).isEqualTo(SettleOutcome.RETRYING);
            long t1 = serverMillis();
            long d = fullDelays[attempt - 1];
            assertThat(score(DELAYED, "7000")).isBetween(t0 + d / 2, t1 + d);
            assertThat(field("7000", "last_error")).isEqualTo("boom " + attempt);
            makeDue("7000");
        }
        Job last = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(last.attempt()).isEqualTo(3);
        assertThat(last.fail("boom 3")).isEqualTo(SettleOutcome.DEAD);
        assertThat(field("7000", "dead_reason")).isEqualTo("failed on attempt 3 of 3");
        assertThat(queue.dead(10)).extracting(DeadJob::id).containsExactly("7000");
    }

    @Test
    void foreignJobsAreReapedBackToTheirPlaceAndDieAfterThreeExpiries() {
        writeForeignWaiting("8000", "p");
        writeForeignWaiting("8001", "q");
        Job held = queue.claim(Duration.ofMillis(50)).orElseThrow();
        assertThat(held.id()).isEqualTo("8000");
        awaitLeaseExpired("8000");
        assertThat(queue.reap(10)).isEqualTo(new ReapResult(1, 0));
        assertThat(field("8000", "state")).isEqualTo("pending");
        assertThat(waiting()).as("back at the front of the wait LIST").containsExactly("8000", "8001");

        for (int attempt = 2; attempt <= 3; attempt++) {
            Job job = queue.claim(Duration.ofMillis(50)).orElseThrow();
            assertThat(job.id()).isEqualTo("8000");
            assertThat(job.attempt()).isEqualTo(attempt);
            awaitLeaseExpired("8000");
            assertThat(queue.reap(10)).isEqualTo(attempt < 3 ? new ReapResult(1, 0) : new ReapResult(0, 1));
        }
        assertThat(field("8000", "dead_reason")).isEqualTo("lease expired on 3 of 3 attempts");
        assertThat(pendingIds()).containsExactly("8001");
    }

    @Test
    void foreignFieldsForOptionsAreHonoured() {
        raw().call("HSET", jobKey("9000"), "payload", "p", "attempts", "0", "state", "pending",
                "max_attempts", "1", "backoff_ms", "100");
        raw().call("ZADD", PENDING, "1", "9000");
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(job.maxAttempts()).isEqualTo(1);
        assertThat(job.fail("once")).isEqualTo(SettleOutcome.DEAD);
        assertThat(field("9000", "dead_reason")).isEqualTo("failed on attempt 1 of 1");
    }
}
