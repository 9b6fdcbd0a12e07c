package io.echomq.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.ProtocolVersionException;
import io.echomq.internal.Scripts;
import io.echomq.lock.FencedStore;
import io.echomq.lock.FencedWriteOutcome;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.queue.Job;
import io.echomq.queue.JobResult;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.server.RawRedis;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A client of wire protocol 1 (the previous release's scripts, run as they are) beside the
 * clients of protocol 2 on one real server, as during a rolling upgrade. What docs/protocol.md,
 * "Versions", states about each mix: where protocol 2's data refuses the older client, the refusal
 * happens and leaves nothing wrong behind; where no data can refuse it, the hazard the upgrade
 * order avoids is what happens; and protocol 2 refuses data of a later protocol with
 * {@link ProtocolVersionException}, having changed nothing.
 */
class PreviousProtocolTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final String NS = "emq:lock:";
    private static final String Q = "emq:{q}:";

    private LockClient locks;
    private QueueClient queues;
    private ProtocolOneScripts one;

    @BeforeEach
    void connect() {
        REDIS.flushAll();
        locks = LockClient.builder().redisUrl(REDIS.url()).build();
        queues = QueueClient.builder().redisUrl(REDIS.url()).retainCompleted(Duration.ZERO).build();
        one = new ProtocolOneScripts(REDIS.raw());
    }

    @AfterEach
    void close() {
        locks.close();
        queues.close();
    }

    private RawRedis raw() {
        return REDIS.raw();
    }

    private List<String> lockKeys(String r) {
        return List.of(NS + "{" + r + "}:lock", NS + "{" + r + "}:fence");
    }

    // ---- locks: protocol 1 beside protocol 2 -------------------------------------------------

    @Test
    void aProtocolOneAcquireAfterAJavaLeaseAndItsFenceExpiredIsRefusedNotGrantedFenceOne() {
        String r = "invoice-1";
        String lockKey = lockKeys(r).get(0);
        String fenceKey = lockKeys(r).get(1);
        // the protocol-1 client has locked this resource before the upgrade: its counter stays
        assertThat(one.run("lock/acquire-2.lua", lockKeys(r), "old-1", "10000")).isEqualTo(List.of(1L, 1L));
        assertThat(one.run("lock/release-2.lua", List.of(lockKey, NS + "{" + r + "}:released"), "old-1", "PUBLISH"))
                .isEqualTo(1L);

        // a Java holder writes under its fence, then stalls past its ttl
        FencedStore store = locks.fencedStore();
        Lease stale = locks.tryAcquire(r, Duration.ofMillis(300)).orElseThrow();
        assertThat(store.write("row", stale.fence(), "by the Java holder")).isEqualTo(FencedWriteOutcome.WRITTEN);
        await().atMost(Duration.ofSeconds(10)).until(() -> raw().call("EXISTS", lockKey).equals(0L)
                && (raw().call("EXISTS", fenceKey).equals(0L) || raw().call("PTTL", fenceKey).equals(-1L)));

        // protocol 1 would count on from nothing and grant fence 1; the mark makes its INCR fail
        assertThatThrownBy(() -> one.run("lock/acquire-2.lua", lockKeys(r), "old-2", "500"))
                .isInstanceOf(RawRedis.ErrorReply.class).hasMessageContaining("not an integer");
        assertThat(raw().call("GET", fenceKey)).as("the mark is untouched").isEqualTo("v2:" + stale.fence());

        // What the refused acquire leaves: its SET came before the INCR, so the lock holds a token
        // nobody was granted, for at most the ttl it asked for; no fence was handed out.
        long left = (Long) raw().call("PTTL", lockKey);
        assertThat(left).isBetween(1L, 500L);
        await().atMost(Duration.ofSeconds(10)).until(() -> raw().call("EXISTS", lockKey).equals(0L));

        // the next grant is above the stale holder's, so the store now refuses the stale holder
        Lease next = locks.tryAcquire(r, Duration.ofSeconds(10)).orElseThrow();
        assertThat(next.fence()).isGreaterThan(stale.fence());
        assertThat(store.write("row", next.fence(), "by the holder")).isEqualTo(FencedWriteOutcome.WRITTEN);
        assertThat(store.write("row", stale.fence(), "by the stale holder")).isEqualTo(FencedWriteOutcome.STALE);
        next.release();
    }

    @Test
    void aProtocolOneHandoffOrFenceRaiseOnAMarkedResourceIsRefused() {
        String r = "invoice-2";
        String fenceKey = lockKeys(r).get(1);
        raw().call("SET", fenceKey, "4");   // a protocol-1 counter
        Lease lease = locks.tryAcquire(r, Duration.ofSeconds(10)).orElseThrow();
        lease.release();
        String mark = "v2:" + lease.fence();
        assertThat(raw().call("GET", fenceKey)).isEqualTo(mark);

        // Redlock's write-back of protocol 1 compares a number with the mark: a script error, no write
        assertThatThrownBy(() -> one.run("lock/fence-raise-1.lua", List.of(fenceKey), "99999999999999999"))
                .isInstanceOf(RawRedis.ErrorReply.class);
        assertThat(raw().call("GET", fenceKey)).isEqualTo(mark);

        // the plain acquire of protocol 1 (SET NX PX, unfenced) still excludes, and its handoff's INCR fails
        assertThat(raw().call("SET", lockKeys(r).get(0), "old-1", "NX", "PX", "10000")).isEqualTo("OK");
        assertThat(locks.tryAcquire(r, Duration.ofSeconds(1))).as("held by the protocol-1 client").isEmpty();
        assertThatThrownBy(() -> one.run("lock/handoff-2.lua", lockKeys(r), "old-1", "old-2", "10000"))
                .isInstanceOf(RawRedis.ErrorReply.class).hasMessageContaining("not an integer");
        assertThat(raw().call("GET", fenceKey)).isEqualTo(mark);
    }

    @Test
    void inTheUpgradeModeAResourceOnlyProtocolTwoLockedRefusesAProtocolOneAcquireAfterItsLeaseEnded()
            throws Exception {
        try (LockClient upgrading = LockClient.builder().redisUrl(REDIS.url()).markFencesForProtocol1(true).build()) {
            String r = "invoice-4";
            String fenceKey = lockKeys(r).get(1);
            Lease first = upgrading.tryAcquire(r, Duration.ofMillis(200)).orElseThrow();
            first.release();
            // the waiting acquire's try (wait-acquire-3) marks too, and the handoff is the same grant
            Lease second = upgrading.acquire(r, Duration.ofMillis(200), Duration.ofSeconds(5));
            assertThat(second.fence()).isGreaterThan(first.fence());
            assertThat(raw().call("GET", fenceKey)).isEqualTo("v2:" + second.fence());
            assertThat(raw().call("PTTL", fenceKey)).as("the mark has no expiry").isEqualTo(-1L);
            await().atMost(Duration.ofSeconds(10)).until(() -> raw().call("EXISTS", lockKeys(r).get(0)).equals(0L));

            assertThatThrownBy(() -> one.run("lock/acquire-2.lua", lockKeys(r), "old-1", "500"))
                    .isInstanceOf(RawRedis.ErrorReply.class).hasMessageContaining("not an integer");
            assertThat(raw().call("GET", fenceKey)).isEqualTo("v2:" + second.fence());

            // Redlock's write-back marks the fence it raises too
            String raised = lockKeys("invoice-5").get(1);
            Object reply = raw().call("EVAL", Scripts.FENCE_RAISE.body(), "1", raised, "7", "1000", "1");
            assertThat(reply).isEqualTo(7L);
            assertThat(raw().call("GET", raised)).isEqualTo("v2:7");
            assertThatThrownBy(() -> one.run("lock/acquire-2.lua", lockKeys("invoice-5"), "old-2", "500"))
                    .isInstanceOf(RawRedis.ErrorReply.class).hasMessageContaining("not an integer");
        }
    }

    @Test
    void withoutTheUpgradeModeAResourceOnlyProtocolTwoLockedGrantsProtocolOneFenceOneOnceItsFenceKeyExpired() {
        // the documented gap (docs/protocol.md, "Which mixes are safe"): no data is left to refuse it
        String r = "invoice-6";
        Lease lease = locks.tryAcquire(r, Duration.ofMillis(200)).orElseThrow();
        lease.release();
        await().atMost(Duration.ofSeconds(10)).until(() -> raw().call("EXISTS", lockKeys(r).get(1)).equals(0L));
        assertThat(one.run("lock/acquire-2.lua", lockKeys(r), "old-1", "500")).isEqualTo(List.of(1L, 1L));
    }

    @Test
    void aFenceKeyOfALaterProtocolIsRefusedWithAProtocolVersionExceptionAndTakesNothing() {
        String r = "invoice-3";
        raw().call("SET", lockKeys(r).get(1), "v3:anything");
        assertThatThrownBy(() -> locks.tryAcquire(r, Duration.ofSeconds(5)))
                .isInstanceOf(ProtocolVersionException.class)
                .hasRootCauseMessage("EMQPROTOCOL " + lockKeys(r).get(1)
                        + " holds data of protocol 3; this client speaks protocol 2; nothing was changed");
        assertThat(raw().call("EXISTS", lockKeys(r).get(0))).as("the lock was not taken").isEqualTo(0L);
        assertThat(raw().call("GET", lockKeys(r).get(1))).isEqualTo("v3:anything");
    }

    // ---- queues: protocol 1 beside protocol 2 ------------------------------------------------

    private List<?> protocolOneClaim(int n) {
        return (List<?>) one.run("queue/claim-8.lua", List.of(Q + "pending", Q + "active", Q + "delayed", Q + "dead",
                Q + "seq", Q + "stats", Q + "wake", Q + "wait"), Q, "30000", Integer.toString(n), "0", "0", "PUBLISH", "0");
    }

    private static int claimed(List<?> reply) {
        return (reply.size() - 4) / 5;
    }

    /** @return every key with its type and DUMP (the value, without the ttl) */
    private java.util.Map<String, String> keyspace() {
        java.util.Map<String, String> all = new java.util.TreeMap<>();
        for (Object key : (List<?>) raw().call("KEYS", "*")) {
            String k = key.toString();
            all.put(k, raw().call("TYPE", k) + " " + raw().call("DUMP", k));
        }
        return all;
    }

    private List<?> protocolOneEnqueue(String payload, long delayMs) {
        return (List<?>) one.run("queue/enqueue-5.lua", List.of(Q + "pending", Q + "delayed", Q + "seq", Q + "wake",
                Q + "wait"), Q, "1", payload, "0", Long.toString(delayMs), "0", "0", "0", "0", "", "0", "PUBLISH");
    }

    @Test
    void aProtocolOneClaimOnAPausedCappedProtocolTwoQueueIsRefusedAndChangesNothing() {
        Queue q = queues.queue("q");
        for (int i = 0; i < 6; i++) {
            q.enqueue("job " + i);
        }
        q.flowControl().setConcurrencyCap(1);
        q.pause();
        assertThat(raw().call("GET", Q + "delayed")).as("the queue's protocol mark").isEqualTo("2");
        java.util.Map<String, String> before = keyspace();

        assertThatThrownBy(() -> protocolOneClaim(3)).isInstanceOf(RawRedis.ErrorReply.class)
                .hasMessageContaining("WRONGTYPE " + Q + "delayed").hasMessageContaining("nothing was changed");
        assertThat(keyspace()).as("the keyspace is unchanged").isEqualTo(before);
        assertThat(q.stats().pending()).isEqualTo(6L);
        assertThat(q.stats().active()).isZero();
    }

    @Test
    void aPauseMarksAQueueWithoutJobsSoThatAProtocolOneProducerAndConsumerAreRefusedThere() {
        Queue q = queues.queue("q");
        assertThat(q.claim(Duration.ofSeconds(30))).as("an idle claim writes nothing").isEmpty();
        assertThat(raw().call("EXISTS", Q + "delayed")).isEqualTo(0L);
        q.pause();
        assertThat(raw().call("GET", Q + "delayed")).isEqualTo("2");
        assertThatThrownBy(() -> protocolOneEnqueue("x", 0)).isInstanceOf(RawRedis.ErrorReply.class)
                .hasMessageContaining("WRONGTYPE");
        assertThatThrownBy(() -> protocolOneClaim(1)).isInstanceOf(RawRedis.ErrorReply.class)
                .hasMessageContaining("WRONGTYPE");
    }

    @Test
    void aProtocolOneClientCanNeitherClaimNorGroupCommitOnAProtocolTwoQueueAndSettlesOnlyWhatItHeldBefore()
            throws Exception {
        // before any client of protocol 2 touched the queue, protocol 1 enqueued and claimed two jobs
        String a = protocolOneEnqueue("a", 0).get(0).toString();
        String b = protocolOneEnqueue("b", 0).get(0).toString();
        List<?> held = protocolOneClaim(2);
        assertThat(claimed(held)).isEqualTo(2);
        String attemptA = held.get(6).toString();
        String attemptB = held.get(11).toString();

        // a producer of protocol 2 marks the queue
        Queue q = queues.queue("q");
        String c = q.enqueue("c");
        assertThat(raw().call("GET", Q + "delayed")).isEqualTo("2");

        // the new job cannot be claimed by protocol 1, so protocol 1 never completes a job a waiter
        // of protocol 2 would then find NOT_FOUND; the claim's group-committed ack is refused with it
        java.util.Map<String, String> before = keyspace();
        assertThatThrownBy(() -> one.run("queue/claim-8.lua", List.of(Q + "pending", Q + "active", Q + "delayed",
                Q + "dead", Q + "seq", Q + "stats", Q + "wake", Q + "wait"), Q, "30000", "1", "0", "0", "PUBLISH", "1",
                a, attemptA)).isInstanceOf(RawRedis.ErrorReply.class).hasMessageContaining("WRONGTYPE");
        assertThat(keyspace()).isEqualTo(before);
        assertThat(q.stats().active()).as("a and b are still held").isEqualTo(2L);

        // the bound: a bare complete of a job claimed before the mark still acts, as protocol 1
        assertThat(one.run("queue/complete-2.lua", List.of(Q + "active", Q + "stats"), Q, "0", "1", b, attemptB))
                .isEqualTo(List.of(1L));
        assertThat(q.awaitResult(b, Duration.ZERO).outcome()).as("no completed event from protocol 1")
                .isEqualTo(JobResult.Outcome.NOT_FOUND);

        // protocol 2 claims and completes the rest; its waiter sees its own completion
        Job job = q.claim(Duration.ofSeconds(30)).orElseThrow();
        assertThat(job.id()).isEqualTo(c);
        assertThat(job.complete()).isEqualTo(io.echomq.queue.SettleOutcome.COMPLETED);
        assertThat(q.awaitResult(c, Duration.ZERO).outcome()).isEqualTo(JobResult.Outcome.COMPLETED);
    }

    @Test
    void aProtocolOneReaperStillReturnsAnExpiredLeaseOfAMarkedQueueTheDocumentedCaseThatOnlyStoppingItEnds() {
        // docs/protocol.md, "Which mixes are safe": reap-5 reads no delayed jobs, so the mark does not stop it
        Queue q = queues.queue("q");
        String id = q.enqueue("x");
        assertThat(q.claim(Duration.ofMillis(100)).orElseThrow().id()).isEqualTo(id);
        await().atMost(Duration.ofSeconds(10)).until(() -> one.run("queue/reap-5.lua", List.of(Q + "active", Q + "pending",
                Q + "dead", Q + "wake", Q + "wait"), Q, "10", "PUBLISH").equals(List.of(1L, 0L)));
        assertThat(raw().call("LRANGE", Q + "wait", "0", "-1")).isEqualTo(List.of(id));
        assertThat(raw().call("GET", Q + "delayed")).as("the mark stays").isEqualTo("2");
        assertThatThrownBy(() -> protocolOneClaim(1)).as("but the same process cannot claim the job again")
                .isInstanceOf(RawRedis.ErrorReply.class).hasMessageContaining("WRONGTYPE");
    }

    @Test
    void aQueueWrittenByProtocolOneKeepsEveryJobAndDueTimeWhenProtocolTwoStartsAndRefusesProtocolOneAfter() {
        String now = protocolOneEnqueue("now", 0).get(0).toString();
        String soon = protocolOneEnqueue("soon", 60_000).get(0).toString();
        String later = protocolOneEnqueue("later", 120_000).get(0).toString();
        Object soonAt = raw().call("ZSCORE", Q + "delayed", soon);
        Object laterAt = raw().call("ZSCORE", Q + "delayed", later);
        assertThat(raw().call("TYPE", Q + "delayed")).isEqualTo("zset");

        Queue q = queues.queue("q");
        assertThat(q.stats().delayed()).as("read before the move").isEqualTo(2L);
        Job job = q.claim(Duration.ofSeconds(30)).orElseThrow();   // a protocol-2 worker's first claim
        assertThat(job.id()).isEqualTo(now);
        assertThat(raw().call("GET", Q + "delayed")).isEqualTo("2");
        assertThat(raw().call("ZSCORE", Q + "due", soon)).isEqualTo(soonAt);
        assertThat(raw().call("ZSCORE", Q + "due", later)).isEqualTo(laterAt);
        assertThat(q.stats().delayed()).isEqualTo(2L);
        assertThat(job.complete()).isEqualTo(io.echomq.queue.SettleOutcome.COMPLETED);

        java.util.Map<String, String> before = keyspace();
        assertThatThrownBy(() -> protocolOneClaim(1)).isInstanceOf(RawRedis.ErrorReply.class)
                .hasMessageContaining("WRONGTYPE");
        assertThatThrownBy(() -> protocolOneEnqueue("refused", 0)).isInstanceOf(RawRedis.ErrorReply.class)
                .hasMessageContaining("WRONGTYPE");
        assertThatThrownBy(() -> one.run("queue/promote-5.lua", List.of(Q + "pending", Q + "delayed", Q + "seq",
                Q + "wake", Q + "wait"), Q, "100", "PUBLISH")).isInstanceOf(RawRedis.ErrorReply.class)
                .hasMessageContaining("WRONGTYPE");
        assertThat(keyspace()).isEqualTo(before);
    }

    @Test
    void aProtocolOneAndAProtocolTwoDelayedSetAreMergedKeepingTheEarlierDueTime() {
        String soon = protocolOneEnqueue("soon", 60_000).get(0).toString();
        raw().call("ZADD", Q + "due", "5", "other");
        raw().call("ZADD", Q + "due", "1", soon);
        Queue q = queues.queue("q");
        q.enqueue("x");
        assertThat(raw().call("GET", Q + "delayed")).isEqualTo("2");
        assertThat(raw().call("ZSCORE", Q + "due", soon)).isEqualTo("1");
        assertThat(raw().call("ZSCORE", Q + "due", "other")).isEqualTo("5");
    }

    @Test
    void aQueueOfALaterProtocolRefusesClaimsAndSettlesWithAProtocolVersionException() {
        Queue q = queues.queue("q");
        q.enqueue("a");
        q.enqueue("b");
        Job held = q.claim(Duration.ofSeconds(30)).orElseThrow();
        raw().call("SET", Q + "delayed", "3");

        assertThatThrownBy(() -> q.claim(Duration.ofSeconds(30))).isInstanceOf(ProtocolVersionException.class)
                .hasMessageContaining("holds protocol 3; this client speaks protocol 2; nothing was changed");
        assertThatThrownBy(held::complete).isInstanceOf(ProtocolVersionException.class);
        assertThatThrownBy(() -> q.enqueue("c")).isInstanceOf(ProtocolVersionException.class);
        raw().call("SET", Q + "delayed", "2");
        assertThat(q.stats().pending()).as("nothing claimed").isEqualTo(1L);
        assertThat(q.stats().active()).as("nothing settled").isEqualTo(1L);
        assertThat(held.complete()).isEqualTo(io.echomq.queue.SettleOutcome.COMPLETED);
    }
}
