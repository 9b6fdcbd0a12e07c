package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.internal.Scripts;
import java.time.Duration;
import java.util.HexFormat;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Acquire, fence, release, renew and inspect, one behaviour per test. */
class LeaseLifecycleTest extends LockTestBase {
    private static final Duration TTL = Duration.ofSeconds(30);

    @Test
    void anInterruptedThreadStillReleasesAndKeepsItsInterruptFlag() {
        Lease lease = locks.tryAcquire("interrupted", TTL).orElseThrow();
        Thread.currentThread().interrupt();
        try {
            assertThat(lease.release()).isEqualTo(ReleaseOutcome.RELEASED);
            assertThat(Thread.currentThread().isInterrupted()).as("the flag is set again").isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(get(locks.lockKey("interrupted"))).as("the lock is free").isNull();
        Lease next = locks.tryAcquire("interrupted", TTL).orElseThrow();
        Thread.currentThread().interrupt();
        try {
            next.close();   // try-with-resources on an interrupted thread
        } finally {
            assertThat(Thread.interrupted()).isTrue();
        }
        assertThat(get(locks.lockKey("interrupted"))).isNull();
    }

    @Test
    void heldIsAnEmptyAnswerNotAnException() {
        assertThat(locks.tryAcquire("orders", TTL)).isPresent();
        assertThat(locks.tryAcquire("orders", TTL)).isEmpty();
        assertThat(locks.tryAcquire("orders", TTL, AcquireOptions.defaults().plain())).isEmpty();
    }

    @Test
    void fencesRiseOnEveryGrantAndNotOnRefusals() {
        String fenceKey = locks.fenceKey("fence");
        long previous = 0;
        for (int i = 0; i < 5; i++) {
            Lease lease = locks.tryAcquire("fence", TTL).orElseThrow();
            assertThat(lease.fence()).isGreaterThan(previous);
            assertThat(locks.tryAcquire("fence", TTL)).isEmpty();
            assertThat(get(fenceKey)).as("a refusal leaves the fence alone").isEqualTo(Long.toString(lease.fence()));
            previous = lease.fence();
            assertThat(lease.release()).isEqualTo(ReleaseOutcome.RELEASED);
        }
        assertThat(locks.inspect("fence").lastFence()).isEqualTo(previous);
        // A plain grant takes the lock but leaves the fence alone.
        locks.tryAcquire("fence", TTL, AcquireOptions.defaults().plain()).orElseThrow().release();
        assertThat(get(fenceKey)).isEqualTo(Long.toString(previous));
        assertThat(locks.tryAcquire("fence", TTL).orElseThrow().fence()).isGreaterThan(previous);
    }

    @Test
    void tokensAre128RandomBits() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            Lease lease = locks.tryAcquire("token-" + i, TTL).orElseThrow();
            assertThat(lease.token()).matches("[0-9a-f]{32}");
            assertThat(HexFormat.of().parseHex(lease.token())).hasSize(16);
            seen.add(lease.token());
        }
        assertThat(seen).hasSize(200);
    }

    @Test
    void plainLeasesHaveNoFence() {
        Lease lease = locks.tryAcquire("plain", TTL, AcquireOptions.defaults().plain()).orElseThrow();
        assertThat(lease.isFenced()).isFalse();
        assertThatThrownBy(lease::fence).isInstanceOf(IllegalStateException.class).hasMessageContaining("plain");
        assertThat(get(locks.lockKey("plain"))).isEqualTo(lease.token());
    }

    @Test
    void theLocalDeadlineIsStartPlusTtlMinusDrift() {
        AtomicLong now = new AtomicLong(1_000_000_000L);
        LockClient fake = client(b -> b.clock(now::get));
        Lease lease = fake.tryAcquire("deadline", Duration.ofMillis(10_000)).orElseThrow();
        long drift = TimeUnit.MILLISECONDS.toNanos(10_000 / 100 + 2);
        assertThat(lease.validUntilNanos()).isEqualTo(1_000_000_000L + TimeUnit.SECONDS.toNanos(10) - drift);
        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.remaining()).isEqualTo(Duration.ofNanos(TimeUnit.SECONDS.toNanos(10) - drift));

        now.set(lease.validUntilNanos());
        assertThat(lease.isHeld()).as("past the local deadline").isFalse();
        // Past its deadline a lease is never renewed, even though the key is still ours on the server.
        assertThat(lease.renew()).isEqualTo(RenewOutcome.EXPIRED);
        assertThat(lease.lossReason()).contains(LossReason.DEADLINE_PASSED);
        assertThat(pttl(fake.lockKey("deadline"))).isLessThanOrEqualTo(10_000);
    }

    @Test
    void renewMovesTheServerTtlAndTheLocalDeadline() {
        AtomicLong now = new AtomicLong(0);
        LockClient fake = client(b -> b.clock(now::get));
        Lease lease = fake.tryAcquire("renew", Duration.ofMillis(1_000)).orElseThrow();
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(500));
        assertThat(lease.renew(Duration.ofSeconds(20))).isEqualTo(RenewOutcome.RENEWED);
        assertThat(pttl(fake.lockKey("renew"))).isGreaterThan(10_000);
        assertThat(lease.ttl()).isEqualTo(Duration.ofSeconds(20));
        assertThat(lease.validUntilNanos()).isEqualTo(Lease.deadline(now.get(), 20_000));
    }

    @Test
    void releaseIsTokenCheckedAndSafeToRetry() {
        Lease lease = locks.tryAcquire("release", TTL).orElseThrow();
        assertThat(locks.release("release", "someone-else")).isEqualTo(ReleaseOutcome.NOT_OWNER);
        assertThat(get(locks.lockKey("release"))).isEqualTo(lease.token());
        assertThat(lease.release()).isEqualTo(ReleaseOutcome.RELEASED);
        assertThat(lease.release()).as("a retry").isEqualTo(ReleaseOutcome.RELEASED);
        assertThat(locks.release("release", lease.token())).as("by token, after").isEqualTo(ReleaseOutcome.EXPIRED);
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.isLost()).isFalse();
        assertThat(lease.lost()).isNotDone();
    }

    @Test
    void concurrentReleasesAgreeOnTheFirstAnswer() throws Exception {
        for (int i = 0; i < 20; i++) {
            Lease lease = locks.tryAcquire("twice-" + i, TTL).orElseThrow();
            CompletableFuture<ReleaseOutcome> a = lease.releaseAsync();
            CompletableFuture<ReleaseOutcome> b = lease.releaseAsync();
            assertThat(a.get(5, TimeUnit.SECONDS)).isEqualTo(ReleaseOutcome.RELEASED);
            b.get(5, TimeUnit.SECONDS);
            assertThat(lease.release()).isEqualTo(ReleaseOutcome.RELEASED);
            assertThat(lease.isLost()).isFalse();
        }
    }

    @Test
    void releaseAndRenewAfterExpiryNeverReviveTheLock() {
        Lease lease = locks.tryAcquire("expiry", Duration.ofMillis(50)).orElseThrow();
        String key = locks.lockKey("expiry");
        await().atMost(Duration.ofSeconds(5)).until(() -> get(key) == null);

        assertThat(locks.renew("expiry", lease.token(), TTL)).isEqualTo(RenewOutcome.EXPIRED);
        assertThat(get(key)).as("renew never revives").isNull();
        assertThat(lease.release()).isEqualTo(ReleaseOutcome.EXPIRED);
        assertThat(lease.lossReason()).contains(LossReason.EXPIRED);
        assertThat(lease.renew()).isEqualTo(RenewOutcome.EXPIRED);
        assertThat(get(key)).isNull();
    }

    @Test
    void releaseAndRenewAfterTheLockWasRegrantedLeaveTheNewHolderAlone() {
        Lease old = locks.tryAcquire("regrant", Duration.ofMillis(50)).orElseThrow();
        String key = locks.lockKey("regrant");
        await().atMost(Duration.ofSeconds(5)).until(() -> get(key) == null);
        Lease current = locks.tryAcquire("regrant", Duration.ofSeconds(60)).orElseThrow();

        assertThat(locks.renew("regrant", old.token(), Duration.ofSeconds(1))).isEqualTo(RenewOutcome.NOT_OWNER);
        assertThat(pttl(key)).as("the new holder's ttl is untouched").isGreaterThan(50_000);
        assertThat(old.release()).isEqualTo(ReleaseOutcome.NOT_OWNER);
        assertThat(old.lossReason()).contains(LossReason.NOT_OWNER);
        assertThat(get(key)).isEqualTo(current.token());
        assertThat(old.renew()).isEqualTo(RenewOutcome.NOT_OWNER);
    }

    @Test
    void tryWithResourcesReleases() {
        String key = locks.lockKey("twr");
        try (Lease lease = locks.tryAcquire("twr", TTL).orElseThrow()) {
            assertThat(get(key)).isEqualTo(lease.token());
        }
        assertThat(get(key)).isNull();
    }

    @Test
    void ownershipBelongsToTheHandleNotTheThread() throws Exception {
        Lease lease = CompletableFuture.supplyAsync(() -> locks.tryAcquire("handle", TTL).orElseThrow()).get();
        CompletableFuture<ReleaseOutcome> released = new CompletableFuture<>();
        Thread t = new Thread(() -> released.complete(lease.release()));
        t.start();
        assertThat(released.get(10, TimeUnit.SECONDS)).isEqualTo(ReleaseOutcome.RELEASED);
        assertThat(locks.tryAcquireAsync("handle", TTL, AcquireOptions.defaults())
                .thenCompose(l -> l.orElseThrow().releaseAsync()).get(10, TimeUnit.SECONDS))
                .isEqualTo(ReleaseOutcome.RELEASED);
    }

    @Test
    void inspectReadsHolderTtlAndLastFence() {
        LockInfo free = locks.inspect("inspect");
        assertThat(free.isHeld()).isFalse();
        assertThat(free.ttlMillis()).isEqualTo(-2);
        assertThat(free.lastFence()).isZero();

        Lease lease = locks.tryAcquire("inspect", TTL).orElseThrow();
        LockInfo held = locks.inspect("inspect");
        assertThat(held.holderToken()).contains(lease.token());
        assertThat(held.remaining()).hasValueSatisfying(d -> assertThat(d).isPositive().isLessThanOrEqualTo(TTL));
        assertThat(held.lastFence()).isEqualTo(lease.fence());

        raw().call("PERSIST", locks.lockKey("inspect"));
        assertThat(locks.inspect("inspect").ttlMillis()).as("no expiry").isEqualTo(-1);

        // A foreign client's empty value still blocks SET NX, so it is held.
        raw().call("SET", locks.lockKey("empty"), "");
        assertThat(locks.tryAcquire("empty", TTL)).isEmpty();
        assertThat(locks.inspect("empty").isHeld()).isTrue();
        assertThat(locks.inspect("empty").holderToken()).contains("");
    }

    @Test
    @Tag("standalone-only")   // SCRIPT EXISTS answers for one node only (docs/scaling.md)
    void scriptsAreReloadedAfterScriptFlush() {
        Lease lease = locks.tryAcquire("noscript", TTL).orElseThrow();
        assertThat(raw().call("SCRIPT", "FLUSH")).isEqualTo("OK");
        assertThat(lease.renew()).isEqualTo(RenewOutcome.RENEWED);
        assertThat(lease.release()).isEqualTo(ReleaseOutcome.RELEASED);
        assertThat(raw().call("SCRIPT", "FLUSH")).isEqualTo("OK");
        Lease again = locks.tryAcquire("noscript", TTL).orElseThrow();
        assertThat(again.fence()).isGreaterThan(lease.fence()).isEqualTo(locks.inspect("noscript").lastFence());
        assertThat(raw().call("SCRIPT", "EXISTS", Scripts.ACQUIRE.sha()))
                .as("the fallback EVAL loaded the script for the next EVALSHA").isEqualTo(java.util.List.of(1L));
    }
}
