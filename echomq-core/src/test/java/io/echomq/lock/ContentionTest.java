package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.LockHistory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * N threads × M rounds on one resource, each through its own client (its own connections), all
 * recorded in one {@link LockHistory}: no two holds overlap, and fences rise in grant order.
 *
 * <p>Each hold is recorded from the acquire's reply until just before its release is sent, and
 * lasts 1–5 ms, so a second grant during a hold has a window of milliseconds to be seen in; a
 * window of nanoseconds (a counter bumped up and down with nothing in between) would let a double
 * grant pass unseen.
 */
class ContentionTest extends LockTestBase {
    private static final int THREADS = 8;
    private static final int ROUNDS = 100;

    @Test
    void noTwoLeasesOverlapAndFencesRiseInGrantOrder() throws Exception {
        LockHistory history = new LockHistory();
        List<LockClient> clients = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            clients.add(client(b -> b.pollInterval(Duration.ofMillis(50))));
        }
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Integer>> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                LockClient c = clients.get(t);
                String holder = "client-" + t;
                workers.add(pool.submit(() -> hold(c, holder, history)));
            }
            int total = 0;
            for (Future<Integer> w : workers) {
                total += w.get(120, TimeUnit.SECONDS);
            }
            LockHistory.Report report = history.check();
            assertThat(report.violations()).isEmpty();
            assertThat(total).isEqualTo(THREADS * ROUNDS);
            assertThat(report.grants()).isEqualTo(THREADS * ROUNDS);
            // fences are clock-bound, not 1, 2, 3: the server's last fence is the largest one granted
            assertThat(locks.inspect("shared").lastFence()).isEqualTo(history.maxFence());
        } finally {
            pool.shutdownNow();
        }
    }

    private static int hold(LockClient c, String holder, LockHistory history) throws InterruptedException {
        int grants = 0;
        for (int round = 0; round < ROUNDS; round++) {
            long sent = System.nanoTime();
            try (Lease lease = c.acquire("shared", Duration.ofSeconds(30), Duration.ofSeconds(60))) {
                long reply = System.nanoTime();
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(ThreadLocalRandom.current().nextLong(1_000, 5_000)));
                long end = Math.min(System.nanoTime(), lease.validUntilNanos());   // just before the release is sent
                history.grant(new LockHistory.Grant(holder, lease.fence(), sent, reply, end));
                grants++;
            }
        }
        return grants;
    }
}
