package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.RedisCommandException;
import io.echomq.testkit.FaultProxy;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A settle that got no answer is sent again until the lease's deadline ({@link SettleRetry}), and the refusal of
 * a repeated send is read back as our own earlier send where it was one ({@link SettleReadBack}).
 */
@Timeout(60)
class SettleRetryTest extends QueueTestBase {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void onlyFailuresWithoutAnAnswerOrFromAServerThatCannotServeNowAreWorthAnotherTry() {
        assertThat(SettleRetry.worthRetrying(new RedisCommandException("EVALSHA claim-8", "q",
                new RedisConnectionException("Connection reset")))).isTrue();
        assertThat(SettleRetry.worthRetrying(new RedisCommandException("EVALSHA claim-8", "q",
                new io.lettuce.core.RedisException("Currently not connected. Commands are rejected.")))).isTrue();
        assertThat(SettleRetry.worthRetrying(new RedisCommandException("EVALSHA fail-4", "q",
                new RedisCommandExecutionException("CLUSTERDOWN The cluster is down")))).isTrue();
        assertThat(SettleRetry.worthRetrying(new RedisCommandException("EVALSHA fail-4", "q",
                new RedisCommandExecutionException("LOADING Redis is loading the dataset in memory")))).isTrue();
        assertThat(SettleRetry.worthRetrying(new RedisCommandException("EVALSHA complete-2", "q",
                new RedisCommandExecutionException("WRONGTYPE emq:{q}:active is not a zset")))).isFalse();
        assertThat(SettleRetry.worthRetrying(new IllegalStateException("the worker was abandoned"))).isFalse();
    }

