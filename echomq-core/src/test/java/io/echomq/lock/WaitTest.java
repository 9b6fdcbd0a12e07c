package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Waiting acquires: woken by the release notification, bounded by maxWait, never spinning. */
class WaitTest extends LockTestBase {
    private static final Duration LONG_POLL = Duration.ofSeconds(10);

    /** Subscribers of the channel: plain ones, plus sharded ones on a cluster whose servers know SSUBSCRIBE. */
    private long subscribers(String channel) {
        List<?> reply = (List<?>) raw().call("PUBSUB", "NUMSUB", channel);
        long n = (Long) reply.get(1);
        if (RedisExtension.clusterMode() && io.echomq.Capabilities.knows(REDIS.server(), "spublish")) {
            n += (Long) ((List<?>) raw().call("PUBSUB", "SHARDNUMSUB", channel)).get(1);
        }
        return n;
    }

    /** Starts {@code client.acquire(resource, 30 s, wait 30 s)} on another thread. */
    private static CompletableFuture<Lease> acquireLater(LockClient client, String resource, AcquireOptions options) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return client.acquire(resource, Duration.ofSeconds(30), Duration.ofSeconds(30), options);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void aWaiterWakesOnReleaseLongBeforeItsFallbackPoll() throws Exception {
        // The fallback poll is 10 s (jittered to at least 5 s), the holder's ttl 60 s: only the
        // release notification can hand the lock over quickly.
        LockClient waiterClient = client(b -> b.pollInterval(LONG_POLL));
        Lease holder = locks.tryAcquire("handoff", Duration.ofSeconds(60)).orElseThrow();

        CompletableFuture<Lease> waiter = acquireLater(waiterClient, "handoff", AcquireOptions.defaults());
        String channel = "emq:lock:{handoff}:released";
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribers(channel) == 1);

        long released = System.nanoTime();
        assertThat(holder.release()).isEqualTo(ReleaseOutcome.RELEASED);
        Lease next = waiter.get(4, TimeUnit.SECONDS);
        long handoffMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
        System.out.printf("handoff after release: %d ms (fallback poll %d ms)%n", handoffMillis, LONG_POLL.toMillis());

        assertThat(next.fence()).isGreaterThan(holder.fence()).isEqualTo(locks.inspect(next.resource()).lastFence());
        assertThat(handoffMillis).isLessThan(LONG_POLL.toMillis() / 2);
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribers(channel) == 0);
    }

    @Test
    void aWaiterTakesAnExpiredLockAtItsTtlNotAtThePoll() throws Exception {
        LockClient waiterClient = client(b -> b.pollInterval(LONG_POLL));
        Lease holder = locks.tryAcquire("expires", Duration.ofMillis(300)).orElseThrow();
        CompletableFuture<Lease> waiter = acquireLater(waiterClient, "expires", AcquireOptions.defaults());
        // The holder never releases: the waiter paces itself by the lock's remaining ttl.
        Lease next = waiter.get(4, TimeUnit.SECONDS);
        assertThat(next.fence()).isGreaterThan(holder.fence()).isEqualTo(locks.inspect(next.resource()).lastFence());
    }

    @Test
    void aWaitThatRunsOutIsAClearTimeout() {
        locks.tryAcquire("busy", Duration.ofSeconds(60)).orElseThrow();
        long start = System.nanoTime();
        assertThatThrownBy(() -> locks.acquire("busy", Duration.ofSeconds(1), Duration.ofMillis(300)))
                .isInstanceOf(LockWaitTimeoutException.class)
                .hasMessageContaining("'busy'")
                .hasMessageContaining("300 ms")
                .satisfies(e -> assertThat(((LockWaitTimeoutException) e).resource()).isEqualTo("busy"));
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
        // the UNSUBSCRIBE is sent as the wait ends; its confirmation may still be on its way
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribers("emq:lock:{busy}:released") == 0);
    }

    @Test
    void aZeroWaitTriesOnce() throws Exception {
        long before = serverMicros();
        assertThat(locks.acquire("once", Duration.ofSeconds(5), Duration.ZERO).fence())
                .as("a fresh resource's first fence is the server's clock").isBetween(before, serverMicros());
        assertThatThrownBy(() -> locks.acquire("once", Duration.ofSeconds(5), Duration.ZERO))
                .isInstanceOf(LockWaitTimeoutException.class);
    }

    @Test
    void aWaiterCanBeInterruptedAndHoldsNothing() throws Exception {
        locks.tryAcquire("interrupt", Duration.ofSeconds(60)).orElseThrow();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                locks.acquire("interrupt", Duration.ofSeconds(5), Duration.ofSeconds(30));
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        t.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribers("emq:lock:{interrupt}:released") == 1);
        t.interrupt();
        t.join(5_000);
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(t.isAlive()).isFalse();
    }

    @Test
    void plainWaitersAreWokenToo() throws Exception {
        LockClient waiterClient = client(b -> b.pollInterval(LONG_POLL));
        Lease holder = locks.tryAcquire("plain-wait", Duration.ofSeconds(60), AcquireOptions.defaults().plain())
                .orElseThrow();
        CompletableFuture<Lease> waiter = acquireLater(waiterClient, "plain-wait", AcquireOptions.defaults().plain());
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribers("emq:lock:{plain-wait}:released") == 1);
        holder.release();
        assertThat(waiter.get(4, TimeUnit.SECONDS).isFenced()).isFalse();
    }
}
