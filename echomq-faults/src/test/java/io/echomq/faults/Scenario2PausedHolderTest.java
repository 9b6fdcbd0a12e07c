package io.echomq.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.lock.FencedValue;
import io.echomq.lock.FencedWriteOutcome;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.testkit.ChildJvm;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario 2: a lock holder (its own JVM) is stopped with {@code SIGSTOP} past its ttl; another client takes the
 * lock and writes with its higher fence; then the holder gets {@code SIGCONT}. Its renew must answer a lost outcome,
 * its lease's lost signal must fire, and its fenced write must be refused. Three rounds.
 *
 * <p>Each of those is asserted directly on what the holder printed and what the store kept. There is no history
 * check here: the test itself decides when the paused holder stops and the next one starts, so a history built
 * from those moments could not show an overlap whatever the lock did.
 */
class Scenario2PausedHolderTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final int ROUNDS = 3;
    private static final Duration TTL = Duration.ofMillis(500);
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    @Timeout(value = 120)
    void aHolderPausedPastItsTtlLearnsItLostAndItsWriteIsRefused() throws Exception {
        int grants = 0;
        int refused = 0;
        int lostSignals = 0;
        int lostRenewals = 0;
        try (LockClient locks = LockClient.create(REDIS.url())) {
            for (int round = 1; round <= ROUNDS; round++) {
                String resource = "s2-" + round;
                String store = "s2-store-" + round;
                try (ChildJvm holder = ChildJvm.start(LockHolderMain.class.getName(), line -> { },
                        REDIS.url(), resource, Long.toString(TTL.toMillis()), store)) {
                    String[] granted = holder.awaitLine(l -> l.startsWith("GRANTED "), WAIT).split(" ");
                    long stale = Long.parseLong(granted[1]);
                    holder.pause();
                    // The pause lasts until someone else holds the lock: past the ttl, by the server's clock.
                    Lease next = await().atMost(WAIT).pollInterval(Duration.ofMillis(20))
                            .until(() -> locks.tryAcquire(resource, Duration.ofSeconds(10)), Optional::isPresent)
                            .orElseThrow();
                    assertThat(locks.fencedStore().write(store, next.fence(), "from-new-holder"))
                            .isEqualTo(FencedWriteOutcome.WRITTEN);
                    holder.resume();
                    holder.send("go");
                    String renew = holder.awaitLine(l -> l.startsWith("RENEW "), WAIT);
                    String lost = holder.awaitLine(l -> l.startsWith("LOST "), WAIT);
                    String write = holder.awaitLine(l -> l.startsWith("WRITE "), WAIT);
                    holder.awaitLine("DONE"::equals, WAIT);

                    assertThat(next.fence()).isGreaterThan(stale);
                    assertThat(renew).isIn("RENEW EXPIRED held=false", "RENEW NOT_OWNER held=false");
                    assertThat(lost).isIn("LOST DEADLINE_PASSED", "LOST EXPIRED", "LOST NOT_OWNER");
                    assertThat(write).isEqualTo("WRITE STALE");
                    assertThat(locks.fencedStore().read(store)).map(FencedValue::value).contains("from-new-holder");
                    // The figures of the report line; each round got here only by passing every assert above.
                    grants += 2;
                    lostRenewals++;
                    lostSignals++;
                    refused++;
                    next.release();
                }
            }
        }
        Reliability.report(2, Reliability.figures("name", "paused-lock-holder", "pauses", ROUNDS, "ttl_ms",
                TTL.toMillis(), "grants", grants, "lost_renewals", lostRenewals, "lost_signals", lostSignals,
                "stale_writes_refused", refused, "stale_writes_accepted", ROUNDS - refused));
    }
}
