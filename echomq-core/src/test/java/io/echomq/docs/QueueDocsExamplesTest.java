package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The queue programs of README.md and docs/queue.md, read out of the pages and run exactly as they stand, with the
 * test server's URL as their argument.
 */
class QueueDocsExamplesTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    private static final Duration RUN = Duration.ofSeconds(30);

    @BeforeEach
    void flush() {
        REDIS.flushAll();
    }

    @Test
    void quickStartRunsItsJobAndClosesTheWorkerAfterItIsSettled() throws Exception {
        for (DocSnippets.Snippet s : Snippets.named("QueueQuickStart")) {
            REDIS.flushAll();
            List<String> out = ProgramRunner.start(s, REDIS.url()).await(RUN).lines().toList();
            assertThat(out).as(s.toString()).containsExactly("sending 1: {\"to\":\"ada@example.com\"}",
                    "1 done: 1 completed");
        }
    }

    @Test
    void aHandlerThatChecksLeaseLostStopsWhenTheLeaseIsLost() throws Exception {
        ProgramRunner.Run run = ProgramRunner.start(Snippets.named("LeaseLossInAHandler").get(0), REDIS.url());
        // Once the job is active, end its lease on the server, as a long pause past the lease would: the next
        // renewal is refused, and the worker tells the handler.
        await().atMost(RUN).until(() -> Long.valueOf(1).equals(REDIS.raw().call("ZCARD", "emq:{imports}:active")));
        REDIS.raw().call("ZADD", "emq:{imports}:active", "0", "1");
        String out = run.await(RUN);
        assertThat(out).matches("stopped before row ([0-9]+): lease lost\n");
        int row = Integer.parseInt(out.replaceAll("[^0-9]", ""));
        assertThat(row).as("rows done before the loss was seen").isBetween(2, 199);
    }

    @Test
    void aHandlerStoppedAtItsTimeoutCancelsItsQueryAndItsConnectionStaysValid() throws Exception {
        REDIS.flushAll();
        String out = ProgramRunner.start(Snippets.named("StopCooperatively").get(0), REDIS.url()).await(RUN);
        assertThat(out).isEqualTo("stopped; connection still valid: true\n1 dead, timed out\n");
    }

    @Test
    void enqueueingStoresTheOptionsAndTheKeyEnqueuesOnce() throws Exception {
        DocSnippets.Snippet s = Snippets.named("Enqueueing").get(0);
        assertThat(ProgramRunner.start(s, REDIS.url()).await(RUN)).isEqualTo("ids 1 2 3 (new), then 2 more\n");
        assertThat(REDIS.raw().call("HGET", "emq:{reports}:job:3", "priority")).isEqualTo("10");
        assertThat(REDIS.raw().call("HGET", "emq:{reports}:job:3", "max_attempts")).isEqualTo("5");
        assertThat(REDIS.raw().call("ZCARD", "emq:{reports}:due")).as("the job delayed 5 minutes").isEqualTo(1L);
        // Again: the idempotency key names the first run's job, which is not added a second time.
        assertThat(ProgramRunner.start(s, REDIS.url()).await(RUN)).isEqualTo("ids 6 7 3 (existing), then 2 more\n");
    }

    @Test
    void workerSettingsRenderTheJobAndCountItsSettle() throws Exception {
        String out = ProgramRunner.start(Snippets.named("WorkerSettings").get(0), REDIS.url()).await(RUN);
        assertThat(out).isEqualTo("rendering monthly, attempt 1\nsettled: {COMPLETED=1}\n");
    }

    @Test
    void claimingByHandCompletesOneAndReturnsTheRest() throws Exception {
        String out = ProgramRunner.start(Snippets.named("ClaimByHand").get(0), REDIS.url()).await(RUN);
        assertThat(out).isEqualTo("1 COMPLETED\n2 more claimed and returned\n");
        assertThat(REDIS.raw().call("HGET", "emq:{imports}:job:2", "state")).isEqualTo("pending");
        assertThat(REDIS.raw().call("HGET", "emq:{imports}:job:2", "spent")).as("returned, its attempt unspent")
                .isEqualTo("0");
    }

    @Test
    void deadLettersAreListedRedrivenAndNothingIsLeftToPurge() throws Exception {
        String out = ProgramRunner.start(Snippets.named("DeadLetters").get(0), REDIS.url()).await(RUN);
        assertThat(out).isEqualTo("1 died: failed on attempt 1 of 1: mailbox full\nredriven 1, purged 0\n");
        assertThat(REDIS.raw().call("HGET", "emq:{mail}:job:1", "state")).isEqualTo("pending");
    }

    @Test
    void retryPoliciesSendBadInputToDeadAndHonourTheHandlersDelay() throws Exception {
        long t0 = serverMillis();
        String out = ProgramRunner.start(Snippets.named("RetryPolicies").get(0), REDIS.url()).await(RUN);
        long t1 = serverMillis();
        assertThat(out).isEqualTo("{bad=DEAD, busy=RETRYING}\n");
        assertThat(REDIS.raw().call("HGET", "emq:{orders}:job:1", "dead_reason")).isEqualTo("failed without retry on attempt 1");
        long due = Long.parseLong(String.valueOf(REDIS.raw().call("ZSCORE", "emq:{orders}:due", "2")));
        assertThat(due).isBetween(t0 + 30_000, t1 + 30_000);
    }

    private static long serverMillis() {
        java.util.List<?> t = (java.util.List<?>) REDIS.raw().call("TIME");
        return Long.parseLong(String.valueOf(t.get(0))) * 1000 + Long.parseLong(String.valueOf(t.get(1))) / 1000;
    }

    @Test
    void operatingAHeldJobIsLockedAgainstRemoval() throws Exception {
        String out = ProgramRunner.start(Snippets.named("OperatingAQueue").get(0), REDIS.url()).await(RUN);
        assertThat(out).isEqualTo("active 1, reaped 0, remove LOCKED, state active\n");
    }

    @Test
    void aScheduleIsFiredByTheWorkersMaintenance() throws Exception {
        String out = ProgramRunner.start(Snippets.named("RecurringSchedules").get(0), REDIS.url()).await(RUN);
        assertThat(out).isEqualTo("heartbeat v1, next 2 fire times known\nfired twice at whole seconds, 0 schedules left\n");
    }
}
