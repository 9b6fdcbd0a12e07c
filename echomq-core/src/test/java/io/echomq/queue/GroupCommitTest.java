package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.RedisCommandException;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import io.echomq.server.CommandTap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Group commit: one claim-8 call completes many jobs, each fenced by its own attempt and
 * answered with its own code; a worker's completes that arrive while a call is in flight ride the
 * next call together, and each job still gets exactly its own outcome.
 */
@Timeout(60)
class GroupCommitTest extends SemanticsTestBase {

    @Test
    void oneCallAnswersEveryAckWithItsOwnFenceAndChangesOnlyTheCompletedJob() {
        queue.setLayout(QueueLayout.ZSET);   // the layout whose claims write lock subkeys
        for (int i = 0; i < 6; i++) {
            queue.enqueue("job-" + i);
        }
        List<Job> jobs = queue.claim(6, LONG_LEASE);
        assertThat(jobs).hasSize(6);
        Job ok = jobs.get(0);
        Job expired = jobs.get(1);
        Job superseded = jobs.get(2);
        Job notActive = jobs.get(3);
        Job missing = jobs.get(4);
        Job notAHash = jobs.get(5);
        raw().call("ZADD", ACTIVE, "XX", "1", expired.localId());            // its deadline has passed
        raw().call("HSET", jobKey(superseded.localId()), "attempts", "7");  // claimed again meanwhile
        raw().call("HSET", jobKey(notActive.localId()), "state", "pending");
        raw().call("DEL", jobKey(missing.localId()));
        raw().call("DEL", jobKey(notAHash.localId()));
        raw().call("SET", jobKey(notAHash.localId()), "junk");
        Map<String, String> expiredBefore = hash(expired.localId());

        Claimed<Attempt> answer = RedisEngine.await(queue.partition().line().claims().settleAsync(
                jobs.stream().map(Job::granted).toList(), 0, LONG_LEASE.toMillis(), a -> a), "claim", "q");

        assertThat(answer.completeCodes()).containsExactly(1L, -2L, -1L, -3L, -4L, AttemptCalls.NOT_A_HASH_CODE);
        assertThat(answer.jobs()).isEmpty();
        assertThat(members(ACTIVE)).as("only the completed job left active")
                .containsExactlyInAnyOrder(expired.localId(), superseded.localId(), notActive.localId(),
                        missing.localId(), notAHash.localId());
        assertThat(exists(lockKey(ok.localId()))).isFalse();
        assertThat(exists(lockKey(expired.localId()))).as("a refused complete keeps its lock subkey").isTrue();
        assertThat(hash(expired.localId())).isEqualTo(expiredBefore);
        assertThat(get(jobKey(notAHash.localId()))).isEqualTo("junk");
        assertThat(queue.stats().completed()).isEqualTo(1);
    }

    @Test
    void theSameJobTwiceInOneCallIsCompletedOnceAndTheSecondAckAnsweredAsALaterCallWouldBe() {
        queue.enqueue("once");
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        Claimed<Attempt> answer = RedisEngine.await(queue.partition().line().claims().settleAsync(
                List.of(job.granted(), job.granted()), 0, LONG_LEASE.toMillis(), a -> a),
                "claim", "q");
        long retained = client.context().retainCompletedMs();
        assertThat(answer.completeCodes()).containsExactly(1L, retained > 0 ? -3L : -4L);
        assertThat(queue.stats().completed()).isEqualTo(1);
        assertThat(card(ACTIVE)).isZero();
    }

    @Test
    void aJobKeyOfAnotherTypeFailsOnlyItsOwnCompleteAndLeavesTheJobUnsettled() {
        queue.enqueue("a");
        queue.enqueue("b");
        List<Job> jobs = queue.claim(2, LONG_LEASE);
        raw().call("DEL", jobKey(jobs.get(1).localId()));
        raw().call("SET", jobKey(jobs.get(1).localId()), "junk");
        assertThatThrownBy(() -> jobs.get(1).complete()).isInstanceOf(RedisCommandException.class)
                .hasMessageContaining("WRONGTYPE");
        assertThat(jobs.get(1).isSettled()).isFalse();
        assertThat(jobs.get(0).complete()).isEqualTo(SettleOutcome.COMPLETED);
    }

