package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * N threads × M rounds on one resource, each through its own client (its own connections), all
 * checked by one {@link LeaseHistory}: no two leases overlap, and fences strictly increase in
 * grant order.
 */
class ContentionTest extends LockTestBase {
    private static final int THREADS = 8;
    private static final int ROUNDS = 150;

    /** The shared checker: holders now, and fences in the order they were granted. */
    static final class LeaseHistory {
        private final AtomicInteger holders = new AtomicInteger();
        private final AtomicInteger maxHolders = new AtomicInteger();
        private final List<Long> fences = new ArrayList<>();

        void granted(Lease lease) {
            int now = holders.incrementAndGet();
            maxHolders.accumulateAndGet(now, Math::max);
            synchronized (fences) {
                fences.add(lease.fence());
            }
        }

        void releasing() {
            holders.decrementAndGet();
        }

        void assertSafe(int expectedGrants) {
            assertThat(maxHolders.get()).as("most holders at once").isEqualTo(1);
            synchronized (fences) {
                assertThat(fences).hasSize(expectedGrants);
                for (int i = 1; i < fences.size(); i++) {
                    assertThat(fences.get(i)).as("fence %d after %d", i, i - 1).isGreaterThan(fences.get(i - 1));
                }
            }
        }
    }

    @Test
    void noTwoLeasesOverlapAndFencesRiseInGrantOrder() throws Exception {
        LeaseHistory history = new LeaseHistory();
        List<LockClient> clients = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            clients.add(client(b -> b.pollInterval(Duration.ofMillis(50))));
        }
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Integer>> workers = new ArrayList<>();
            for (LockClient c : clients) {
                workers.add(pool.submit(() -> {
                    int grants = 0;
                    for (int round = 0; round < ROUNDS; round++) {
                        try (Lease lease = c.acquire("shared", Duration.ofSeconds(30), Duration.ofSeconds(60))) {
                            history.granted(lease);
                            grants++;
                            history.releasing();
                        }
                    }
                    return grants;
                }));
            }
            int total = 0;
            for (Future<Integer> w : workers) {
                total += w.get(120, TimeUnit.SECONDS);
            }
            assertThat(total).isEqualTo(THREADS * ROUNDS);
            history.assertSafe(THREADS * ROUNDS);
            assertThat(locks.inspect("shared").lastFence()).isEqualTo(history.fences.get(THREADS * ROUNDS - 1));
        } finally {
            pool.shutdownNow();
        }
    }
}
