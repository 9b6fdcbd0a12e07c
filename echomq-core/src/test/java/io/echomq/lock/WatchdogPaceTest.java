package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.MonotonicClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The watchdog's timing, without a server: each renewal is answered at once as renewed, and the
 * clock is the real one plus an offset, so that a test can make the watchdog wake up late (as a
 * starved thread or a collector pause would) by moving the offset while it waits.
 */
class WatchdogPaceTest {
    private static final long TTL_MS = 3000;   // renewed every 1000 ms on time
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final AtomicLong offset = new AtomicLong();
    private final MonotonicClock clock = () -> System.nanoTime() + offset.get();
    private final List<Long> sent = new CopyOnWriteArrayList<>();

    private final Lease.Backend backend = new Lease.Backend() {
        @Override
        public MonotonicClock clock() {
            return clock;
        }

        @Override
        public CompletableFuture<RenewOutcome> renew(String resource, String token, long ttlMillis, long sentAtNanos) {
            return CompletableFuture.completedFuture(RenewOutcome.RENEWED);
        }

        @Override
        public CompletableFuture<ReleaseOutcome> release(String resource, String token) {
            return CompletableFuture.completedFuture(ReleaseOutcome.RELEASED);
        }

        @Override
        public void guardDeadline(Lease lease) {
        }
    };

    private Watchdog watchdog() {
        return new Watchdog(clock, () -> new Watchdog.Batch() {
            @Override
            public CompletableFuture<RenewOutcome> renew(Lease lease, long ttlMillis, long sentAtNanos) {
                sent.add(sentAtNanos);
                return CompletableFuture.completedFuture(RenewOutcome.RENEWED);
            }

            @Override
            public void flush() {
            }
        });
    }

    @Test
    void afterWakingUpLateTheWatchdogRenewsSoonerSoThatTheNextStallStillFitsInTheLease() {
        try (Watchdog watchdog = watchdog()) {
            Lease lease = new Lease(backend, "paced", "t", 1, TTL_MS, clock.nanoTime(), true);
            watchdog.watch(lease);
            // once the watchdog waits for the renewal due in 1000 ms, 900 ms more pass on its clock
            // than it sleeps, so that it wakes up 900 ms after the renewal was due
            Thread thread = watchdogThread();
            await().atMost(Duration.ofSeconds(10)).until(() -> thread.getState() == Thread.State.TIMED_WAITING);
            offset.addAndGet(900 * MS);
            await().atMost(Duration.ofSeconds(10)).until(() -> sent.size() >= 2);
            assertThat(lease.isLost()).isFalse();
            long gap = sent.get(1) - sent.get(0);
            // on time the next renewal is 1000 ms after the last one was sent; after 900 ms of
            // lateness it is half that (ttl/6), whatever this machine's own delays add to it
            assertThat(gap).as("ms between the late renewal and the next").isLessThan(800 * MS);
            lease.release();
        }
    }

    @Test
    void onTimeTheWatchdogRenewsAThirdOfTheTtlAfterTheLastRenewalWasSent() {
        try (Watchdog watchdog = watchdog()) {
            Lease lease = new Lease(backend, "steady", "t", 1, 300, clock.nanoTime(), true);
            watchdog.watch(lease);
            await().atMost(Duration.ofSeconds(10)).until(() -> sent.size() >= 3);
            // never before a third of the ttl on a machine that was not late by more than
            // a few ms: at least 100 ms minus twice this run's own lateness
            assertThat(sent.get(2) - sent.get(1)).isGreaterThanOrEqualTo(50 * MS);
            lease.release();
        }
    }

    @Test
    void theFirstRenewalCountsFromWhenTheAcquireWasSentNotFromWhenItsAnswerCame() {
        try (Watchdog watchdog = watchdog()) {
            // an acquire sent 900 ms ago whose answer was handled only now (a starved thread)
            long start = clock.nanoTime() - 900 * MS;
            Lease lease = new Lease(backend, "late-answer", "t", 1, TTL_MS, start, true);
            long watched = clock.nanoTime();
            watchdog.watch(lease);
            await().atMost(Duration.ofSeconds(10)).until(() -> !sent.isEmpty());
            // due 1000 ms after the acquire was sent: about 100 ms from now, not 1000 ms
            assertThat(sent.get(0) - watched).as("ns from watch to the first renewal").isLessThan(600 * MS);
            lease.release();
        }
    }

    @Test
    void theWatchdogThreadIsADaemonAtMaxPriority() {
        try (Watchdog watchdog = watchdog()) {
            Thread t = watchdogThread();
            assertThat(t.isDaemon()).isTrue();
            assertThat(t.getPriority()).isEqualTo(Thread.MAX_PRIORITY);
        }
    }

    /** @return the live watchdog thread (each test's watchdog is the only one: it closes it at the end) */
    private static Thread watchdogThread() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(x -> x.getName().equals("emq-lease-watchdog") && x.isAlive()).findFirst().orElseThrow();
    }
}