    /**
     * While the server holds the first call (CLIENT PAUSE WRITE), the completes that follow wait
     * in the batcher, and one call carries them all with a claim for each handler that asked.
     */
    @Test
    @Tag("standalone-only")   // CLIENT PAUSE and MONITOR of one server (docs/scaling.md)
    void completesThatArriveWhileACallIsInFlightRideTheNextCallTogether() throws Exception {
        for (int i = 0; i < 6; i++) {
            queue.enqueue("job-" + i);
        }
        List<Job> jobs = queue.claim(4, LONG_LEASE);
        AckBatcher batcher = new AckBatcher(queue.partition().line(), LONG_LEASE.toMillis());
        String claim = Scripts.CLAIM.sha();
        List<CompletableFuture<AckBatcher.Answer>> answers = new ArrayList<>();
        try (CommandTap tap = raw().monitor()) {
            raw().call("CLIENT", "PAUSE", "1000", "WRITE");
            answers.add(batcher.complete(jobs.get(0).granted(), 0));   // sent at once; the server holds it
            answers.add(batcher.complete(jobs.get(1).granted(), 1));
            answers.add(batcher.complete(jobs.get(2).granted(), 2));   // asks for two; one is left to give
            answers.add(batcher.complete(jobs.get(3).granted(), 0));
            assertThat(answers.get(0)).as("the first call is held by the pause").isNotDone();
            CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> claimCalls(tap, claim).size() >= 2);
            List<List<String>> calls = claimCalls(tap, claim);
            assertThat(calls).as("one call for the first complete, one for the three that waited").hasSize(2);
            assertThat(calls.get(0).get(17)).as("completes in the first call").isEqualTo("1");
            assertThat(calls.get(1).get(17)).as("completes in the second call").isEqualTo("3");
            assertThat(calls.get(1).get(13)).as("jobs claimed by the second call: the sum asked").isEqualTo("3");
        }
        for (CompletableFuture<AckBatcher.Answer> a : answers) {
            assertThat(a.get().code()).isEqualTo(1L);
        }
        assertThat(answers.get(0).get().next()).isEmpty();
        assertThat(answers.get(3).get().next()).isEmpty();
        assertThat(answers.get(1).get().next()).hasSize(1);
        assertThat(answers.get(2).get().next()).as("the queue had one job left for it").hasSize(1);
        assertThat(answers.get(2).get().asked()).isEqualTo(2);
        assertThat(List.of(answers.get(1).get().next().get(0).localId(), answers.get(2).get().next().get(0).localId()))
                .as("each run that asked got its own next jobs").doesNotHaveDuplicates()
                .doesNotContainAnyElementsOf(jobs.stream().map(Job::id).toList());
        assertThat(queue.stats().completed()).isEqualTo(4);
    }

    @Test
    @Tag("standalone-only")   // CLIENT PAUSE and MONITOR of one server (docs/scaling.md)
    void anAbandonedBatcherSendsNothingMoreAndFailsTheCompletesItHeld() throws Exception {
        queue.enqueue("a");
        queue.enqueue("b");
        List<Job> jobs = queue.claim(2, LONG_LEASE);
        AckBatcher batcher = new AckBatcher(queue.partition().line(), LONG_LEASE.toMillis());
        String claim = Scripts.CLAIM.sha();
        try (CommandTap tap = raw().monitor()) {
            raw().call("CLIENT", "PAUSE", "500", "WRITE");
            CompletableFuture<AckBatcher.Answer> sent = batcher.complete(jobs.get(0).granted(), 0);
            CompletableFuture<AckBatcher.Answer> held = batcher.complete(jobs.get(1).granted(), 0);
            batcher.abandon();
            assertThat(sent.get(10, TimeUnit.SECONDS).code()).as("the call in flight is answered").isEqualTo(1L);
            assertThatThrownBy(() -> held.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> batcher.complete(jobs.get(1).granted(), 0).get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(IllegalStateException.class);
            raw().call("ECHO", "done");
            assertThat(tap.awaitCommand(c -> c.equals(List.of("ECHO", "done")), Duration.ofSeconds(10))).isTrue();
            assertThat(claimCalls(tap, claim)).as("only the call sent before the abandon").hasSize(1);
        }
        assertThat(members(ACTIVE)).containsExactly(jobs.get(1).localId());
    }

    private static List<List<String>> claimCalls(CommandTap tap, String sha) {
        return tap.commands().stream()
                .filter(c -> c.size() > 16 && c.get(0).equalsIgnoreCase("EVALSHA") && c.get(1).equals(sha))
                .toList();
    }

    @Test
    void aBusyWorkerSettlesEveryJobExactlyOnceWithItsOwnOutcome() {
        int n = 600;
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(queue.enqueue("job-" + i));
        }
        Map<String, SettleOutcome> outcomes = new ConcurrentHashMap<>();
        Map<String, Integer> runs = new ConcurrentHashMap<>();
        CountDownLatch all = new CountDownLatch(n);
        WorkerListener listener = new WorkerListener() {
            @Override
            public void onSettled(Job job, SettleOutcome outcome, Throwable error) {
                assertThat(job.outcome()).contains(outcome);
                if (outcomes.put(job.id(), outcome) == null) {
                    all.countDown();
                }
            }
        };
        try (Worker w = client.worker("q", job -> {
            runs.merge(job.id(), 1, Integer::sum);
            if (job.payloadUtf8().endsWith("7")) {
                throw new IllegalStateException("fails on purpose");
            }
        }).concurrency(32).listener(listener).start()) {
            await().atMost(Duration.ofSeconds(40)).until(() -> all.getCount() == 0);
            WorkerCounts c = w.counts();
            assertThat(c.completed()).isEqualTo(n - n / 10);
            assertThat(c.retrying()).as("a failing job may already have failed its retry too")
                    .isGreaterThanOrEqualTo(n / 10);
            assertThat(c.leaseLost()).isZero();
            assertThat(c.ackErrors()).isZero();
        }
        assertThat(ids).allSatisfy(id -> assertThat(runs.get(id)).as("runs of %s", id).isNotNull());
        assertThat(ids.stream().filter(id -> outcomes.get(id) == SettleOutcome.COMPLETED))
                .as("a completed job ran once").allSatisfy(id -> assertThat(runs.get(id)).isEqualTo(1));
        assertThat(outcomes).hasSize(n);
        assertThat(outcomes.values().stream().filter(o -> o == SettleOutcome.COMPLETED).count()).isEqualTo(n - n / 10);
        assertThat(queue.stats().completed()).isEqualTo(n - n / 10);
    }
}
