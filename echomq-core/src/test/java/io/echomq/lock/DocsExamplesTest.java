package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The snippets of README.md and docs/locks.md, verbatim apart from the server URL, so that the
 * documentation cannot drift from an API that compiles and behaves as it says.
 */
class DocsExamplesTest extends LockTestBase {

    @Test
    void quickStart() throws Exception {
        String url = REDIS.url();
        long fenceSeen;
        long before = serverMicros();
        // --- docs/locks.md "Quick start" and README tour ---
        try (LockClient locks = LockClient.create(url)) {

            // Try once. "Held" is an empty Optional, not an exception.
            Optional<Lease> maybe = locks.tryAcquire("invoice-42", Duration.ofSeconds(30));
            maybe.ifPresent(Lease::release);

            // Or wait up to 5 s. Waiters wake on the release notification.
            try (Lease lease = locks.acquire("invoice-42", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
                long fence = lease.fence();   // pass it to whatever the lock protects
                fenceSeen = fence;
            }                                 // close() = token-checked release
        }
        // --- end ---
        // the second grant's fence: above the first (the clock at the first grant), and the one the
        // fence key still holds, for the lease's ttl after it
        assertThat(fenceSeen).isGreaterThan(before).isLessThanOrEqualTo(serverMicros());
        assertThat(get("emq:lock:{invoice-42}:fence")).isEqualTo(Long.toString(fenceSeen));
        assertThat(pttl("emq:lock:{invoice-42}:fence")).isBetween(1L, 30_000L);
        assertThat(get("emq:lock:{invoice-42}:lock")).isNull();
    }

    @Test
    void oneContract() throws Exception {
        String url = REDIS.url();
        long fenceSeen;
        long before = serverMicros();
        // --- docs/locks.md "One contract: Locks" ---
        Locks locks = LockClient.create(url);   // or RedlockClient.create(urls)
        try (Lease lease = locks.acquire("invoice-42", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
            // ... work ...
            fenceSeen = lease.fence();
        }
        // --- end ---
        locks.close();
        assertThat(fenceSeen).as("a fresh resource's first fence is the server's clock")
                .isBetween(before, serverMicros());
        assertThat(get("emq:lock:{invoice-42}:lock")).isNull();
    }

    @Test
    void optionsAndBuilder() {
        // --- docs/locks.md "Options" ---
        AcquireOptions plain   = AcquireOptions.defaults().plain();         // exactly one SET NX PX, no fence
        AcquireOptions watched = AcquireOptions.defaults().withWatchdog();  // renewed at ttl/3 until released or lost
        AcquireOptions acked   = AcquireOptions.defaults()                  // WAIT 1 200 after the grant:
                .waitForReplicas(1, Duration.ofMillis(200));                // too few acks = released + ReplicaAckException
        // --- end ---
        assertThat(acked.replicasToWait()).isEqualTo(1);
        LockClient locks = client(b -> b
                .namespace("myapp:lock:")             // key prefix, default "emq:lock:"
                .commandTimeout(Duration.ofSeconds(2)) // default 10 s
                .pollInterval(Duration.ofMillis(500))); // waiters' fallback poll, jittered ±50%
        Lease p = locks.tryAcquire("x", Duration.ofSeconds(5), plain).orElseThrow();
        assertThat(p.isFenced()).isFalse();
        assertThat(get("myapp:lock:{x}:lock")).isEqualTo(p.token());
        Lease w = locks.tryAcquire("y", Duration.ofSeconds(5), watched).orElseThrow();
        assertThat(w.hasWatchdog()).isTrue();
    }

    @Test
    void lossCancelsWork() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        AcquireOptions watched = AcquireOptions.defaults().withWatchdog();
        try {
            // --- docs/locks.md "Lease loss is an event" ---
            Lease lease = locks.tryAcquire("report", Duration.ofSeconds(10), watched).orElseThrow();
            Future<?> work = executor.submit(() -> buildReport());
            lease.onLost(reason -> work.cancel(true));   // stop work that is no longer protected
            // --- end ---
            raw().call("DEL", locks.lockKey("report"));
            lease.renew();
            await().atMost(Duration.ofSeconds(5)).until(work::isCancelled);
        } finally {
            executor.shutdownNow();
        }
    }

    private static void buildReport() {
        try {
            Thread.currentThread().join(); // "long work": until cancelled
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void fencedStore() {
        Lease lease = locks.tryAcquire("sku-7", Duration.ofSeconds(10)).orElseThrow();
        // --- docs/locks.md "Fencing: why, and how" ---
        FencedStore store = locks.fencedStore();
        FencedWriteOutcome w = store.write("inventory:sku-7", lease.fence(), "42");   // WRITTEN or STALE
        Optional<FencedValue> v = store.read("inventory:sku-7");                     // value + fence
        // --- end ---
        assertThat(w).isEqualTo(FencedWriteOutcome.WRITTEN);
        assertThat(v).contains(new FencedValue("42", lease.fence()));
    }
}
