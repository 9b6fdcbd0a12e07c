package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.server.RawRedis;
import io.echomq.server.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The opt-in watchdog: keeps leases alive, hears their loss, never renews a lost one. */
class WatchdogTest extends LockTestBase {
    private static final Duration SHORT = Duration.ofMillis(300);
    private static final AcquireOptions WATCHED = AcquireOptions.defaults().withWatchdog();

    /** EVALSHA calls since the last CONFIG RESETSTAT, summed over every server (every master of a cluster). */
    private long evalshaCalls() {
        long calls = 0;
        for (RedisServer server : REDIS.servers()) {
            try (RawRedis node = RawRedis.connect(server.host(), server.port())) {
                String stats = (String) node.call("INFO", "commandstats");
                for (String line : stats.split("\r?\n")) {
                    if (line.startsWith("cmdstat_evalsha:")) {
                        calls += Long.parseLong(line.replaceAll("^cmdstat_evalsha:calls=(\\d+),.*$", "$1"));
                    }
                }
            }
        }
        return calls;
    }

    @Test
    void theWatchdogKeepsALeaseAlivePastSeveralTtls() {
        // a 2 s lease held for three of its ttls: long enough that a loaded machine's pause of
        // several hundred ms is not mistaken for a watchdog that stopped renewing
        Duration ttl = Duration.ofSeconds(2);
        Lease lease = locks.tryAcquire("kept", ttl, WATCHED).orElseThrow();
        String key = locks.lockKey("kept");
        await().during(Duration.ofMillis(3 * ttl.toMillis())).atMost(Duration.ofSeconds(12))
                .until(() -> lease.token().equals(get(key)) && lease.isHeld());
        assertThat(lease.release()).isEqualTo(ReleaseOutcome.RELEASED);
        assertThat(get(key)).isNull();
    }

    @Test
    void manyLeasesAreRenewedTogether() {
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            leases.add(locks.tryAcquire("many-" + i, SHORT, WATCHED).orElseThrow());
        }
        await().during(Duration.ofMillis(1_200)).atMost(Duration.ofSeconds(4))
                .until(() -> leases.stream().allMatch(l -> l.token().equals(get(locks.lockKey(l.resource())))));
        leases.forEach(Lease::release);
    }

    @Test
    void aLeaseDeletedBehindItsBackIsLostHeardAndNeverRenewedAgain() {
        Lease lease = locks.tryAcquire("deleted", SHORT, WATCHED).orElseThrow();
        CompletableFuture<LossReason> heard = new CompletableFuture<>();
        lease.onLost(heard::complete);
        CompletableFuture<LossReason> lost = lease.lost();

        raw().call("DEL", locks.lockKey("deleted"));
        await().atMost(Duration.ofSeconds(3)).until(lost::isDone);
        assertThat(lost.join()).isEqualTo(LossReason.EXPIRED);
        await().atMost(Duration.ofSeconds(3)).until(heard::isDone);
        assertThat(heard.join()).isEqualTo(LossReason.EXPIRED);
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.isLost()).isTrue();

        // Someone else takes it; the lost lease's watchdog must never touch it again.
        raw().call("SET", locks.lockKey("deleted"), "other", "PX", "60000");
        raw().call("CONFIG", "RESETSTAT");
        PttlWatch other = new PttlWatch(locks.lockKey("deleted"));
        await().during(Duration.ofMillis(3 * SHORT.toMillis())).atMost(Duration.ofSeconds(3))
                .until(() -> evalshaCalls() == 0 && other.stillFalling());
        other.assertFellByTheTimeThatPassed();
        assertThat(get(locks.lockKey("deleted"))).isEqualTo("other");
        assertThat(lease.renew()).isEqualTo(RenewOutcome.EXPIRED);
    }

    @Test
    void aLeaseTakenOverIsLostAsNotOwner() {
        Lease lease = locks.tryAcquire("taken", SHORT, WATCHED).orElseThrow();
        raw().call("SET", locks.lockKey("taken"), "intruder", "PX", "60000");
        await().atMost(Duration.ofSeconds(3)).until(lease::isLost);
        assertThat(lease.lossReason()).contains(LossReason.NOT_OWNER);
        assertThat(get(locks.lockKey("taken"))).isEqualTo("intruder");
    }

    @Test
    void theWatchdogSurvivesAScriptFlush() {
        // a 1 s lease, held for 2 s after the flush: several renewals must reload the script. The
        // lease is longer than SHORT so that a loaded machine's slow round trip is not mistaken
        // for a renewal that failed after the flush.
        Duration ttl = Duration.ofSeconds(1);
        Lease lease = locks.tryAcquire("flushed", ttl, WATCHED).orElseThrow();
        raw().call("SCRIPT", "FLUSH");
        await().during(Duration.ofMillis(2 * ttl.toMillis())).atMost(Duration.ofSeconds(8))
                .until(() -> lease.token().equals(get(locks.lockKey("flushed"))));
        assertThat(lease.isLost()).isFalse();
    }

    @Test
    void withoutAWatchdogTheLostSignalFiresAtTheLocalDeadline() {
        Lease lease = locks.tryAcquire("unwatched", Duration.ofMillis(200)).orElseThrow();
        CompletableFuture<LossReason> lost = lease.lost();
        assertThat(lost).isNotDone();
        assertThat(lost.orTimeout(3, TimeUnit.SECONDS).join()).isEqualTo(LossReason.DEADLINE_PASSED);
        assertThat(lease.isHeld()).isFalse();
    }

    @Test
    void aReleasedLeaseIsNoLongerRenewed() {
        Lease lease = locks.tryAcquire("released", SHORT, WATCHED).orElseThrow();
        assertThat(lease.release()).isEqualTo(ReleaseOutcome.RELEASED);
        raw().call("SET", locks.lockKey("released"), "next-holder", "PX", "60000");
        raw().call("CONFIG", "RESETSTAT");
        PttlWatch next = new PttlWatch(locks.lockKey("released"));
        await().during(Duration.ofMillis(2 * SHORT.toMillis())).atMost(Duration.ofSeconds(3))
                .until(() -> evalshaCalls() == 0 && next.stillFalling());
        next.assertFellByTheTimeThatPassed();
        assertThat(lease.lost()).isNotDone();
    }

    /**
     * Watches another holder's key: no command of any kind (a script by another name, a plain PEXPIRE) may extend
     * it, so its PTTL never rises and falls by the time that passes.
     */
    private final class PttlWatch {
        private final String key;
        private final long first;
        private final long start = System.nanoTime();
        private long last;
        private boolean rose;

        PttlWatch(String key) {
            this.key = key;
            this.first = pttl(key);
            this.last = first;
        }

        boolean stillFalling() {
            long now = pttl(key);
            rose |= now > last || now <= 0;   // once seen, a rise fails the whole watch
            last = now;
            return !rose;
        }

        void assertFellByTheTimeThatPassed() {
            long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            assertThat(first - pttl(key)).as("PTTL of %s fell over %d ms", key, elapsedMs)
                    .isGreaterThanOrEqualTo(elapsedMs - 100);
        }
    }
}
