package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The reaper: expired leases only, bounded, once each, counted as attempts, never against an extension. */
@Timeout(60)
class ReapTest extends SemanticsTestBase {
    private static final Duration SHORT = Duration.ofMillis(60);

    @Test
    void reapReturnsOnlyLeasesPastTheirDeadline() {
        String expiring = queue.enqueue("expiring");
        String held = queue.enqueue("held");
        String waiting = queue.enqueue("waiting");
        Job short1 = queue.claim(SHORT).orElseThrow();
        Job long1 = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(short1.id()).isEqualTo(expiring);
        long heldDeadline = score(ACTIVE, held);

        awaitLeaseExpired(expiring);
        assertThat(queue.reap(100)).isEqualTo(new ReapResult(1, 0));

        assertThat(members(ACTIVE)).containsExactly(held);
        assertThat(score(ACTIVE, held)).isEqualTo(heldDeadline);
        assertThat(exists(lockKey(held))).as("no lock subkey in the LIST layout").isFalse();
        assertThat(exists(lockKey(expiring))).isFalse();
        assertThat(hash(expiring)).containsEntry("state", "pending").containsEntry("attempts", "1")
                .containsEntry("spent", "1");
        assertThat(field(expiring, "last_error")).contains("lease expired on attempt 1");
        // the reaped job keeps its old place, ahead of jobs enqueued after it
        assertThat(pendingIds()).containsExactly(expiring, waiting);
        assertThat(waiting()).as("priority 0: LPUSHed to the front of the wait LIST").containsExactly(expiring, waiting);
        assertThat(long1.extend(LONG_LEASE)).isTrue();
    }

    @Test
    void reapedAndReturnedJobsGetTheirExactScoreBackInEveryBand() {
        String top = queue.enqueue("top".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults().withPriority(1000)).id();
        String bottom = queue.enqueue("bottom".getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withPriority(-1000)).id();
        String plain = queue.enqueue("plain");
        long topScore = score(PENDING, top);
        long bottomScore = score(PENDING, bottom);

        List<Job> jobs = queue.claim(3, SHORT);
        assertThat(jobs).extracting(Job::id).containsExactly(top, plain, bottom);
        awaitLeaseExpired(bottom);
        assertThat(queue.reap(10)).isEqualTo(new ReapResult(3, 0));
        assertThat(score(PENDING, top)).isEqualTo(topScore);
        assertThat(score(PENDING, bottom)).isEqualTo(bottomScore);
        assertThat(waiting()).as("priority 0 goes back to the wait LIST, not the ZSET").containsExactly(plain);
        assertThat(score(PENDING, plain)).isNull();

        List<Job> again = queue.claim(3, LONG_LEASE);
        assertThat(again).extracting(Job::id).containsExactly(top, plain, bottom);
        again.forEach(j -> assertThat(j.returnLease()).isEqualTo(SettleOutcome.RETURNED));
        assertThat(score(PENDING, top)).isEqualTo(topScore);
        assertThat(score(PENDING, bottom)).isEqualTo(bottomScore);
        assertThat(waiting()).containsExactly(plain);
        assertThat(pendingIds()).containsExactly(top, plain, bottom);
    }

    @Test
    void aLeaseAtItsDeadlineIsReaped() {
        String id = queue.enqueue("x");
        queue.claim(LONG_LEASE).orElseThrow();
        // move the deadline to the server's present moment: "at the deadline" counts as expired
        long now = serverMillis();
        raw().call("ZADD", ACTIVE, "XX", Long.toString(now), id);
        assertThat(queue.stats().overdue()).isEqualTo(1);
        assertThat(queue.reap(10)).isEqualTo(new ReapResult(1, 0));
    }

