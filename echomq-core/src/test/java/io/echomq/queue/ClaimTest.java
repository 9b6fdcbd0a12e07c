package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The claim step, exactly as the seed describes it, checked field by field with raw commands. */
@Timeout(60)
class ClaimTest extends SemanticsTestBase {

    @Test
    void oneClaimPopsTheLowestPendingAndWritesTheLease() {
        String first = queue.enqueue("first");
        String second = queue.enqueue("second");
        long lease = 10_000;

        long t0 = serverMillis();
        Job job = queue.claim(Duration.ofMillis(lease)).orElseThrow();
        long t1 = serverMillis();

        assertThat(job.id()).isEqualTo(first);
        assertThat(job.payloadUtf8()).isEqualTo("first");
        assertThat(job.attempt()).isEqualTo(1);
        assertThat(job.spentAttempts()).isEqualTo(1);
        assertThat(job.maxAttempts()).isEqualTo(3);
        assertThat(job.lease()).isEqualTo(Duration.ofMillis(lease));

        assertThat(pendingIds()).containsExactly(second);
        assertThat(members(ACTIVE)).containsExactly(first);
        assertThat(score(ACTIVE, first)).isBetween(t0 + lease, t1 + lease);

        assertThat(field(first, "attempts")).isEqualTo("1");
        assertThat(field(first, "spent")).isEqualTo("1");
        assertThat(field(first, "state")).isEqualTo("active");
        assertThat(field(first, "score")).as("claimed from the wait LIST: no pending score to keep").isNull();
        assertThat(Long.parseLong(field(first, "claimed_at"))).isBetween(t0, t1);
        assertThat(field(first, "payload")).isEqualTo("first");

        // the LIST layout writes no lock subkey: the active score above is the lease
        assertThat(exists(lockKey(first))).isFalse();

        // the job behind it is untouched: still no hash, its payload still in its pending bucket
        assertThat(hash(second)).isEmpty();
        assertThat((String) raw().call("HGET", P + "pb:0", second)).endsWith(":second");
        assertThat(raw().call("HGET", P + "pb:0", first)).as("the claimed job left its bucket").isNull();
        assertThat(exists(lockKey(second))).isFalse();
    }

    @Test
    void inspectReadsTheWholeHash() {
        String id = queue.enqueue("x");
        JobInfo pending = queue.inspect(id).orElseThrow();
        assertThat(pending.state()).isEqualTo("pending");
        assertThat(pending.attempts()).isZero();
        assertThat(pending.field("payload")).isEqualTo("x");

        queue.claim(LONG_LEASE).orElseThrow();
        JobInfo active = queue.inspect(id).orElseThrow();
        assertThat(active.state()).isEqualTo("active");
        assertThat(active.attempts()).isEqualTo(1);
        assertThat(active.field("spent")).isEqualTo("1");
        assertThat(active.fields().keySet()).isEqualTo(hash(id).keySet());
        assertThat(queue.inspect("404")).isEmpty();
    }

    @Test
    void attemptsIsAnIncrementOfWhateverTheHashHolds() {
        // A job that already used 6 attempts (say, redriven) gets the fence 7, and spent counts on from its own value.
        raw().call("HSET", jobKey("77"), "payload", "p", "attempts", "6", "spent", "0", "state", "pending");
        raw().call("ZADD", PENDING, "1", "77");
        // A hash without attempts or spent at all starts at 1.
        raw().call("HSET", jobKey("78"), "payload", "p");
        raw().call("ZADD", PENDING, "2", "78");

        List<Job> jobs = queue.claim(2, LONG_LEASE);

        assertThat(jobs).extracting(Job::id).containsExactly("77", "78");
        assertThat(jobs.get(0).attempt()).isEqualTo(7);
        assertThat(jobs.get(0).spentAttempts()).isEqualTo(1);
        assertThat(jobs.get(1).attempt()).isEqualTo(1);
        assertThat(jobs.get(1).spentAttempts()).isEqualTo(1);
        assertThat(exists(lockKey("77"))).as("no lock subkey in the LIST layout").isFalse();
        assertThat(field("78", "attempts")).isEqualTo("1");
    }

    @Test
    void batchClaimReturnsNJobsInClaimOrder() {
        for (int i = 1; i <= 5; i++) {
            queue.enqueue("job-" + i);
        }
        long t0 = serverMillis();
        List<Job> three = queue.claim(3, LONG_LEASE);
        long t1 = serverMillis();

        assertThat(three).extracting(Job::id).containsExactly("1", "2", "3");
        assertThat(three).extracting(Job::payloadUtf8).containsExactly("job-1", "job-2", "job-3");
        assertThat(three).allSatisfy(j -> {
            assertThat(j.attempt()).isEqualTo(1);
            assertThat(score(ACTIVE, j.id())).isBetween(t0 + LONG_LEASE.toMillis(), t1 + LONG_LEASE.toMillis());
            assertThat(exists(lockKey(j.id()))).isFalse();
        });
        assertThat(pendingIds()).containsExactly("4", "5");

        List<Job> rest = queue.claim(10, LONG_LEASE);
        assertThat(rest).extracting(Job::id).containsExactly("4", "5");
        assertThat(pendingCount()).isZero();
        assertThat(card(ACTIVE)).isEqualTo(5);
    }

