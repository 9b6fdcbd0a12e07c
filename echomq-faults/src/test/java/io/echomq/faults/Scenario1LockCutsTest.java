package io.echomq.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.RedisCommandException;
import io.echomq.lock.FencedWriteOutcome;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.LockWaitTimeoutException;
import io.echomq.testkit.FaultProxy;
import io.echomq.testkit.LockHistory;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario 1: contending lockers, each its own {@link LockClient} behind a {@link FaultProxy} whose connections
 * are cut at random moments, for 60 s ({@code -Demq.faults.s1.seconds=N} changes it). Every grant, release and
 * guarded write is recorded; the {@link LockHistory} checker must find no double grant, no fence out of order and
 * no stale write accepted.
 */
class Scenario1LockCutsTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final int LOCKERS = 4;
    private static final Duration TTL = Duration.ofMillis(400);
    private static final String RESOURCE = "s1-contended";

    @Test
    @Timeout(value = 300)
    void contendingLockersUnderRandomCutsNeverHoldTogether() throws Exception {
        long seconds = Long.getLong("emq.faults.s1.seconds", 60);
        LockHistory history = new LockHistory();
        AtomicLong errors = new AtomicLong();
        AtomicLong timeouts = new AtomicLong();
        List<FaultProxy> proxies = new ArrayList<>();
        List<LockClient> clients = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(LOCKERS);
        long cuts = 0;
        long cutConnections = 0;
        try {
            for (int i = 0; i < LOCKERS; i++) {
                FaultProxy proxy = FaultProxy.start(REDIS.server());
                proxies.add(proxy);
                clients.add(LockClient.builder().redisUrl(proxy.url()).commandTimeout(Duration.ofSeconds(1))
                        .pollInterval(Duration.ofMillis(50)).build());
            }
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            List<Future<?>> lockers = new ArrayList<>();
            for (int i = 0; i < LOCKERS; i++) {
                LockClient locks = clients.get(i);
                String name = "locker-" + i;
                lockers.add(pool.submit(() -> {
                    lockLoop(name, locks, history, errors, timeouts, end);
                    return null;
                }));
            }
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (System.nanoTime() < end) {
                // a random pause between cuts: the faults' own schedule, not a wait for a condition
                TimeUnit.MILLISECONDS.sleep(random.nextLong(50, 1000));
                FaultProxy victim = proxies.get(random.nextInt(LOCKERS));
                cutConnections += random.nextInt(4) == 0 ? cutEvery(proxies) : victim.cutAll();
                cuts++;
            }
            for (Future<?> f : lockers) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            clients.forEach(LockClient::close);
            proxies.forEach(FaultProxy::close);
        }
        LockHistory.Report report = history.check();
        Reliability.report(1, Reliability.figures("name", "lock-contention-cuts", "seconds", seconds,
                "lockers", LOCKERS, "ttl_ms", TTL.toMillis(), "cuts", cuts, "connections_cut", cutConnections,
                "grants", report.grants(), "writes", report.writes(), "stale_writes_refused", report.refused(),
                "redis_errors", errors.get(), "wait_timeouts", timeouts.get(), "double_grants",
                report.violations().stream().filter(v -> v.startsWith("double grant")).count(),
                "violations", report.violations().size()));
        assertThat(report.violations()).isEmpty();
        assertThat(cuts).isPositive();
        assertThat(cutConnections).isPositive();
        assertThat(report.grants()).isGreaterThan(LOCKERS);
    }

    private static long cutEvery(List<FaultProxy> proxies) {
        long n = 0;
        for (FaultProxy p : proxies) {
            n += p.cutAll();
        }
        return n;
    }

    /** Acquire (waiting up to 1 s), write fenced, hold briefly, release; record all of it with its times. */
    private static void lockLoop(String name, LockClient locks, LockHistory history, AtomicLong errors,
                                 AtomicLong timeouts, long end) throws InterruptedException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (System.nanoTime() < end) {
            long sent = System.nanoTime();
            Lease lease;
            try {
                lease = locks.acquire(RESOURCE, TTL, Duration.ofSeconds(1));
            } catch (LockWaitTimeoutException e) {
                timeouts.incrementAndGet();
                continue;
            } catch (RedisCommandException e) {
                errors.incrementAndGet();
                // Disconnected: commands are rejected at once. Back off a little, as a real caller would.
                TimeUnit.MILLISECONDS.sleep(random.nextLong(10, 50));
                continue;
            }
            long granted = System.nanoTime();
            long stopped = lease.validUntilNanos();
            try {
                long ws = System.nanoTime();
                FencedWriteOutcome w = locks.fencedStore().write("s1-store", lease.fence(), name);
                history.write(new LockHistory.Write(name, lease.fence(), w == FencedWriteOutcome.WRITTEN, ws,
                        System.nanoTime()));
                TimeUnit.MILLISECONDS.sleep(random.nextLong(0, 20));   // the protected work
                stopped = Math.min(stopped, System.nanoTime());
                lease.release();
            } catch (RedisCommandException e) {
                errors.incrementAndGet();
            } finally {
                history.grant(new LockHistory.Grant(name, lease.fence(), sent, granted,
                        Math.min(stopped, lease.validUntilNanos())));
            }
        }
    }
}