    @Test
    void reapedAttemptsCountAndTheLastExpiryGoesToDead() {
        String id = queue.enqueue("x".getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withMaxAttempts(2)).id();

        Job first = queue.claim(SHORT).orElseThrow();
        assertThat(first.spentAttempts()).isEqualTo(1);
        awaitLeaseExpired(id);
        assertThat(queue.reap(10)).isEqualTo(new ReapResult(1, 0));
        assertThat(field(id, "spent")).as("the reaped attempt stays spent").isEqualTo("1");

        Job second = queue.claim(SHORT).orElseThrow();
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(second.spentAttempts()).isEqualTo(2);
        awaitLeaseExpired(id);
        long t0 = serverMillis();
        assertThat(queue.reap(10)).isEqualTo(new ReapResult(0, 1));
        long t1 = serverMillis();

        assertThat(members(DEAD)).containsExactly(id);
        assertThat(score(DEAD, id)).isBetween(t0, t1);
        assertThat(pendingCount()).isZero();
        assertThat(card(ACTIVE)).isZero();
        assertThat(exists(lockKey(id))).isFalse();
        assertThat(field(id, "state")).isEqualTo("dead");
        assertThat(field(id, "dead_reason")).isEqualTo("lease expired on 2 of 2 attempts");
        assertThat(field(id, "last_error")).contains("lease expired on attempt 2");
        assertThat(Long.parseLong(field(id, "finished_at"))).isBetween(t0, t1);

        List<DeadJob> dead = queue.dead(10);
        assertThat(dead).hasSize(1);
        assertThat(dead.get(0).id()).isEqualTo(id);
        assertThat(dead.get(0).reason()).contains("lease expired");
        assertThat(dead.get(0).attempts()).isEqualTo(2);
        assertThat(dead.get(0).payloadUtf8()).isEqualTo("x");
    }

    @Test
    void reapIsBoundedByItsLimitAndTakesTheOldestDeadlinesFirst() {
        for (int i = 0; i < 5; i++) {
            queue.enqueue("j" + i);
        }
        List<String> claimedOrder = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            claimedOrder.add(queue.claim(SHORT).orElseThrow().id());
        }
        claimedOrder.forEach(this::awaitLeaseExpired);

