package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.RedisCommandException;
import io.echomq.internal.Scripts;
import io.echomq.server.CommandTap;
import io.echomq.testkit.FaultProxy;
import io.echomq.testkit.LockHistory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A release hands the lock to the first waiting acquire of the same client in one script
 * ({@code handoff-2.lua}): a new grant in every sense (new token, next fence, the waiter's ttl),
 * bounded so that other clients' waiters are not starved, and safe under many threads, several
 * clients and cut connections.
 */
class HandoffTest extends LockTestBase {

    @Test
    @Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
    void aReleaseGrantsTheFirstLocalWaiterANewLeaseInOneScriptWithoutPublishing() throws Exception {
        LockClient c = client(b -> b.pollInterval(Duration.ofSeconds(60)));
        Lease holder = c.tryAcquire("baton", Duration.ofSeconds(60)).orElseThrow();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            List<Thread> waiting = new java.util.concurrent.CopyOnWriteArrayList<>();
            Future<Lease> waiter = pool.submit(() -> {
                waiting.add(Thread.currentThread());
                return c.acquire("baton", Duration.ofSeconds(20), Duration.ofSeconds(30));
            });
            // parked in acquire, first in line, its offer posted
            await().atMost(Duration.ofSeconds(10)).during(Duration.ofMillis(300))
                    .until(() -> !waiting.isEmpty() && waiting.get(0).getState() == Thread.State.TIMED_WAITING);

            List<List<String>> commands;
            try (CommandTap tap = raw().monitor()) {
                raw().call("ECHO", "release");
                assertThat(tap.awaitCommand(cmd -> cmd.equals(List.of("ECHO", "release")), Duration.ofSeconds(5))).isTrue();
                assertThat(holder.release()).isEqualTo(ReleaseOutcome.RELEASED);
                Lease handed = waiter.get(10, TimeUnit.SECONDS);
                raw().call("ECHO", "done");
                assertThat(tap.awaitCommand(cmd -> cmd.equals(List.of("ECHO", "done")), Duration.ofSeconds(5))).isTrue();
                commands = tap.commands();

                assertThat(handed.fence()).isGreaterThan(holder.fence());
                assertThat(get(c.fenceKey("baton"))).isEqualTo(Long.toString(handed.fence()));
                assertThat(handed.token()).isNotEqualTo(holder.token());
                assertThat(get(c.lockKey("baton"))).isEqualTo(handed.token());
                assertThat(pttl(c.lockKey("baton"))).isBetween(1L, 20_000L);   // the waiter's ttl, not the holder's
                assertThat(handed.isHeld()).isTrue();
                assertThat(holder.isHeld()).isFalse();
                assertThat(holder.renew()).isEqualTo(RenewOutcome.EXPIRED);       // released: the old token is dead
                assertThat(c.handoffs()).isEqualTo(1);
                assertThat(handed.release()).isEqualTo(ReleaseOutcome.RELEASED);  // nobody waits: a plain release
                assertThat(c.handoffs()).isEqualTo(1);
                assertThat(get(c.lockKey("baton"))).isNull();
            }
            assertThat(commands).anyMatch(cmd -> cmd.get(0).equalsIgnoreCase("EVALSHA")
                    && cmd.get(1).equals(Scripts.HANDOFF.sha()));
            assertThat(commands).noneMatch(cmd -> cmd.get(0).equalsIgnoreCase("EVALSHA")
                    && (cmd.get(1).equals(Scripts.RELEASE.sha()) || cmd.get(1).equals(Scripts.ACQUIRE.sha())
                        || cmd.get(1).equals(Scripts.WAIT_ACQUIRE.sha())));
            assertThat(commands).noneMatch(cmd -> cmd.get(0).toUpperCase().endsWith("PUBLISH"));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aReleaseOfALostLeaseHandsNothingOverAndTheWaiterStillGetsTheLock() throws Exception {
        LockClient c = client(b -> b.pollInterval(Duration.ofMillis(200)));
        Lease stale = c.tryAcquire("lost", Duration.ofSeconds(60)).orElseThrow();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            List<Thread> waiting = new java.util.concurrent.CopyOnWriteArrayList<>();
            Future<Lease> waiter = pool.submit(() -> {
                waiting.add(Thread.currentThread());
                return c.acquire("lost", Duration.ofSeconds(20), Duration.ofSeconds(30));
            });
            await().atMost(Duration.ofSeconds(10)).during(Duration.ofMillis(300))
                    .until(() -> !waiting.isEmpty() && waiting.get(0).getState() == Thread.State.TIMED_WAITING);
            // someone else's grant replaces ours behind our back (as after an expiry and a new grant)
            raw().call("SET", c.lockKey("lost"), "intruder", "PX", "300");
            assertThat(stale.release()).isEqualTo(ReleaseOutcome.NOT_OWNER);
            assertThat(c.handoffs()).isZero();
            Lease lease = waiter.get(10, TimeUnit.SECONDS);   // at the intruder's expiry, by its own acquire
            assertThat(lease.fence()).isGreaterThan(stale.fence());
            assertThat(get(c.fenceKey("lost"))).isEqualTo(Long.toString(lease.fence()));
            assertThat(get(c.lockKey("lost"))).isEqualTo(lease.token());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anotherClientsWaiterIsNotStarvedByABusyClientsHandoffs() throws Exception {
        LockClient busy = client(b -> { });
        LockClient other = client(b -> { });
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> loops = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                loops.add(pool.submit(() -> {
                    int grants = 0;
                    while (!stop.get()) {
                        try (Lease lease = busy.acquire("hot", Duration.ofSeconds(30), Duration.ofSeconds(60))) {
                            grants++;
                        }
                    }
                    return grants;
                }));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> busy.handoffs() >= 20);
            Lease won = other.acquire("hot", Duration.ofSeconds(30), Duration.ofSeconds(60));
            assertThat(get(other.lockKey("hot"))).isEqualTo(won.token());
            won.release();
            stop.set(true);
            for (Future<Integer> f : loops) {
                assertThat(f.get(60, TimeUnit.SECONDS)).isPositive();
            }
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
    }

    @Test
    void theBoundLetsEveryNinthReleaseGoPlainWhileAnOfferIsOut() throws Exception {
        WaitLine line = new WaitLine();
        try (WaitLine.Place place = line.join("r")) {
            assertThat(place.hasTurn()).isTrue();
            List<Boolean> handed = new ArrayList<>();
            for (int i = 0; i < 2 * (WaitLine.MAX_HANDOFFS_IN_A_ROW + 1); i++) {
                WaitLine.Offer posted = place.post(1000, AcquireOptions.defaults());
                WaitLine.Offer claimed = line.claim("r", "someone");
                handed.add(claimed != null);
                if (claimed != null) {
                    assertThat(claimed).isSameAs(posted);
                    assertThat(place.withdraw()).isFalse();   // the claimer owns it now
                    claimed.result.complete(null);
                } else {
                    assertThat(place.withdraw()).isTrue();
                }
            }
            List<Boolean> expected = new ArrayList<>();
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < WaitLine.MAX_HANDOFFS_IN_A_ROW; i++) {
                    expected.add(true);
                }
                expected.add(false);
            }
            assertThat(handed).isEqualTo(expected);
            assertThat(line.claim("nobody", "someone")).isNull();
        }
        assertThat(line.isBusy("r")).isFalse();
    }

    @Test
    void aReleaseClaimsTheFirstOpenOfferInLineOrderAndTheTurnPassesOnClose() {
        WaitLine line = new WaitLine();
        WaitLine.Place head = line.join("r");
        WaitLine.Place second = line.join("r");
        WaitLine.Place third = line.join("r");
        assertThat(head.hasTurn()).isTrue();
        assertThat(second.hasTurn()).isFalse();
        WaitLine.Offer secondOffer = second.post(1000, AcquireOptions.defaults());
        WaitLine.Offer thirdOffer = third.post(1000, AcquireOptions.defaults());
        // the head has no offer out (it is trying on Redis): the second's is the first open one
        assertThat(line.claim("r", "t")).isSameAs(secondOffer);
        assertThat(secondOffer.isClaimed()).isTrue();
        assertThat(line.claim("r", "t")).isSameAs(thirdOffer);
        assertThat(line.claim("r", "t")).isNull();
        head.close();
        assertThat(second.hasTurn()).isTrue();
        third.close();   // its claimed offer: a lease granted later is released, not kept
        second.close();
        assertThat(line.isBusy("r")).isFalse();
    }

    @Test
    @Tag("standalone-only")   // the fault proxy stands in front of one server
    void noDoubleGrantFenceOrderOrStaleWriteWithHandoffsAcrossClientsAndCutConnections() throws Exception {
        LockHistory history = new LockHistory();
        List<LockClient> clients = new ArrayList<>();
        try (FaultProxy proxy = FaultProxy.start(REDIS.server())) {
            clients.add(client(b -> b.pollInterval(Duration.ofMillis(50))));
            clients.add(client(b -> b.pollInterval(Duration.ofMillis(50))));
            LockClient.Builder viaProxy = LockClient.builder().redisUrl(proxy.url())
                    .pollInterval(Duration.ofMillis(50)).commandTimeout(Duration.ofSeconds(2));
            LockClient proxied = viaProxy.build();
            clients.add(proxied);
            AtomicBoolean stop = new AtomicBoolean();
            int threadsPerClient = 4;
            ExecutorService pool = Executors.newFixedThreadPool(clients.size() * threadsPerClient);
            try {
                List<Future<?>> workers = new ArrayList<>();
                for (int ci = 0; ci < clients.size(); ci++) {
                    LockClient c = clients.get(ci);
                    for (int t = 0; t < threadsPerClient; t++) {
                        String who = "c" + ci + "t" + t;
                        workers.add(pool.submit(() -> {
                            while (!stop.get()) {
                                work(c, who, history);
                            }
                            return null;
                        }));
                    }
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> history.grants() >= 300);
                proxy.cutAll();
                long after = history.grants();
                await().atMost(Duration.ofSeconds(30)).until(() -> history.grants() >= after + 300);
                proxy.cutAll();
                long later = history.grants();
                await().atMost(Duration.ofSeconds(30)).until(() -> history.grants() >= later + 300);
                stop.set(true);
                for (Future<?> w : workers) {
                    w.get(60, TimeUnit.SECONDS);
                }
            } finally {
                stop.set(true);
                pool.shutdownNow();
                proxied.close();
            }
        }
        LockHistory.Report report = history.check();
        assertThat(report.violations()).isEmpty();
        assertThat(report.grants()).isGreaterThanOrEqualTo(900);
        assertThat(report.writes()).isGreaterThanOrEqualTo(900);
        assertThat(clients.get(0).handoffs() + clients.get(1).handoffs()).isPositive();
    }

    /**
     * The history check of the test above without the fault proxy, which stands in front of one server only: the
     * same three clients' threads contend and hand the lock over, on one server or on a cluster.
     */
    @Test
    void noDoubleGrantFenceOrderOrStaleWriteWithHandoffsAcrossClients() throws Exception {
        LockHistory history = new LockHistory();
        List<LockClient> clients = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            clients.add(client(b -> b.pollInterval(Duration.ofMillis(50))));
        }
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(clients.size() * 4);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int ci = 0; ci < clients.size(); ci++) {
                LockClient c = clients.get(ci);
                for (int t = 0; t < 4; t++) {
                    String who = "c" + ci + "t" + t;
                    workers.add(pool.submit(() -> {
                        while (!stop.get()) {
                            work(c, who, history);
                        }
                        return null;
                    }));
                }
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> history.grants() >= 600);
            stop.set(true);
            for (Future<?> w : workers) {
                w.get(60, TimeUnit.SECONDS);
            }
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
        LockHistory.Report report = history.check();
        assertThat(report.violations()).isEmpty();
        assertThat(report.grants()).isGreaterThanOrEqualTo(600);
        assertThat(report.writes()).isEqualTo(report.grants());
        assertThat(report.refused()).as("no holder's write was stale").isZero();
        assertThat(clients.stream().mapToLong(LockClient::handoffs).sum()).as("handoffs between local waiters")
                .isPositive();
    }

    /** One round: acquire, a fenced write, release; failures of a cut connection are part of the game. */
    private void work(LockClient c, String who, LockHistory history) throws InterruptedException {
        long sent = System.nanoTime();
        Lease lease;
        try {
            lease = c.acquire("shared", Duration.ofMillis(1500), Duration.ofSeconds(20));
        } catch (RedisCommandException | LockWaitTimeoutException e) {
            return;
        }
        long reply = System.nanoTime();
        try {
            long wSent = System.nanoTime();
            boolean accepted;
            try {
                accepted = c.fencedStore().write("shared-data", lease.fence(), who)
                        == FencedWriteOutcome.WRITTEN;
            } catch (RedisCommandException e) {
                return;   // unknown: not recorded
            }
            history.write(new LockHistory.Write(who, lease.fence(), accepted, wSent, System.nanoTime()));
        } finally {
            long end = Math.min(System.nanoTime(), lease.validUntilNanos());
            history.grant(new LockHistory.Grant(who, lease.fence(), sent, reply, end));
            try {
                lease.release();
            } catch (RedisCommandException e) {
                // expires by its ttl
            }
        }
    }
}
