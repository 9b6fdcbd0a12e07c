package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a failure leaves for an operator besides {@code last_error}: each attempt's error kept on
 * the job (bounded in number and size) and the queue's error groups (bounded in number), both
 * written by {@code fail-4}.
 */
@Timeout(60)
class AttemptErrorsTest extends SemanticsTestBase {

    private String enqueue(int maxAttempts) {
        return queue.enqueue("x".getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withMaxAttempts(maxAttempts)).id();
    }

    private Job claim(String id) {
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(job.id()).isEqualTo(id);
        return job;
    }

    @Test
    void everyAttemptsErrorIsKeptOnTheJobWithItsAttemptAndTime() {
        String id = enqueue(3);
        long t0 = serverMillis();
        for (int i = 1; i <= 3; i++) {
            Job job = claim(id);
            assertThat(job.fail("java.lang.IllegalStateException: try " + i + "\n\tat Foo.bar(Foo.java:" + i + ")"))
                    .isEqualTo(i < 3 ? SettleOutcome.RETRYING : SettleOutcome.DEAD);
            if (i < 3) {
                makeDue(id);
            }
        }
        long t1 = serverMillis();
        JobInfo info = queue.inspect(id).orElseThrow();
        List<AttemptError> errors = info.attemptErrors();
        assertThat(errors).extracting(AttemptError::attempt).containsExactly(1L, 2L, 3L);
        assertThat(errors).extracting(AttemptError::error).containsExactly(
                "java.lang.IllegalStateException: try 1\n\tat Foo.bar(Foo.java:1)",
                "java.lang.IllegalStateException: try 2\n\tat Foo.bar(Foo.java:2)",
                "java.lang.IllegalStateException: try 3\n\tat Foo.bar(Foo.java:3)");
        assertThat(errors).allSatisfy(e -> assertThat(e.at().toEpochMilli()).isBetween(t0, t1));
        assertThat(info.lastError()).contains(errors.get(2).error());
    }

    @Test
    void theJobKeepsTheLastTenAttemptsEachCutAtACharactersStart() {
        String id = enqueue(12);
        String big = "é".repeat(3000);   // 6000 bytes: cut after at most 2048, never inside a character
        for (int i = 1; i <= 12; i++) {
            claim(id).fail("attempt " + i + " " + big);
            if (i < 12) {
                makeDue(id);
            }
        }
        List<AttemptError> errors = queue.inspect(id).orElseThrow().attemptErrors();
        assertThat(errors).extracting(AttemptError::attempt).containsExactly(3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L);
        assertThat(errors).allSatisfy(e -> {
            assertThat(e.error()).endsWith(" (truncated)").doesNotContain("\uFFFD");
            assertThat(e.error().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(2048 + 12);
        });
        // last_error stays whole
        assertThat(queue.inspect(id).orElseThrow().lastError().orElseThrow()).endsWith(big);
    }

    @Test
    void failuresAreGroupedByFirstLineWithCountsAndFirstAndLastSeen() {
        long t0 = serverMillis();
        for (int i = 0; i < 3; i++) {
            claim(enqueue(1)).fail("java.io.IOException: disk full\n\tat A.b(A.java:" + i + ")");
        }
        claim(enqueue(1)).fail("  java.lang.NullPointerException  \r\n\tat C.d");
        claim(enqueue(1)).fail("");
        long t1 = serverMillis();
        List<ErrorGroup> top = ErrorGroups.of(client).top("q", 10);
        assertThat(top).extracting(ErrorGroup::fingerprint).containsExactly("java.io.IOException: disk full",
                "(no error text)", "java.lang.NullPointerException");
        assertThat(top).extracting(ErrorGroup::count).containsExactly(3L, 1L, 1L);
        ErrorGroup disk = top.get(0);
        assertThat(disk.firstSeen()).isBeforeOrEqualTo(disk.lastSeen());
        assertThat(disk.firstSeen().toEpochMilli()).isBetween(t0, t1);
        assertThat(disk.lastSeen().toEpochMilli()).isBetween(t0, t1);
        assertThat(ErrorGroups.of(client).top("q", 1)).hasSize(1);
    }

    @Test
    void theGroupsKeepTheHundredLastSeen() {
        for (int i = 0; i < ErrorGroups.MAX_GROUPS + 5; i++) {
            claim(enqueue(1)).fail("error number " + i);
        }
        List<ErrorGroup> top = ErrorGroups.of(client).top("q", 1000);
        assertThat(top).hasSize(ErrorGroups.MAX_GROUPS);
        assertThat(top).extracting(ErrorGroup::fingerprint).doesNotContain("error number 0", "error number 4")
                .contains("error number 5", "error number 104");
        assertThat((Long) raw().call("ZCARD", P + "errors:seen")).isEqualTo((long) ErrorGroups.MAX_GROUPS);
    }

    @Test
    void aMalformedErrorsFieldReadsAsNoneAndTheNextFailureStartsItAgain() {
        String id = enqueue(3);
        raw().call("HSET", P + "job:" + id, "errors", "not json");
        assertThat(queue.inspect(id).orElseThrow().attemptErrors()).isEmpty();
        claim(id).fail("boom");
        assertThat(queue.inspect(id).orElseThrow().attemptErrors()).extracting(AttemptError::error).containsExactly("boom");
    }

    @Test
    void lastErrorsReadsEachListedJobsWholeErrorAndLeavesOutTheOthers() {
        String failed = enqueue(3);
        claim(failed).fail("boom\n\tat X.y");
        String fresh = enqueue(3);
        assertThat(JobErrors.lastErrors(queue, List.of(fresh, failed, "999")))
                .containsExactly(java.util.Map.entry(failed, "boom\n\tat X.y"));
        assertThat(JobErrors.lastErrors(queue, List.of())).isEmpty();
    }

    @Test
    void aShardedQueuesGroupsAreSummedOverItsPartitionsAndItsJobsErrorsReadByTheirIds() {
        ShardedQueue s = client.shardedQueue("s", 2);
        java.util.List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(s.enqueue("x".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults().withMaxAttempts(1)).id());
        }
        for (int i = 0; i < 4; i++) {
            Job job = s.claim(LONG_LEASE).orElseThrow();
            job.fail("java.io.IOException: same\n\tat line " + i);
        }
        assertThat(ids).extracting(id -> id.substring(0, 2)).contains("0-", "1-");
        List<ErrorGroup> top = ErrorGroups.of(client).top("s", 10);
        assertThat(top).extracting(ErrorGroup::fingerprint, ErrorGroup::count)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("java.io.IOException: same", 4L));
        assertThat(JobErrors.lastErrors(s, ids)).hasSize(4).allSatisfy((id, e) -> assertThat(e).startsWith("java.io"));
    }
}
