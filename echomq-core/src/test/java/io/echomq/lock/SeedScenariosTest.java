package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.server.CommandTap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The seed's scenarios (R2.02.1), as assertions against a real server. */
class SeedScenariosTest extends LockTestBase {
    private static final Duration TTL = Duration.ofSeconds(30);

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void fourWorkersRaceAndExactlyOneWins(boolean fenced) throws Exception {
        AcquireOptions options = fenced ? AcquireOptions.defaults() : AcquireOptions.defaults().plain();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 25; round++) {
                String resource = "race-" + round;
                CyclicBarrier start = new CyclicBarrier(4);
                long before = serverMicros();
                List<Future<Optional<Lease>>> results = new ArrayList<>();
                for (int w = 0; w < 4; w++) {
                    results.add(pool.submit(() -> {
                        start.await();
                        return locks.tryAcquire(resource, TTL, options);
                    }));
                }
                List<Lease> winners = new ArrayList<>();
                for (Future<Optional<Lease>> f : results) {
                    f.get().ifPresent(winners::add);
                }
                assertThat(winners).as("holders of %s", resource).hasSize(1);
                assertThat(get(locks.lockKey(resource))).isEqualTo(winners.get(0).token());
                if (fenced) {
                    // a fresh resource's first fence is the server's clock at the grant
                    assertThat(winners.get(0).fence()).isBetween(before, serverMicros());
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
    void plainAcquireSendsExactlyOneSetNxPx() {
        try (CommandTap tap = raw().monitor()) {
            Lease lease = locks.tryAcquire("one-command", Duration.ofMillis(30_000), AcquireOptions.defaults().plain())
                    .orElseThrow();
            List<String> expected = List.of("SET", locks.lockKey("one-command"), lease.token(), "NX", "PX", "30000");
            assertThat(tap.awaitCommand(c -> c.get(0).equalsIgnoreCase("SET"), Duration.ofSeconds(5))).isTrue();
            // Anything after the SET is the monitor's own bookkeeping; the acquire is that one command.
            List<List<String>> sent = tap.commands().stream()
                    .filter(c -> !c.get(0).equalsIgnoreCase("PING"))
                    .toList();
            assertThat(sent).hasSize(1);
            assertThat(sent.get(0)).as("the seed's command, verbatim").isEqualTo(expected);
        }
    }

    @Test
    void setnxThenExpireWithACrashInTheGapLeavesALockWithNoTtl() {
        String key = "emq:test:{crash}:lock";
        assertThat(raw().call("SETNX", key, "t1")).isEqualTo(1L);
        // ... the process crashes here; EXPIRE is never sent.
        assertThat(raw().call("TTL", key)).as("a lock with no expiry").isEqualTo(-1L);
        assertThat(raw().call("SETNX", key, "t2")).as("the next caller fails, forever").isEqualTo(0L);

        // The atomic form always carries its expiry.
        Lease lease = locks.tryAcquire("crash", TTL, AcquireOptions.defaults().plain()).orElseThrow();
        long pttl = pttl(locks.lockKey(lease.resource()));
        assertThat(pttl).isPositive().isLessThanOrEqualTo(TTL.toMillis());
        Lease fenced = locks.tryAcquire("crash-fenced", TTL).orElseThrow();
        assertThat(pttl(locks.lockKey(fenced.resource()))).isPositive().isLessThanOrEqualTo(TTL.toMillis());
    }

    @Test
    void aBlindDelDeletesTheNextHoldersLockButTheTokenCheckedReleaseRefuses() {
        // The hazard: A's lease expires, B acquires, A's blind DEL removes B's lock.
        Lease a = locks.tryAcquire("blind", Duration.ofMillis(100)).orElseThrow();
        String key = locks.lockKey("blind");
        await().atMost(Duration.ofSeconds(5)).until(() -> get(key) == null);
        Lease b = locks.tryAcquire("blind", TTL).orElseThrow();
        raw().call("DEL", key);
        assertThat(get(key)).as("B's lock was deleted by A").isNull();

        // The fix: the token-checked release refuses, and B's lock stays.
        b.release();
        Lease a2 = locks.tryAcquire("blind", Duration.ofMillis(100)).orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> get(key) == null);
        Lease b2 = locks.tryAcquire("blind", TTL).orElseThrow();
        assertThat(a2.release()).isEqualTo(ReleaseOutcome.NOT_OWNER);
        assertThat(get(key)).isEqualTo(b2.token());
        assertThat(a.release()).isEqualTo(ReleaseOutcome.NOT_OWNER);
        assertThat(get(key)).isEqualTo(b2.token());
    }

    @Test
    void pxWithoutNxLetsTwoHoldersIn() {
        String key = "emq:test:{px}:lock";
        assertThat(raw().call("SET", key, "t1", "PX", "30000")).isEqualTo("OK");
        assertThat(raw().call("SET", key, "t2", "PX", "30000")).as("the second also gets OK").isEqualTo("OK");
        assertThat(get(key)).isEqualTo("t2");

        // With NX, the second is refused.
        assertThat(locks.tryAcquire("px", TTL)).isPresent();
        assertThat(locks.tryAcquire("px", TTL)).isEmpty();
    }

    @Test
    void aStaleHoldersFencedWriteIsRefusedAfterTheLeaseMovedOn() {
        FencedStore store = locks.fencedStore();
        Lease a = locks.tryAcquire("fenced", Duration.ofMillis(100)).orElseThrow();
        assertThat(store.write("emq:test:guarded", a.fence(), "from A")).isEqualTo(FencedWriteOutcome.WRITTEN);
        await().atMost(Duration.ofSeconds(5)).until(() -> get(locks.lockKey("fenced")) == null);

        Lease b = locks.tryAcquire("fenced", TTL).orElseThrow();
        assertThat(b.fence()).isGreaterThan(a.fence());
        assertThat(store.write("emq:test:guarded", b.fence(), "from B")).isEqualTo(FencedWriteOutcome.WRITTEN);

        assertThat(store.write("emq:test:guarded", a.fence(), "late A")).isEqualTo(FencedWriteOutcome.STALE);
        assertThat(store.read("emq:test:guarded")).contains(new FencedValue("from B", b.fence()));
        assertThat(a.renew()).isIn(RenewOutcome.EXPIRED, RenewOutcome.NOT_OWNER);
        assertThat(get(locks.lockKey("fenced"))).isEqualTo(b.token());
    }
}
