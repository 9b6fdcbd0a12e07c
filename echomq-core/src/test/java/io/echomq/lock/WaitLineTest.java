package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.internal.Scripts;
import io.echomq.server.CommandTap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The waiting acquires of one client line up per resource: a release wakes one try from the
 * client, not one per waiting thread: a contended release must not wake a thundering herd.
 */
class WaitLineTest extends LockTestBase {
    private static final int WAITERS = 6;

    @Test
    @org.junit.jupiter.api.Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
    void eachReleaseCostsOneGrantAndOneRefusedTryNotOneTryPerWaiter() throws Exception {
        // A 60 s fallback poll and a 60 s ttl: only releases move the waiters.
        LockClient waiters = client(b -> b.pollInterval(Duration.ofSeconds(60)));
        Lease holder = locks.tryAcquire("line", Duration.ofSeconds(60)).orElseThrow();
        List<Long> fences = new CopyOnWriteArrayList<>();
        List<Thread> threads = new CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(WAITERS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < WAITERS; i++) {
                done.add(pool.submit(() -> {
                    threads.add(Thread.currentThread());
                    try (Lease lease = waiters.acquire("line", Duration.ofSeconds(30), Duration.ofSeconds(30))) {
                        fences.add(lease.fence());
                    }
                    return null;
                }));
            }
            // every waiter is parked inside acquire: in the line, or first in it waiting for a release
            await().atMost(Duration.ofSeconds(10)).during(Duration.ofMillis(300))
                    .until(() -> threads.size() == WAITERS
                            && threads.stream().allMatch(t -> t.getState() == Thread.State.TIMED_WAITING));

            List<List<String>> commands;
            try (CommandTap tap = raw().monitor()) {
                raw().call("ECHO", "release");
                assertThat(tap.awaitCommand(c -> c.equals(List.of("ECHO", "release")), Duration.ofSeconds(5))).isTrue();
                assertThat(holder.release()).isEqualTo(ReleaseOutcome.RELEASED);
                for (Future<?> f : done) {
                    f.get(20, TimeUnit.SECONDS);
                }
                raw().call("ECHO", "done");
                assertThat(tap.awaitCommand(c -> c.equals(List.of("ECHO", "done")), Duration.ofSeconds(5))).isTrue();
                commands = tap.commands();
            }
            // A grant is an acquire-2 (a first try) or a wait-acquire-3 (a waiter's try), or a
            // handoff-2 when a waiter's release hands the lock to the next waiter of the same client
            // (HandoffTest); count them all.
            long grantScripts = commands.stream()
                    .filter(c -> c.get(0).equalsIgnoreCase("EVALSHA")
                            && (c.get(1).equals(Scripts.ACQUIRE.sha()) || c.get(1).equals(Scripts.WAIT_ACQUIRE.sha())
                                || c.get(1).equals(Scripts.HANDOFF.sha())))
                    .count();
            // WAITERS grants, and after each grant but the last one refused try by the next in
            // line; a herd would have sent 6 + 5 + 4 + 3 + 2 + 1 = 21
            assertThat(grantScripts).isBetween((long) WAITERS, 2L * WAITERS - 1);
            assertThat(fences).hasSize(WAITERS);
            for (int i = 1; i < fences.size(); i++) {
                assertThat(fences.get(i)).isGreaterThan(fences.get(i - 1));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aWaiterThatRunsOutOfTimeInTheLineTimesOutAndTheLineMovesOn() throws Exception {
        LockClient waiters = client(b -> b.pollInterval(Duration.ofSeconds(60)));
        Lease holder = locks.tryAcquire("short-wait", Duration.ofSeconds(60)).orElseThrow();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Lease> patient = pool.submit(
                    () -> waiters.acquire("short-wait", Duration.ofSeconds(30), Duration.ofSeconds(30)));
            Future<Lease> hasty = pool.submit(
                    () -> waiters.acquire("short-wait", Duration.ofSeconds(30), Duration.ofMillis(300)));
            try {
                hasty.get(10, TimeUnit.SECONDS);
                throw new AssertionError("the hasty waiter should have timed out");
            } catch (java.util.concurrent.ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(LockWaitTimeoutException.class);
            }
            holder.release();
            Lease next = patient.get(10, TimeUnit.SECONDS);
            assertThat(next.fence()).isGreaterThan(holder.fence()).isEqualTo(locks.inspect(next.resource()).lastFence());
        } finally {
            pool.shutdownNow();
        }
    }
}
