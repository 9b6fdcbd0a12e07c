package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Failure, backoff, the dead set and its operator calls (dead, redrive, purgeDead). */
@Timeout(60)
class RetryTest extends SemanticsTestBase {

    private String enqueue(String payload, EnqueueOptions options) {
        return queue.enqueue(payload.getBytes(StandardCharsets.UTF_8), options).id();
    }

    /** Claims the job that must be next. */
    private Job claim(String id) {
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(job.id()).isEqualTo(id);
        return job;
    }

    /** Enqueues a job and sends it to dead at once; returns after the server clock moved on a ms. */
    private String dies(String payload) {
        String id = enqueue(payload, EnqueueOptions.defaults());
        assertThat(claim(id).failWithoutRetry("fatal " + payload)).isEqualTo(SettleOutcome.DEAD);
        awaitServerTimePast(score(DEAD, id));
        return id;
    }

    @Test
    void failWaitsInDelayedForHalfToAllOfTheBackoff() {
        String id = enqueue("x", EnqueueOptions.defaults());
        Job job = claim(id);
        long t0 = serverMillis();
        assertThat(job.fail("boom")).isEqualTo(SettleOutcome.RETRYING);
        long t1 = serverMillis();

        assertThat(job.outcome()).contains(SettleOutcome.RETRYING);
        assertThat(job.leaseLost()).isFalse();
        // the default backoff is 1 s: the first retry waits 500..1000 ms
        assertThat(score(DELAYED, id)).isBetween(t0 + 500, t1 + 1000);
        assertThat(hash(id)).containsEntry("state", "delayed").containsEntry("last_error", "boom")
                .containsEntry("attempts", "1").containsEntry("spent", "1");
        assertThat(card(ACTIVE)).isZero();
        assertThat(pendingCount()).isZero();
        assertThat(exists(lockKey(id))).isFalse();
        assertThat(queue.stats().failed()).isEqualTo(1);
        long due = score(DELAYED, id);
        boolean claimed = queue.claim(LONG_LEASE).isPresent();
        long after = serverMillis();
        assertThat(claimed && after < due).as("claimed before due").isFalse();
    }

    @Test
    void theDelayIsJitteredInsideItsRange() {
        EnqueueOptions options = EnqueueOptions.defaults().withBackoff(Duration.ofSeconds(10), Duration.ofHours(1));
        long minDelay = Long.MAX_VALUE;
        long maxDelay = Long.MIN_VALUE;
        for (int i = 0; i < 20; i++) {
            String id = enqueue("j" + i, options);
            Job job = claim(id);
            long t0 = serverMillis();
            assertThat(job.fail("boom")).isEqualTo(SettleOutcome.RETRYING);
            long t1 = serverMillis();
            long due = score(DELAYED, id);
            assertThat(due).isBetween(t0 + 5_000, t1 + 10_000);
            minDelay = Math.min(minDelay, due - t0);
            maxDelay = Math.max(maxDelay, due - t1);
        }
        // 20 uniform draws over 5 s: they are not all the same delay
        assertThat(maxDelay - minDelay).isPositive();
    }

    @Test
    void backoffGrowsExponentiallyUpToItsCap() {
        String id = enqueue("x", EnqueueOptions.defaults().withMaxAttempts(6)
                .withBackoff(Duration.ofSeconds(1), Duration.ofSeconds(5)));
        long[] fullDelays = {1000, 2000, 4000, 5000, 5000};
        for (int attempt = 1; attempt <= 5; attempt++) {
            Job job = claim(id);
            assertThat(job.attempt()).isEqualTo(attempt);
            assertThat(job.spentAttempts()).isEqualTo(attempt);
            long t0 = serverMillis();
            assertThat(job.fail("boom " + attempt)).isEqualTo(SettleOutcome.RETRYING);
            long t1 = serverMillis();
            long d = fullDelays[attempt - 1];
            assertThat(score(DELAYED, id)).as("retry after attempt %d", attempt).isBetween(t0 + d / 2, t1 + d);
            makeDue(id);
        }
        Job last = claim(id);
        assertThat(last.attempt()).isEqualTo(6);
        assertThat(last.fail("boom 6")).isEqualTo(SettleOutcome.DEAD);
        assertThat(field(id, "dead_reason")).isEqualTo("failed on attempt 6 of 6");
    }