        assertThat(queue.reap(2)).isEqualTo(new ReapResult(2, 0));
        assertThat(card(ACTIVE)).isEqualTo(3);
        assertThat(queue.reap(2)).isEqualTo(new ReapResult(2, 0));
        assertThat(queue.reap(2)).isEqualTo(new ReapResult(1, 0));
        assertThat(queue.reap(2)).isEqualTo(new ReapResult(0, 0));
        // Priority 0: each reap LPUSHes its jobs, in expiry order, to the FRONT of the wait LIST, ahead
        // of what earlier reaps put there (docs/protocol.md: a LIST keeps no score to restore).
        List<String> c = claimedOrder;
        assertThat(pendingIds()).containsExactly(c.get(4), c.get(2), c.get(3), c.get(0), c.get(1));
    }

    @Test
    void concurrentReapsFromSeveralClientsMoveEachJobOnce() throws Exception {
        int jobs = 300;
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            requests.add(JobRequest.of("j" + i));
        }
        queue.enqueueAll(requests);
        List<String> ids = new ArrayList<>();
        queue.claim(jobs, SHORT).forEach(j -> ids.add(j.id()));
        assertThat(ids).hasSize(jobs);
        awaitServerTimePast(ids.stream().mapToLong(id -> score(ACTIVE, id)).max().orElseThrow());

        int reapers = 4;
        List<Queue> queues = new ArrayList<>();
        for (int i = 0; i < reapers; i++) {
            queues.add(client(b -> { }).queue("q"));
        }
        CyclicBarrier start = new CyclicBarrier(reapers);
        AtomicLong returned = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(reapers);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (Queue q : queues) {
                futures.add(pool.submit(() -> {
                    start.await();
                    ReapResult r;
                    do {
                        r = q.reap(7);
                        returned.addAndGet(r.returned());
                        assertThat(r.dead()).isZero();
                    } while (r.returned() > 0);
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(returned.get()).isEqualTo(jobs);
        assertThat(card(ACTIVE)).isZero();
        List<String> pending = pendingIds();
        assertThat(pending).hasSize(jobs);
        assertThat(new HashSet<>(pending)).hasSize(jobs);
        for (String id : ids) {
            assertThat(field(id, "spent")).isEqualTo("1");
            assertThat(field(id, "state")).isEqualTo("pending");
        }
    }

    /**
     * Extend and reap race at about the deadline, 200 rounds, each from its own connection. Whatever
     * the interleaving, an extension that was answered EXTENDED is never lost to the reaper, and a job
     * the reaper returned was never extended.
     */
    @Test
    void aReapRacingAnExtendNeverLosesTheExtension() throws Exception {
        Queue reaperQueue = client(b -> { }).queue("q");
        Duration lease = Duration.ofMillis(25);
        int rounds = 200;
        int extendedCount = 0;
        int reapedCount = 0;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < rounds; round++) {
                String id = queue.enqueue("round-" + round);
                Job job = queue.claim(lease).orElseThrow();
                // Aim both calls at the deadline, spread from 18 ms before to 12 ms after it. The local
                // target is computed from the server's deadline and its clock right now.
                long deadline = score(ACTIVE, id);
                long serverNow = serverMillis();
                long localNow = System.nanoTime();
                long offsetMs = (round % 31) - 18;
                long target = localNow + TimeUnit.MILLISECONDS.toNanos(deadline - serverNow + offsetMs);
                CyclicBarrier go = new CyclicBarrier(2);
                Future<Boolean> extend = pool.submit(() -> {
                    go.await();
                    parkUntil(target);
                    return job.extend(LONG_LEASE);
                });
                Future<ReapResult> reap = pool.submit(() -> {
                    go.await();
                    parkUntil(target);
                    return reaperQueue.reap(10);
                });
                boolean extended = extend.get(10, TimeUnit.SECONDS);
                ReapResult reaped = reap.get(10, TimeUnit.SECONDS);

                if (extended) {
                    extendedCount++;
                    assertThat(reaped.returned()).as("round %d: reaped an extended job", round).isZero();
                    assertThat(members(ACTIVE)).as("round %d", round).containsExactly(id);
                    assertThat(score(ACTIVE, id)).as("round %d: the new deadline", round)
                            .isGreaterThan(deadline + 10_000);
                    assertThat(hash(id)).as("round %d", round).containsEntry("state", "active")
                            .containsEntry("attempts", "1");
                    assertThat(exists(lockKey(id))).as("round %d: no lock subkey in the LIST layout", round).isFalse();
                    assertThat(pendingCount()).as("round %d", round).isZero();
                } else {
                    assertThat(extended).as("round %d", round).isFalse();
                    assertThat(job.lossReason().orElseThrow()).as("round %d", round)
                            .isIn(LeaseLossReason.EXPIRED, LeaseLossReason.NOT_ACTIVE);
                }
                if (reaped.returned() > 0) {
                    reapedCount++;
                    assertThat(reaped.returned()).isEqualTo(1);
                    assertThat(extended).as("round %d: reaped, yet extended", round).isFalse();
                    assertThat(pendingIds()).as("round %d", round).containsExactly(id);
                    assertThat(card(ACTIVE)).as("round %d", round).isZero();
                }
                assertThat(queue.remove(id, true)).isEqualTo(RemoveOutcome.REMOVED);
            }
        } finally {
            pool.shutdownNow();
        }
        // Both sides of the race were exercised: the early offsets extend in time, the late ones find
        // the lease gone (10+ ms either side of the deadline dwarfs a local round trip).
        assertThat(extendedCount).as("rounds the extend won").isPositive();
        assertThat(reapedCount).as("rounds the reaper won").isPositive();
    }

    /** Parks until a moment in time: aims a call at the deadline; it waits for no condition. */
    private static void parkUntil(long nanoTime) {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    @Test
    void reapOfAForeignActiveEntryWithoutAHashGoesToDead() {
        // an active entry whose hash is gone (or of the wrong type) cannot be returned: it dies
        raw().call("ZADD", ACTIVE, "1", "ghost");
        raw().call("SET", jobKey("stringy"), "junk");
        raw().call("ZADD", ACTIVE, "2", "stringy");
        assertThat(queue.reap(10)).isEqualTo(new ReapResult(0, 2));
        assertThat(members(DEAD)).containsExactlyInAnyOrder("ghost", "stringy");
        assertThat(get(jobKey("stringy"))).as("a foreign string is not overwritten").isEqualTo("junk");
        assertThat(card(ACTIVE)).isZero();
    }
}
