package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.MonotonicClock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The watchdog's first renewal of a lease is due a third of the ttl after the acquire was sent,
 * the moment the lease's local deadline counts from: an acquire whose reply came late (a cold
 * JVM's first script call, a loaded machine) does not leave the renewal too little of the ttl.
 */
class WatchdogFirstRenewalTest {
    private static final long TTL_MS = 6_000;

    /** Answers every renewal RENEWED at once and remembers when the first was sent. */
    private static final class Backend implements Lease.Backend {
        final CompletableFuture<Long> firstRenewalAt = new CompletableFuture<>();

        @Override
        public MonotonicClock clock() {
            return MonotonicClock.SYSTEM;
        }

        @Override
        public CompletableFuture<RenewOutcome> renew(String resource, String token, long ttlMillis, long sentAtNanos) {
            firstRenewalAt.complete(System.nanoTime());
            return CompletableFuture.completedFuture(RenewOutcome.RENEWED);
        }

        @Override
        public CompletableFuture<ReleaseOutcome> release(String resource, String token) {
            return CompletableFuture.completedFuture(ReleaseOutcome.RELEASED);
        }

        @Override
        public void guardDeadline(Lease lease) {
        }
    }

    @Test
    void anAcquireThatTookHalfTheTtlIsRenewedAtOnce() throws Exception {
        Backend backend = new Backend();
        try (Watchdog watchdog = new Watchdog(MonotonicClock.SYSTEM, () -> new Watchdog.Batch() {
            @Override
            public CompletableFuture<RenewOutcome> renew(Lease lease, long ttlMillis, long sentAtNanos) {
                return backend.renew(lease.resource(), lease.token(), ttlMillis, sentAtNanos);
            }

            @Override
            public void flush() {
            }
        })) {
            long replyAt = System.nanoTime();
            long sentAt = replyAt - TimeUnit.MILLISECONDS.toNanos(TTL_MS / 2);   // the acquire took 3 s
            Lease lease = new Lease(backend, "slow-acquire", "token", 0, TTL_MS, sentAt, true);
            watchdog.watch(lease);
            // due at sentAt + ttl/3, already past: renewed at once. Scheduled from the reply, it
            // would wait ttl/3 = 2 s more, leaving 1 s before the deadline for the round trip.
            long renewedAt = backend.firstRenewalAt.get(10, TimeUnit.SECONDS);
            assertThat(TimeUnit.NANOSECONDS.toMillis(renewedAt - replyAt))
                    .as("ms from the acquire's reply to the first renewal").isLessThan(TTL_MS / 3 - 500);
        }
    }
}