    @Test
    void aRetryBecomesClaimableOnceItsBackoffIsDue() {
        String id = enqueue("x", EnqueueOptions.defaults().withBackoff(Duration.ofMillis(100), Duration.ofMillis(100)));
        assertThat(claim(id).fail("boom")).isEqualTo(SettleOutcome.RETRYING);
        long due = score(DELAYED, id);
        awaitServerTimePast(due);
        Job again = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(again.id()).isEqualTo(id);
        assertThat(again.attempt()).isEqualTo(2);
        assertThat(field(id, "last_error")).as("kept while it runs again").isEqualTo("boom");
    }

    @Test
    void afterMaxAttemptsTheJobIsDeadWithReasonAndLastError() {
        String id = enqueue("x", EnqueueOptions.defaults());
        for (int attempt = 1; attempt <= 2; attempt++) {
            assertThat(claim(id).fail("boom " + attempt)).isEqualTo(SettleOutcome.RETRYING);
            makeDue(id);
        }
        Job last = claim(id);
        assertThat(last.spentAttempts()).isEqualTo(3);
        assertThat(last.maxAttempts()).isEqualTo(3);
        long t0 = serverMillis();
        assertThat(last.fail("boom 3")).isEqualTo(SettleOutcome.DEAD);
        long t1 = serverMillis();

        assertThat(hash(id)).containsEntry("state", "dead").containsEntry("dead_reason", "failed on attempt 3 of 3")
                .containsEntry("last_error", "boom 3").containsEntry("attempts", "3");
        assertThat(Long.parseLong(field(id, "finished_at"))).isBetween(t0, t1);
        assertThat(score(DEAD, id)).isBetween(t0, t1);
        assertThat(card(DELAYED)).isZero();
        assertThat(card(ACTIVE)).isZero();
        assertThat(queue.stats().failed()).isEqualTo(3);
        assertThat(queue.stats().dead()).isEqualTo(1);
    }

    @Test
    void failWithoutRetrySendsToDeadAtOnce() {
        String id = enqueue("x", EnqueueOptions.defaults().withMaxAttempts(5));
        assertThat(claim(id).failWithoutRetry("invalid input")).isEqualTo(SettleOutcome.DEAD);
        assertThat(hash(id)).containsEntry("state", "dead")
                .containsEntry("dead_reason", "failed without retry on attempt 1")
                .containsEntry("last_error", "invalid input");
        assertThat(members(DEAD)).containsExactly(id);
        assertThat(card(DELAYED)).isZero();
    }

    @Test
    void nonRetryableExceptionSendsToDeadAtOnceWithItsStackTrace() {
        String id = enqueue("x", EnqueueOptions.defaults().withMaxAttempts(5));
        NonRetryableException error = new NonRetryableException("bad payload");
        assertThat(claim(id).fail(error)).isEqualTo(SettleOutcome.DEAD);
        assertThat(field(id, "dead_reason")).isEqualTo("failed without retry on attempt 1");
        assertThat(field(id, "last_error")).isEqualTo(FailureText.stackTrace(error))
                .startsWith("io.echomq.queue.NonRetryableException: bad payload")
                .contains("\tat io.echomq.queue.RetryTest.");
        assertThat(members(DEAD)).containsExactly(id);
    }

    @Test
    void failWithAThrowableKeepsTheWholeStackTrace() {
        String id = enqueue("x", EnqueueOptions.defaults());
        IllegalStateException error = new IllegalStateException("kaboom", new IOException("disk full"));
        assertThat(claim(id).fail(error)).isEqualTo(SettleOutcome.RETRYING);
        assertThat(field(id, "last_error"))
                .startsWith("java.lang.IllegalStateException: kaboom")
                .contains("\tat io.echomq.queue.RetryTest.failWithAThrowableKeepsTheWholeStackTrace")
                .contains("Caused by: java.io.IOException: disk full");
    }

    @Test
    void errorTextIsBoundedAndNullIsEmpty() {
        String big = enqueue("big", EnqueueOptions.defaults());
        String none = enqueue("none", EnqueueOptions.defaults());
        assertThat(claim(big).fail("e".repeat(20_000))).isEqualTo(SettleOutcome.RETRYING);
        assertThat(claim(none).fail((String) null)).isEqualTo(SettleOutcome.RETRYING);
        assertThat(field(big, "last_error")).startsWith("e".repeat(16 * 1024) + "\n")
                .hasSize(16 * 1024 + "\n… (truncated)".length());
        assertThat(field(none, "last_error")).isEmpty();
    }

