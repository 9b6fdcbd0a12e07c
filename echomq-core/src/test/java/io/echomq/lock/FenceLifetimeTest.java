package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.RedisCommandException;
import io.echomq.server.RawRedis;
import io.echomq.server.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The fence bound to the server's clock ({@code includes/fence.lua}): the fence key lives only
 * while it is needed, so memory is bounded by the leases held, and fences still rise strictly in
 * grant order across handoffs, idle periods longer than the key's life, data loss and an old
 * counter left by a protocol-1 client (whose resource then keeps the protocol-2 mark). After
 * each of these, a {@link FencedStore} accepts the newest fence and refuses the one before it.
 */
class FenceLifetimeTest extends LockTestBase {
    private static final int RESOURCES = 100_000;

    @Test
    void aHundredThousandResourcesLeaveNoKeyOnceTheirLeasesEnd() throws Exception {
        Duration ttl = Duration.ofSeconds(2);
        Semaphore inFlight = new Semaphore(2_000);
        AtomicLong granted = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<CompletableFuture<?>> all = new ArrayList<>(RESOURCES);
        long start = System.nanoTime();
        for (int i = 0; i < RESOURCES; i++) {
            inFlight.acquire();
            CompletableFuture<?> f = locks.tryAcquireAsync("entity-" + i, ttl, AcquireOptions.defaults())
                    .thenCompose(lease -> {
                        Lease l = lease.orElseThrow();
                        assertThat(l.fence()).isPositive();
                        granted.incrementAndGet();
                        return l.releaseAsync();
                    })
                    .whenComplete((r, e) -> {
                        if (e != null) {
                            failure.compareAndSet(null, e);
                        }
                        inFlight.release();
                    });
            all.add(f);
        }
        CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).get(120, TimeUnit.SECONDS);
        long tookMs = Duration.ofNanos(System.nanoTime() - start).toMillis();
        assertThat(failure.get()).isNull();
        assertThat(granted.get()).isEqualTo(RESOURCES);

