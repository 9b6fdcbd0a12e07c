package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link Lease#releaseAfter}: the lease ends here, the lock stays for the hold and then expires. */
class LeaseReleaseAfterTest extends LockTestBase {
    private static final Duration HOLD = Duration.ofMillis(600);

    @Test
    void theLockStaysForTheHoldUnrenewedThenExpires() {
        Lease lease = locks.tryAcquire("kept", Duration.ofSeconds(1), AcquireOptions.defaults().withWatchdog()).orElseThrow();
        long before = System.nanoTime();
        assertThat(lease.releaseAfter(HOLD)).isEqualTo(ReleaseOutcome.RELEASED);
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.isLost()).isFalse();
        assertThat(pttl(locks.lockKey("kept"))).isPositive().isLessThanOrEqualTo(HOLD.toMillis());
        assertThat(lease.release()).as("the first answer, without a delete").isEqualTo(ReleaseOutcome.RELEASED);
        lease.close();
        assertThat(locks.tryAcquire("kept", Duration.ofSeconds(1))).as("still taken").isEmpty();
        // The watchdog renewed every ~333 ms; had it kept on, the key would never go.
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
                .until(() -> pttl(locks.lockKey("kept")) == -2);
        assertThat(Duration.ofNanos(System.nanoTime() - before)).isGreaterThanOrEqualTo(HOLD.minusMillis(2));
        assertThat(locks.tryAcquire("kept", Duration.ofSeconds(1))).isPresent();
    }

    @Test
    void aLockThatIsGoneIsNotRevived() {
        Lease lease = locks.tryAcquire("gone", Duration.ofSeconds(30)).orElseThrow();
        raw().call("DEL", locks.lockKey("gone"));
        assertThat(lease.releaseAfter(HOLD)).isEqualTo(ReleaseOutcome.EXPIRED);
        assertThat(lease.lossReason()).contains(LossReason.EXPIRED);
        assertThat(pttl(locks.lockKey("gone"))).isEqualTo(-2);
    }

    @Test
    void aLockNowSomeoneElsesIsLeftAlone() {
        Lease lease = locks.tryAcquire("taken", Duration.ofSeconds(30)).orElseThrow();
        raw().call("DEL", locks.lockKey("taken"));
        Lease other = locks.tryAcquire("taken", Duration.ofSeconds(30)).orElseThrow();
        assertThat(lease.releaseAfter(HOLD)).isEqualTo(ReleaseOutcome.NOT_OWNER);
        assertThat(lease.lossReason()).contains(LossReason.NOT_OWNER);
        assertThat(pttl(locks.lockKey("taken"))).as("the other holder's ttl").isGreaterThan(HOLD.toMillis());
        assertThat(other.release()).isEqualTo(ReleaseOutcome.RELEASED);
    }

    @Test
    void aHoldBelowOneMillisecondReleasesAtOnce() {
        Lease lease = locks.tryAcquire("now", Duration.ofSeconds(30)).orElseThrow();
        assertThat(lease.releaseAfter(Duration.ofMillis(-5))).isEqualTo(ReleaseOutcome.RELEASED);
        assertThat(pttl(locks.lockKey("now"))).isEqualTo(-2);
    }

    @Test
    void aNullOrTooLongHoldIsRefused() {
        Lease lease = locks.tryAcquire("bad", Duration.ofSeconds(30)).orElseThrow();
        assertThatThrownBy(() -> lease.releaseAfter(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> lease.releaseAfter(LockClient.MAX_TTL.plusMillis(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(lease.isHeld()).isTrue();
    }
}
