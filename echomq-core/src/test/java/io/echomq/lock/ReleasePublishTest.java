package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.internal.Scripts;
import io.echomq.server.CommandTap;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A release publishes only when someone may wait (release-3.lua), and that never loses a
 * wake-up: a waiter's refused try marks the resource as waited for in the same step
 * (wait-acquire-3.lua), so a release either finds the lock's waiter subscribed and marked, or
 * comes before the try that would then take the lock.
 *
 * <p>The waiters here poll once a minute and hold locks with a minute's ttl, so a lost wake-up
 * shows as a waiter that sleeps its whole (short) wait while the lock is free, and is granted
 * only by the try at its wait's end.
 */
class ReleasePublishTest extends LockTestBase {
    private static final Duration NO_POLL = Duration.ofSeconds(60);
    private static final Duration TTL = Duration.ofSeconds(60);
    private static final Duration WAIT = Duration.ofSeconds(3);
    private static final int ROUNDS = 150;

    private static boolean isPublish(List<String> cmd) {
        return cmd.get(0).toUpperCase(java.util.Locale.ROOT).endsWith("PUBLISH");
    }

    @Test
    @Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
    void aReleaseWithNobodyWaitingPublishesNothing() throws Exception {
        List<List<String>> commands;
        try (CommandTap tap = raw().monitor()) {
            for (int i = 0; i < 3; i++) {
                assertThat(locks.tryAcquire("quiet", TTL).orElseThrow().release()).isEqualTo(ReleaseOutcome.RELEASED);
            }
            assertThat(locks.tryAcquire("quiet", TTL, AcquireOptions.defaults().plain()).orElseThrow().release())
                    .isEqualTo(ReleaseOutcome.RELEASED);
            raw().call("ECHO", "done");
            assertThat(tap.awaitCommand(c -> c.equals(List.of("ECHO", "done")), Duration.ofSeconds(5))).isTrue();
            commands = tap.commands();
        }
        assertThat(commands).anyMatch(c -> c.get(0).equalsIgnoreCase("EVALSHA") && c.get(1).equals(Scripts.RELEASE.sha()));
        assertThat(commands).noneMatch(ReleasePublishTest::isPublish);
        assertThat(raw().call("EXISTS", "emq:lock:{quiet}:waiting")).isEqualTo(0L);
    }

    @Test
    @Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
    void aRefusedWaiterMarksTheResourceForItsRemainingWaitAndTheReleasePublishes() throws Exception {
        LockClient waiterClient = client(b -> b.pollInterval(NO_POLL));
        Lease holder = locks.tryAcquire("marked", TTL).orElseThrow();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Lease> waiter = pool.submit(() -> waiterClient.acquire("marked", TTL, WAIT));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> pttl("emq:lock:{marked}:waiting") > 0);
            // at most the waiter's remaining wait and the margin, never longer
            assertThat(pttl("emq:lock:{marked}:waiting"))
                    .isLessThanOrEqualTo(WAIT.toMillis() + WaitingAcquires.MARK_MARGIN_MS);
            List<List<String>> commands;
            try (CommandTap tap = raw().monitor()) {
                raw().call("ECHO", "release");
                assertThat(tap.awaitCommand(c -> c.equals(List.of("ECHO", "release")), Duration.ofSeconds(5))).isTrue();
                assertThat(holder.release()).isEqualTo(ReleaseOutcome.RELEASED);
                assertThat(waiter.get(WAIT.toMillis() / 2, TimeUnit.MILLISECONDS).isHeld()).isTrue();
                raw().call("ECHO", "done");
                assertThat(tap.awaitCommand(c -> c.equals(List.of("ECHO", "done")), Duration.ofSeconds(5))).isTrue();
                commands = tap.commands();
            }
            assertThat(commands).anyMatch(ReleasePublishTest::isPublish);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aReleaseRacingAWaitersArrivalNeverLeavesItAsleep() throws Exception {
        LockClient other = client(b -> b.pollInterval(NO_POLL));
        LockClient same = client(b -> b.pollInterval(NO_POLL));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            for (int round = 0; round < ROUNDS; round++) {
                // Odd rounds: holder and waiter in one client (the release may hand over, or
                // publish for its own waiters); even rounds: in two clients (only the mark tells).
                LockClient holderClient = round % 2 == 0 ? locks : same;
                String resource = "race-" + round % 10;
                Lease holder = holderClient.tryAcquire(resource, TTL).orElseThrow();
                Future<Lease> waiter = pool.submit(() -> round(other, same, holderClient, resource));
                // Release somewhere in the waiter's arrival: before, during or after its first
                // try, its subscription and its marked try.
                LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(3)));
                assertThat(holder.release()).isEqualTo(ReleaseOutcome.RELEASED);
                long released = System.nanoTime();
                Lease next;
                try {
                    next = waiter.get(WAIT.toMillis() + 5000, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new AssertionError("round " + round + ": the waiter did not get the free lock", e.getCause());
                }
                // A waiter that missed the release sleeps to the end of its wait, then takes the
                // lock in its last try: so the time matters, not only the grant.
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released))
                        .as("round %d: ms from the release to the waiter's grant", round)
                        .isLessThan(WAIT.toMillis() / 2);
                assertThat(next.fence()).as("round %d", round).isGreaterThan(holder.fence());
                assertThat(next.release()).isEqualTo(ReleaseOutcome.RELEASED);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static Lease round(LockClient other, LockClient same, LockClient holderClient, String resource)
            throws InterruptedException {
        LockClient waiterClient = holderClient == same ? same : other;
        return waiterClient.acquire(resource, TTL, WAIT);
    }
}