    @Test
    void deadListsTheOldestFirstWithTheirDetails() {
        String a = dies("a");
        String b = dies("b");
        String c = dies("c");

        List<DeadJob> two = queue.dead(2);
        assertThat(two).extracting(DeadJob::id).containsExactly(a, b);
        List<DeadJob> all = queue.dead(10);
        assertThat(all).extracting(DeadJob::id).containsExactly(a, b, c);
        DeadJob first = all.get(0);
        assertThat(first.reason()).isEqualTo("failed without retry on attempt 1");
        assertThat(first.lastError()).isEqualTo("fatal a");
        assertThat(first.attempts()).isEqualTo(1);
        assertThat(first.payloadUtf8()).isEqualTo("a");
        assertThat(first.diedAtMillis()).isEqualTo(score(DEAD, a));
        assertThat(all.get(0).diedAtMillis()).isLessThan(all.get(1).diedAtMillis());
    }

    @Test
    void redriveAllGivesAFreshBudgetWhileTheFenceKeepsRising() {
        String a = enqueue("a", EnqueueOptions.defaults().withMaxAttempts(2));
        assertThat(claim(a).fail("a1")).isEqualTo(SettleOutcome.RETRYING);
        makeDue(a);
        assertThat(claim(a).fail("a2")).isEqualTo(SettleOutcome.DEAD);
        awaitServerTimePast(score(DEAD, a));
        String b = dies("b");
        String c = enqueue("c", EnqueueOptions.defaults());

        assertThat(queue.redrive(10)).isEqualTo(2);

        assertThat(card(DEAD)).isZero();
        assertThat(hash(a)).containsEntry("state", "pending").containsEntry("spent", "0")
                .containsEntry("attempts", "2").doesNotContainKeys("dead_reason", "finished_at");
        assertThat(hash(b)).containsEntry("state", "pending").containsEntry("spent", "0")
                .containsEntry("attempts", "1");
        // redriven jobs join the back of their band, oldest death first
        assertThat(pendingIds()).containsExactly(c, a, b);

        assertThat(claim(c).complete()).isEqualTo(SettleOutcome.COMPLETED);
        Job again = claim(a);
        assertThat(again.attempt()).as("the fence continues").isEqualTo(3);
        assertThat(again.spentAttempts()).as("the budget is fresh").isEqualTo(1);
        assertThat(again.fail("a3")).as("one attempt of two spent: retry").isEqualTo(SettleOutcome.RETRYING);
        Job bAgain = claim(b);
        assertThat(bAgain.attempt()).isEqualTo(2);
        assertThat(bAgain.spentAttempts()).isEqualTo(1);
    }

    @Test
    void redriveByIdsMovesOnlyThoseThatAreDead() {
        String a = dies("a");
        String b = dies("b");
        String pending = enqueue("p", EnqueueOptions.defaults());

        assertThat(queue.redrive(List.of(b, "no-such-job", pending))).isEqualTo(1);
        assertThat(members(DEAD)).containsExactly(a);
        assertThat(pendingIds()).containsExactly(pending, b);
        assertThat(field(pending, "spent")).as("a pending job is left alone").isNull();

        assertThat(queue.redrive(1)).isEqualTo(1);
        assertThat(queue.redrive(1)).isZero();
        assertThat(pendingIds()).containsExactly(pending, b, a);
    }

    @Test
    void redriveKeepsThePriorityBand() {
        String low = enqueue("low", EnqueueOptions.defaults().withPriority(-5));
        String high = enqueue("high", EnqueueOptions.defaults().withPriority(5));
        assertThat(claim(high).failWithoutRetry("x")).isEqualTo(SettleOutcome.DEAD);
        assertThat(queue.redrive(List.of(high))).isEqualTo(1);
        assertThat(pendingIds()).containsExactly(high, low);
    }

    @Test
    void purgeDeadDeletesTheHashAndTheEntry() {
        String a = dies("a");
        String b = dies("b");
        String c = dies("c");
        String pending = enqueue("p", EnqueueOptions.defaults());

        assertThat(queue.purgeDead(List.of(b, pending, "no-such-job"))).isEqualTo(1);
        assertThat(exists(jobKey(b))).isFalse();
        assertThat(members(DEAD)).containsExactly(a, c);
        assertThat(stateOf(pending)).as("a pending job is not purged").isEqualTo("pending");

        assertThat(queue.purgeDead(1)).isEqualTo(1);
        assertThat(exists(jobKey(a))).isFalse();
        assertThat(members(DEAD)).containsExactly(c);
        assertThat(queue.purgeDead(10)).isEqualTo(1);
        assertThat(exists(jobKey(c))).isFalse();
        assertThat(card(DEAD)).isZero();
        assertThat(queue.purgeDead(10)).isZero();
        assertThat(queue.dead(10)).isEmpty();
        assertThat(queue.stats().dead()).isZero();
    }
}
