package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The renewers' pace: the normal period on time, earlier after lateness, and back after a quiet minute. */
class RenewalPaceTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long PERIOD = 1000 * MS;   // a 3 s lease

    @Test
    void onTimeItIsTheNormalPeriod() {
        RenewalPace pace = new RenewalPace();
        pace.observe(0, 0);
        pace.observe(100 * MS, 90 * MS);   // early counts as on time
        assertThat(pace.interval(PERIOD, 100 * MS)).isEqualTo(PERIOD);
    }

    @Test
    void afterLatenessItRenewsEarlierByTwiceTheLatenessButAtMostTwiceAsOften() {
        RenewalPace pace = new RenewalPace();
        pace.observe(0, 0);
        pace.observe(1000 * MS, 1100 * MS);   // 100 ms late
        assertThat(pace.interval(PERIOD, 1100 * MS)).isEqualTo(800 * MS);
        pace.observe(2000 * MS, 3200 * MS);   // 1.2 s late: the floor is half the period
        assertThat(pace.interval(PERIOD, 3200 * MS)).isEqualTo(500 * MS);
    }

    @Test
    void latenessIsRememberedForAtLeastOneWindowAndForgottenAfterTwo() {
        RenewalPace pace = new RenewalPace();
        pace.observe(0, 0);
        pace.observe(0, 300 * MS);
        long window = RenewalPace.WINDOW_NANOS;
        assertThat(pace.interval(PERIOD, window - MS)).as("same window").isEqualTo(500 * MS);
        assertThat(pace.interval(PERIOD, window + MS)).as("the next window still remembers").isEqualTo(500 * MS);
        assertThat(pace.interval(PERIOD, 2 * window + 2 * MS)).as("a quiet window later").isEqualTo(PERIOD);
    }

    @Test
    void aFailedRenewalIsRetriedAfterATenthOfTheLeaseAtMostOneSecond() {
        assertThat(RenewalPace.retryAfter(3000 * MS)).isEqualTo(300 * MS);
        assertThat(RenewalPace.retryAfter(60_000 * MS)).isEqualTo(1000 * MS);
        assertThat(RenewalPace.retryAfter(5)).isEqualTo(1);
    }

    @Test
    void renewalThreadsArePlatformDaemonsAtMaxPriority() {
        Thread t = RenewalThreads.newThread("emq-test-renewal", () -> { });
        assertThat(t.isDaemon()).isTrue();
        assertThat(t.getPriority()).isEqualTo(Thread.MAX_PRIORITY);
        assertThat(t.getName()).isEqualTo("emq-test-renewal");
    }
}