        // Every lock is released; what is left right now are the fence keys, each within its ttl.
        long leftAtOnce = keysLeft();
        long releasedAt = System.nanoTime();
        System.out.printf("fence keys: %d resources locked and released in %d ms; %d keys left at once%n",
                RESOURCES, tookMs, leftAtOnce);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .untilAsserted(() -> assertThat(keysLeft()).as("keys left after the leases ended").isZero());
        System.out.printf("fence keys: 0 keys left %d ms later%n",
                Duration.ofNanos(System.nanoTime() - releasedAt).toMillis());
        assertThat(leftAtOnce).as("the fence keys of leases just ended are still there").isPositive();
    }

    @Test
    void fencesRiseAcrossGrantsHandoffIdlenessDataLossAndAnOldCounter() throws Exception {
        String r = "invoice-7";
        FencedStore store = locks.fencedStore();
        List<Long> fences = new ArrayList<>();

        // back-to-back grants
        Lease a = locks.tryAcquire(r, Duration.ofSeconds(10)).orElseThrow();
        step(store, fences, a);
        a.release();
        Lease b = locks.tryAcquire(r, Duration.ofSeconds(10)).orElseThrow();
        step(store, fences, b);

        // a handoff to a waiter of the same client
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Lease c;
        try {
            List<Thread> waiting = new java.util.concurrent.CopyOnWriteArrayList<>();
            Future<Lease> waiter = pool.submit(() -> {
                waiting.add(Thread.currentThread());
                return locks.acquire(r, Duration.ofMillis(300), Duration.ofSeconds(30));
            });
            await().atMost(Duration.ofSeconds(10)).during(Duration.ofMillis(300))
                    .until(() -> !waiting.isEmpty() && waiting.get(0).getState() == Thread.State.TIMED_WAITING);
            assertThat(b.release()).isEqualTo(ReleaseOutcome.RELEASED);
            c = waiter.get(10, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(locks.handoffs()).isEqualTo(1);
        step(store, fences, c);

        // idle for longer than the fence key lives: the key is gone, the next fence still rises
        c.release();
        await().atMost(Duration.ofSeconds(10)).until(() -> (Long) raw().call("EXISTS", locks.fenceKey(r)) == 0L);
        Lease d = locks.tryAcquire(r, Duration.ofSeconds(10)).orElseThrow();
        step(store, fences, d);
        d.release();

        // Redis loses its data (the store's row too: keep a copy of what it remembered)
        long remembered = fences.get(fences.size() - 1);
        REDIS.flushAll();
        assertThat(store.write("row", remembered, "restored from backup")).isEqualTo(FencedWriteOutcome.WRITTEN);
        Lease e = locks.tryAcquire(r, Duration.ofSeconds(10)).orElseThrow();
        step(store, fences, e);
        e.release();

        // an old counter: a small integer with no expiry, left by a protocol-1 client that locks
        // this resource too; the grant keeps its fence under the protocol-2 mark, with no expiry,
        // so that the protocol-1 client's INCR fails instead of counting from 1 once it expired
        raw().call("SET", locks.fenceKey(r), "7");
        assertThat(pttl(locks.fenceKey(r))).isEqualTo(-1L);
        Lease f = locks.tryAcquire(r, Duration.ofSeconds(10)).orElseThrow();
        step(store, fences, f);
        assertThat(get(locks.fenceKey(r))).isEqualTo("v2:" + f.fence());
        assertThat(pttl(locks.fenceKey(r))).as("the mark never expires").isEqualTo(-1L);
        f.release();
        Lease g = locks.tryAcquire(r, Duration.ofSeconds(10)).orElseThrow();
        step(store, fences, g);
        assertThat(get(locks.fenceKey(r))).as("a marked resource stays marked").isEqualTo("v2:" + g.fence());
        g.release();

        assertThat(fences).as("strictly rising in grant order").isSortedAccordingTo(Long::compare).doesNotHaveDuplicates();
    }

    /**
     * One grant of the sequence: above every fence before it, stored and inspected exactly as
     * granted, accepted by the store, and the fence before it now refused.
     */
    private void step(FencedStore store, List<Long> fences, Lease lease) {
        long fence = lease.fence();
        if (!fences.isEmpty()) {
            assertThat(fence).isGreaterThan(fences.get(fences.size() - 1));
        }
        assertThat(get(locks.fenceKey(lease.resource()))).isIn(Long.toString(fence), "v2:" + fence);
        assertThat(locks.inspect(lease.resource()).lastFence()).isEqualTo(fence);
        assertThat(store.write("row", fence, "by " + fence)).isEqualTo(FencedWriteOutcome.WRITTEN);
        assertThat(raw().call("HGET", "row", "fence")).as("stored as exact digits").isEqualTo(Long.toString(fence));
        assertThat(store.read("row").orElseThrow().fence()).isEqualTo(fence);
        if (!fences.isEmpty()) {
            assertThat(store.write("row", fences.get(fences.size() - 1), "stale")).isEqualTo(FencedWriteOutcome.STALE);
        }
        fences.add(fence);
    }

    @Test
    void grantsWithinOneMicrosecondStillRiseBecauseTheKeyCountsOn() {
        // A fence key ahead of the server's clock stands for grants faster than the clock ticks:
        // the next fence is last + 1, and the key is kept until the clock has passed it.
        String r = "burst";
        long ahead = serverMicros() + 60_000_000L;   // one minute ahead of the server's clock
        raw().call("SET", locks.fenceKey(r), Long.toString(ahead), "PX", "100");
        Lease l = locks.tryAcquire(r, Duration.ofMillis(500)).orElseThrow();
        assertThat(l.fence()).isEqualTo(ahead + 1);
        assertThat(pttl(locks.fenceKey(r))).as("kept until the clock passes the fence, not just the ttl")
                .isGreaterThan(59_000L);
    }

    @Test
    void aRenewalKeepsTheFenceKeyAsLongAsTheLock() {
        String r = "renewed";
        Lease l = locks.tryAcquire(r, Duration.ofMillis(300)).orElseThrow();
        assertThat(l.renew(Duration.ofSeconds(30))).isEqualTo(RenewOutcome.RENEWED);
        assertThat(pttl(locks.fenceKey(r))).isGreaterThan(20_000L);
        // a shorter renewal never shortens the fence key
        assertThat(l.renew(Duration.ofMillis(200))).isEqualTo(RenewOutcome.RENEWED);
        assertThat(pttl(locks.fenceKey(r))).isGreaterThan(20_000L);
        assertThat(locks.inspect(r).lastFence()).isEqualTo(l.fence());
    }

    @Test
    void aFenceKeyThatIsNotAnIntegerRefusesTheAcquireAndTakesNothing() {
        String r = "corrupt";
        raw().call("SET", locks.fenceKey(r), "not-a-number");
        assertThatThrownBy(() -> locks.tryAcquire(r, Duration.ofSeconds(5)))
                .isInstanceOf(RedisCommandException.class)
                .hasRootCauseMessage("WRONGTYPE " + locks.fenceKey(r) + " is not an integer; nothing was changed");
        assertThat(get(locks.lockKey(r))).isNull();
    }

    /** @return the keys on every data-holding server: each test starts from an empty keyspace and writes only lock keys */
    private static long keysLeft() {
        long n = 0;
        for (RedisServer s : REDIS.servers()) {
            try (RawRedis r = RawRedis.connect(s.host(), s.port())) {
                n += (Long) r.call("DBSIZE");
            }
        }
        return n;
    }
}