    @Test
    void emptyQueueClaimsNothingAndWritesNothing() {
        assertThat(queue.claim(LONG_LEASE)).isEmpty();
        assertThat(queue.claim(Queue.MAX_CLAIM, LONG_LEASE)).isEmpty();
        assertThat(dbSize()).isZero();

        // drained: the same after the last job was taken
        queue.enqueue("only");
        assertThat(queue.claim(LONG_LEASE)).isPresent();
        assertThat(queue.claim(5, LONG_LEASE)).isEmpty();
        assertThat(card(ACTIVE)).isEqualTo(1);
    }

    /**
     * The bounds are accepted and honoured: the shortest and the longest lease are the deadlines the server keeps,
     * and the largest batch takes exactly that many jobs. With {@link #badClaims()} refusing one step past each
     * bound, this pins the documented 20 ms, one day and 1,000.
     */
    @Test
    void leaseAndBatchBoundsAreAcceptedAndHonoured() {
        List<JobRequest> jobs = new java.util.ArrayList<>();
        for (int i = 0; i < Queue.MAX_CLAIM + 3; i++) {
            jobs.add(JobRequest.of("j" + i));
        }
        queue.enqueueAll(jobs);
        long t0 = System.nanoTime();
        Job shortest = queue.claim(Duration.ofMillis(20)).orElseThrow();
        long shortLeft = leaseLeftMs(shortest.id());
        long elapsedMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(shortLeft).as("ms left of a 20 ms lease, %d ms after the claim was sent", elapsedMs)
                .isBetween(20 - elapsedMs - 2, 20L);
        Job longest = queue.claim(Duration.ofDays(1)).orElseThrow();
        assertThat(leaseLeftMs(longest.id())).as("ms left of a one-day lease")
                .isBetween(Duration.ofDays(1).toMillis() - 2_000, Duration.ofDays(1).toMillis());
        assertThat(queue.claim(1000, LONG_LEASE)).hasSize(1000);
        assertThat(queue.stats().pending()).isEqualTo(1);
    }

    /** @return the lease left of an active job: its deadline in the active set less the server's time, in ms */
    private long leaseLeftMs(String id) {
        List<?> time = (List<?>) REDIS.raw().call("TIME");
        long nowMs = Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
        String deadline = (String) REDIS.raw().call("ZSCORE", ACTIVE, id);
        return (long) Double.parseDouble(deadline) - nowMs;
    }

    static Stream<Arguments> badClaims() {
        Duration ok = Duration.ofSeconds(1);
        return Stream.of(
                bad("null lease", "lease", q -> q.claim(null)),
                bad("zero lease", "lease", q -> q.claim(Duration.ZERO)),
                bad("negative lease", "lease", q -> q.claim(Duration.ofMillis(-1))),
                bad("19 ms lease", "at least 20 ms", q -> q.claim(Duration.ofMillis(19))),
                bad("lease over a day", "lease", q -> q.claim(Duration.ofDays(1).plusMillis(1))),
                bad("batch of 0", "max", q -> q.claim(0, ok)),
                bad("batch of -1", "max", q -> q.claim(-1, ok)),
                bad("batch of 1001", "max", q -> q.claim(1001, ok)),
                bad("batch with null lease", "lease", q -> q.claim(5, null)),
                bad("batch with 19 ms lease", "lease", q -> q.claim(5, Duration.ofMillis(19))));
    }

    private static Arguments bad(String name, String message, Consumer<Queue> call) {
        return Arguments.of(name, message, call);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badClaims")
    @Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
    void badClaimInputIsRejectedBeforeRedisIsTouched(String name, String message, Consumer<Queue> call)
            throws Exception {
        queue.enqueue("waiting");
        Recorded<Object> r = recorded(() -> {
            call.accept(queue);
            return null;
        });
        assertThat(r.thrown()).as(name).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
        assertThat(r.commands()).as("commands that reached Redis for %s", name).isEmpty();
        assertThat(pendingIds()).containsExactly("1");
    }

    @Test
    void completeAndClaimNextWithABadLeaseLeavesTheJobUnsettled() {
        queue.enqueue("a");
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        assertThatThrownBy(() -> job.completeAndClaimNext(Duration.ofMillis(5)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(job.isSettled()).isFalse();
        assertThat(job.complete()).isEqualTo(SettleOutcome.COMPLETED);
    }
}
