package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The attempt is the fence: every call of a handle whose attempt moved on, whose lease ran out or
 * whose job is gone answers LEASE_LOST with the reason, and changes nothing at all.
 */
@Timeout(60)
class FenceTest extends SemanticsTestBase {
    private static final Duration SHORT = Duration.ofMillis(50);

    /** Every call of a handle that talks to the server, each as it would be used by a worker. */
    static Stream<Arguments> fencedCalls() {
        return Stream.of(
                call("complete", Job::complete),
                call("completeAndClaimNext", j -> {
                    j.completeAndClaimNext(LONG_LEASE);
                    return j.outcome().orElseThrow();
                }),
                call("fail", j -> j.fail("late failure")),
                call("fail(Throwable)", j -> j.fail(new IllegalStateException("late"))),
                call("fail(NonRetryableException)", j -> j.fail(new NonRetryableException("late"))),
                call("failWithoutRetry", j -> j.failWithoutRetry("late")),
                call("extend", j -> refusedAsLost(j.extend(LONG_LEASE))),
                call("progress", j -> refusedAsLost(j.progress("50%"))),
                call("returnLease", Job::returnLease));
    }

    private static Arguments call(String name, Function<Job, SettleOutcome> call) {
        return Arguments.of(name, call);
    }

    /** extend and progress answer a boolean: a refusal reads as LEASE_LOST, an acceptance as nothing */
    private static SettleOutcome refusedAsLost(boolean accepted) {
        return accepted ? null : SettleOutcome.LEASE_LOST;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fencedCalls")
    void staleAttemptIsSupersededAndChangesNothing(String name, Function<Job, SettleOutcome> call) {
        String id = queue.enqueue("x");
        Job stale = queue.claim(SHORT).orElseThrow();
        awaitLeaseExpired(id);
        assertThat(queue.reap(10)).isEqualTo(new ReapResult(1, 0));
        Job fresh = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(fresh.id()).isEqualTo(id);
        assertThat(fresh.attempt()).isEqualTo(2);
        assertThat(field(id, "attempts")).isEqualTo("2");

        Map<String, Object> before = snapshot();
        assertThat(call.apply(stale)).isEqualTo(SettleOutcome.LEASE_LOST);
        assertThat(stale.lossReason()).contains(LeaseLossReason.SUPERSEDED);
        assertThat(stale.leaseLost()).isTrue();
        assertThat(snapshot()).as("keyspace after a stale %s", name).isEqualTo(before);
        assertThat(score(ACTIVE, id) - serverMillis()).as("the fresh lease keeps its deadline")
                .isGreaterThan(LONG_LEASE.toMillis() - 5_000);

        // the current holder is unaffected
        assertThat(fresh.leaseLost()).isFalse();
        assertThat(fresh.complete()).isEqualTo(SettleOutcome.COMPLETED);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fencedCalls")
    void expiredButNotReapedLeaseIsExpiredAndChangesNothing(String name, Function<Job, SettleOutcome> call) {
        String id = queue.enqueue("x");
        Job job = queue.claim(SHORT).orElseThrow();
        awaitLeaseExpired(id);

        Map<String, Object> before = snapshot();
        assertThat(before).containsKey(ACTIVE);
        assertThat(call.apply(job)).isEqualTo(SettleOutcome.LEASE_LOST);
        assertThat(job.lossReason()).contains(LeaseLossReason.EXPIRED);
        assertThat(snapshot()).as("keyspace after an expired %s", name).isEqualTo(before);

        // the reaper still owns it: an extend never revived it
        assertThat(queue.reap(10)).isEqualTo(new ReapResult(1, 0));
        assertThat(field(id, "state")).isEqualTo("pending");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fencedCalls")
    void reapedButNotReclaimedJobIsNotActive(String name, Function<Job, SettleOutcome> call) {
        String id = queue.enqueue("x");
        Job job = queue.claim(SHORT).orElseThrow();
        awaitLeaseExpired(id);
        queue.reap(10);

        Map<String, Object> before = snapshot();
        SettleOutcome out = call.apply(job);
        assertThat(out).isEqualTo(SettleOutcome.LEASE_LOST);
        assertThat(job.lossReason()).contains(LeaseLossReason.NOT_ACTIVE);
        if (!name.equals("completeAndClaimNext")) {
            assertThat(snapshot()).isEqualTo(before);
        } else {
            // the complete was refused; the claim half still ran and took the pending job as attempt 2
            assertThat(field(id, "attempts")).isEqualTo("2");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fencedCalls")
    void callOnARemovedJobIsMissing(String name, Function<Job, SettleOutcome> call) {
        String id = queue.enqueue("x");
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(queue.remove(id, true)).isEqualTo(RemoveOutcome.REMOVED);
        Map<String, Object> before = snapshot();
        assertThat(before).as("the job is gone; the queue's sequence, protocol mark and events stream stay")
                .containsOnlyKeys(P + "seq", P + "delayed", P + "events");

        assertThat(call.apply(job)).isEqualTo(SettleOutcome.LEASE_LOST);
        assertThat(job.lossReason()).contains(LeaseLossReason.MISSING);
        assertThat(snapshot()).as("nothing recreated").isEqualTo(before);
    }

    @Test
    void afterCompleteEverySettlingCallThrows() {
        Queue kept = client(b -> b.retainCompleted(Duration.ofHours(1))).queue("q");   // the done hash answers extend
        String id = kept.enqueue("x");
        Job job = kept.claim(LONG_LEASE).orElseThrow();
        assertThat(job.isSettled()).isFalse();
        assertThat(job.complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThat(job.isSettled()).isTrue();
        Map<String, Object> before = snapshot();

        assertThatThrownBy(job::complete).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already settled as COMPLETED");
        assertThatThrownBy(() -> job.fail("x")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> job.fail(new RuntimeException())).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> job.failWithoutRetry("x")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(job::returnLease).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> job.completeAndClaimNext(LONG_LEASE)).isInstanceOf(IllegalStateException.class);

        assertThat(job.outcome()).contains(SettleOutcome.COMPLETED);
        assertThat(snapshot()).isEqualTo(before);
        // extend is not a settling call: it is refused by the server, the job being done
        assertThat(job.extend(LONG_LEASE)).isFalse();
        assertThat(job.lossReason()).contains(LeaseLossReason.NOT_ACTIVE);
        assertThat(field(id, "state")).isEqualTo("done");
    }

    @Test
    void aRefusedSettleAlsoSettles() {
        queue.enqueue("x");
        Job job = queue.claim(SHORT).orElseThrow();
        awaitLeaseExpired(job.id());
        assertThat(job.complete()).isEqualTo(SettleOutcome.LEASE_LOST);
        assertThat(job.outcome()).contains(SettleOutcome.LEASE_LOST);
        assertThatThrownBy(() -> job.fail("retry?")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LEASE_LOST");
    }

    @Test
    void completeRemovesTheLeaseAndKeepsADoneHashForTheRetention() {
        Duration hour = Duration.ofHours(1);
        Queue kept = client(b -> b.retainCompleted(hour)).queue("q");
        String id = kept.enqueue("x");
        Job job = kept.claim(LONG_LEASE).orElseThrow();
        long t0 = serverMillis();
        assertThat(job.complete()).isEqualTo(SettleOutcome.COMPLETED);
        long t1 = serverMillis();

        assertThat(card(ACTIVE)).isZero();
        assertThat(exists(lockKey(id))).isFalse();
        assertThat(field(id, "state")).isEqualTo("done");
        assertThat(Long.parseLong(field(id, "finished_at"))).isBetween(t0, t1);
        assertThat(pttl(jobKey(id))).isBetween(hour.toMillis() - 60_000, hour.toMillis());
        assertThat(queue.stats().completed()).isEqualTo(1);
    }

    @Test
    void byDefaultACompleteDeletesTheJobsHash() {
        Queue q = client.queue("q");   // default settings: no retention stored, none asked by the client
        String id = q.enqueue("x");
        Job job = q.claim(LONG_LEASE).orElseThrow();
        assertThat(job.complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThat(exists(jobKey(id))).as("the default keeps no completed hash").isFalse();
        assertThat(exists(lockKey(id))).isFalse();
        assertThat(q.stats().completed()).isEqualTo(1);
        assertThat(job.extend(LONG_LEASE)).as("a late extend finds no job").isFalse();
        assertThat(job.lossReason()).contains(LeaseLossReason.MISSING);
        assertThat((java.util.List<?>) raw().call("KEYS", "emq:{q}:job:*")).as("no key per completed job").isEmpty();
    }

    @Test
    void anExplicitZeroRetentionDeletesTheCompletedHash() {
        Queue q = client(b -> b.retainCompleted(Duration.ZERO)).queue("q");
        String id = q.enqueue("x");
        Job job = q.claim(LONG_LEASE).orElseThrow();
        assertThat(job.complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThat(exists(jobKey(id))).isFalse();
    }

    @Test
    void extendAndProgressMayBeCalledRepeatedlyWhileHeld() {
        String id = queue.enqueue("x");
        Job job = queue.claim(Duration.ofSeconds(2)).orElseThrow();
        for (int i = 1; i <= 3; i++) {
            long t0 = serverMillis();
            assertThat(job.extend(Duration.ofSeconds(20))).isTrue();
            long t1 = serverMillis();
            assertThat(score(ACTIVE, id)).isBetween(t0 + 20_000, t1 + 20_000);
            assertThat(exists(lockKey(id))).as("no lock subkey in the LIST layout").isFalse();
            assertThat(job.progress("step " + i)).isTrue();
            assertThat(field(id, "progress")).isEqualTo("step " + i);
        }
        assertThat(field(id, "attempts")).as("extend is not an attempt").isEqualTo("1");
        assertThat(job.leaseLost()).isFalse();
        assertThat(job.complete()).isEqualTo(SettleOutcome.COMPLETED);
    }

    @Test
    @Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
    void badArgumentsOfHeldJobCallsAreRejectedBeforeRedis() throws Exception {
        Queue small = client(b -> b.maxPayloadBytes(4)).queue("q");
        small.enqueue("x");
        Job job = small.claim(LONG_LEASE).orElseThrow();
        List<Callable<Object>> calls = List.of(
                () -> job.progress((byte[]) null),
                () -> job.progress((String) null),
                () -> job.progress(new byte[5]),
                () -> job.extend(null),
                () -> job.extend(Duration.ofMillis(19)),
                () -> job.extend(Duration.ofDays(1).plusMillis(1)));
        for (Callable<Object> call : calls) {
            Recorded<Object> r = recorded(call);
            assertThat(r.thrown()).isInstanceOf(IllegalArgumentException.class);
            assertThat(r.commands()).isEmpty();
        }
        assertThat(job.leaseLost()).isFalse();
        assertThat(job.progress(new byte[4])).isTrue();
        assertThat(job.complete()).isEqualTo(SettleOutcome.COMPLETED);
    }

    @Test
    void returnedLeaseKeepsThePlaceAndTheFenceKeepsRising() {
        String first = queue.enqueue("first");
        String second = queue.enqueue("second");
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(job.id()).isEqualTo(first);

        assertThat(job.returnLease()).isEqualTo(SettleOutcome.RETURNED);
        assertThat(pendingIds()).containsExactly(first, second);
        assertThat(waiting()).as("back at the front of the wait LIST").containsExactly(first, second);
        assertThat(hash(first)).containsEntry("state", "pending").containsEntry("attempts", "1")
                .containsEntry("spent", "0");
        assertThat(exists(lockKey(first))).isFalse();
        assertThat(card(ACTIVE)).isZero();

        Job again = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(again.id()).isEqualTo(first);
        assertThat(again.attempt()).isEqualTo(2);
        assertThat(again.spentAttempts()).as("a returned lease is not spent").isEqualTo(1);
        // the returning handle stays stale for good
        assertThat(job.extend(LONG_LEASE)).isFalse();
        assertThat(job.lossReason()).contains(LeaseLossReason.SUPERSEDED);
    }
}
