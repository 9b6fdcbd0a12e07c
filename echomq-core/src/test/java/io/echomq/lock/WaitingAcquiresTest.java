package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** How long a waiting acquire pauses before its next try, given the holder's PTTL. */
class WaitingAcquiresTest {
    private static final long POLL = TimeUnit.SECONDS.toNanos(5);

    @Test
    void aWaitEndsJustPastTheHoldersTtl() {
        assertThat(WaitingAcquires.capByExpiry(POLL, 20)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(20) + 1);
        assertThat(WaitingAcquires.capByExpiry(TimeUnit.MILLISECONDS.toNanos(3), 20))
                .as("a shorter wait stays as it is").isEqualTo(TimeUnit.MILLISECONDS.toNanos(3));
    }

    @Test
    void aLockInItsLastMillisecondIsTriedAgainAfterOneMillisecondNotAWholePoll() {
        // PTTL answers 0 while the key lives through its last millisecond
        assertThat(WaitingAcquires.capByExpiry(POLL, 0)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1) + 1);
    }

    @Test
    void withoutATtlTheWaitIsLeftAlone() {
        assertThat(WaitingAcquires.capByExpiry(POLL, -1)).as("a key with no ttl").isEqualTo(POLL);
        assertThat(WaitingAcquires.capByExpiry(POLL, -2)).as("no key").isEqualTo(POLL);
    }
}