    @Test
    @Tag("standalone-only")   // a FaultProxy stands in front of one server (docs/scaling.md)
    void aCompleteSentThroughAnOutageShorterThanTheLeaseIsAccepted() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(REDIS.server())) {
            // keeps the completed hash, whose state shows the complete was applied
            QueueClient c = client(b -> b.redisUrl(proxy.url()).retainCompleted(Duration.ofHours(1)));
            Queue q = c.queue("q");
            String id = q.enqueue("x");
            Job job = q.claim(1, Duration.ofSeconds(10)).get(0);
            proxy.blackHole(Duration.ofSeconds(30));   // reconnects hang until healed
            proxy.cutAll();
            CompletableFuture<SettleOutcome> outcome = CompletableFuture.supplyAsync(job::complete);
            // the first send fails at once ("not connected"); the retries wait for the link to come back
            await().atMost(WAIT).until(() -> proxy.acceptedConnections() > 1);
            assertThat(outcome).isNotDone();
            proxy.heal();
            assertThat(outcome.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(SettleOutcome.COMPLETED);
            assertThat(field(id, "state")).isEqualTo("done");
        }
    }

    @Test
    @Tag("standalone-only")   // a FaultProxy stands in front of one server (docs/scaling.md)
    void aCompleteIsGivenUpAtTheLeasesDeadline() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(REDIS.server())) {
            QueueClient c = client(b -> b.redisUrl(proxy.url()));
            Queue q = c.queue("q");
            q.enqueue("x");
            Job job = q.claim(1, Duration.ofMillis(1_500)).get(0);
            proxy.blackHole(Duration.ofSeconds(30));
            proxy.cutAll();
            long start = System.nanoTime();
            assertThatThrownBy(job::complete).isInstanceOf(RedisCommandException.class);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(tookMs).as("retried for a while, not past the lease").isBetween(200L, 1_500L);
            assertThat(job.isSettled()).isFalse();
        }
    }

    @Test
    void aLeaseLostAsNotActiveWhileTheSettleWaitedIsReadBackAndAnyOtherLossEndsTheRetries() {
        queue.enqueue("x");
        queue.enqueue("y");
        java.util.List<Job> jobs = queue.claim(2, Duration.ofSeconds(30));
        RedisCommandException noAnswer = new RedisCommandException("EVALSHA complete-2", "q",
                new RedisConnectionException("Connection reset"));
        Job ended = jobs.get(0);
        ended.leaseState().markLost(LeaseLossReason.NOT_ACTIVE);   // a renewal met the job this settle ended
        assertThat(SettleRetry.again(ended.leaseState(), noAnswer, () -> {
            throw noAnswer;
        })).isEqualTo(-3);
        Job expired = jobs.get(1);
        expired.leaseState().markLost(LeaseLossReason.EXPIRED);
        assertThatThrownBy(() -> SettleRetry.again(expired.leaseState(), noAnswer, () -> {
            throw noAnswer;
        })).isSameAs(noAnswer);
    }

    @Test
    void aRefusedRepeatOfOurOwnCompleteReadsAsCompleted() {
        Queue kept = client(b -> b.retainCompleted(Duration.ofHours(1))).queue("q");   // the repeat finds the done hash
        String id = kept.enqueue("x");
        Job job = kept.claim(1, Duration.ofSeconds(30)).get(0);
        assertThat(kept.partition().attempts().complete(job.granted())).isEqualTo(1);   // applied; say its answer was lost
        long again = kept.partition().attempts().complete(job.granted());
        assertThat(again).as("the fence refuses the repeat").isEqualTo(-3);
        assertThat(SettleReadBack.complete(kept.partition().attempts(), job.granted(), null, again)).isEqualTo(1);
        assertThat(field(id, "state")).isEqualTo("done");
    }

    @Test
    void byDefaultARepeatOfOurOwnCompleteFindsTheHashGoneAndReadsAsCompleted() {
        String id = queue.enqueue("x");
        Job job = queue.claim(1, Duration.ofSeconds(30)).get(0);
        assertThat(queue.partition().attempts().complete(job.granted())).isEqualTo(1);   // applied; say its answer was lost
        long again = queue.partition().attempts().complete(job.granted());
        assertThat(again).as("the default keeps no completed hash: the repeat finds none").isEqualTo(-4);
        assertThat(SettleReadBack.complete(queue.partition().attempts(), job.granted(), null, again)).isEqualTo(1);
        assertThat(raw().call("EXISTS", "emq:{q}:job:" + id)).isEqualTo(0L);
    }

    @Test
    void aRefusedRepeatOfOurOwnFailReadsAsRetryingOrDead() {
        queue.enqueue("x", EnqueueOptions.defaults().withMaxAttempts(2));
        Job retried = queue.claim(1, Duration.ofSeconds(30)).get(0);
        assertThat(retried.fail("boom")).isEqualTo(SettleOutcome.RETRYING);
        long again = queue.partition().attempts().fail(retried.granted(), retried.settlement().failText(), true, -1);
        assertThat(again).isEqualTo(-3);
        assertThat(SettleReadBack.fail(queue.partition().attempts(), retried.granted(), retried.settlement().failText(), again)).isEqualTo(2);

        queue.enqueue("y", EnqueueOptions.defaults().withMaxAttempts(1));
        Job died = queue.claim(1, Duration.ofSeconds(30)).stream().filter(j -> j.payloadUtf8().equals("y"))
                .findFirst().orElseThrow();
        assertThat(died.fail("fatal")).isEqualTo(SettleOutcome.DEAD);
        long refused = queue.partition().attempts().fail(died.granted(), died.settlement().failText(), true, -1);
        assertThat(SettleReadBack.fail(queue.partition().attempts(), died.granted(), died.settlement().failText(), refused)).isEqualTo(3);
    }

    @Test
    void aJobTheReaperReturnedIsStillALoss() {
        queue.enqueue("x");
        Job job = queue.claim(1, Duration.ofMillis(50)).get(0);
        await().atMost(WAIT).until(() -> queue.reap(10).returned() == 1);
        long complete = queue.partition().attempts().complete(job.granted());
        assertThat(complete).isEqualTo(-3);
        assertThat(SettleReadBack.complete(queue.partition().attempts(), job.granted(), null, complete)).isEqualTo(-3);
        long returned = queue.partition().attempts().returnLease(job.granted());
        assertThat(SettleReadBack.returned(queue.partition().attempts(), job.granted(), null, returned)).isEqualTo(-3);
        assertThat(job.isSettled()).isFalse();
    }
}
