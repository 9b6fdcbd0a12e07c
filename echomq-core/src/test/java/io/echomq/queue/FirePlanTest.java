package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which fire times one scheduler run enqueues: on time always, missed ones by the policy. No Redis. */
class FirePlanTest {
    private static final long MIN = 60_000;
    private static final FireTimes EVERY_MINUTE = new FixedInterval(MIN);
    private static final long NOW = 1_000 * MIN + 30_000;   // half a minute past a fire time

    @Test
    void onTimeFireTimesAllFireAndTheNextIsAfterNow() {
        // a run 2.5 minutes late, but within the missed-after span of 5 minutes: all three fire
        FirePlan p = FirePlan.of(EVERY_MINUTE, 998 * MIN, NOW, MissedFires.SKIP, 10, 5 * MIN, 1000);
        assertThat(p.fireTimes()).containsExactly(998 * MIN, 999 * MIN, 1000 * MIN);
        assertThat(p.next()).isEqualTo(1001 * MIN);
    }

    @Test
    void skipDropsMissedFireTimesButKeepsTheOnTimeOnes() {
        FirePlan p = FirePlan.of(EVERY_MINUTE, 900 * MIN, NOW, MissedFires.SKIP, 10, MIN, 1000);
        assertThat(p.fireTimes()).containsExactly(1000 * MIN);   // the only one within a minute of now
        assertThat(p.next()).isEqualTo(1001 * MIN);
    }

    @Test
    void onceFiresTheStoredFireTimeAloneForEveryMissedOne() {
        FirePlan p = FirePlan.of(EVERY_MINUTE, 900 * MIN, NOW, MissedFires.ONCE, 10, MIN, 1000);
        assertThat(p.fireTimes()).containsExactly(900 * MIN, 1000 * MIN);
        // another scheduler that reads the same stored time later picks the same catch-up key
        FirePlan later = FirePlan.of(EVERY_MINUTE, 900 * MIN, NOW + 5 * MIN, MissedFires.ONCE, 10, MIN, 1000);
        assertThat(later.fireTimes().get(0)).isEqualTo(900 * MIN);
    }

    @Test
    void allFiresTheOldestMissedUpToItsBound() {
        FirePlan p = FirePlan.of(EVERY_MINUTE, 900 * MIN, NOW, MissedFires.ALL, 3, MIN, 1000);
        assertThat(p.fireTimes()).containsExactly(900 * MIN, 901 * MIN, 902 * MIN, 1000 * MIN);
        FirePlan few = FirePlan.of(EVERY_MINUTE, 997 * MIN, NOW, MissedFires.ALL, 10, MIN, 1000);
        assertThat(few.fireTimes()).containsExactly(997 * MIN, 998 * MIN, 999 * MIN, 1000 * MIN);
    }

    @Test
    void aRunFiresAtMostItsCapAndLeavesTheRestDue() {
        FireTimes everySecond = new FixedInterval(1000);
        FirePlan p = FirePlan.of(everySecond, NOW - 50_000, NOW, MissedFires.SKIP, 10, MIN, 20);
        assertThat(p.fireTimes()).hasSize(20).startsWith(NOW - 50_000);
        assertThat(p.next()).isEqualTo(NOW - 30_000);   // still due: the next run goes on from here
    }

    @Test
    void aScheduleThatEndsHasNoNext() {
        FireTimes once = after -> after.toEpochMilli() < 5_000
                ? java.util.Optional.of(java.time.Instant.ofEpochMilli(5_000)) : java.util.Optional.empty();
        FirePlan p = FirePlan.of(once, 5_000, 6_000, MissedFires.SKIP, 10, MIN, 1000);
        assertThat(p.fireTimes()).isEqualTo(List.of(5_000L));
        assertThat(p.next()).isEqualTo(-1);
    }

    @Test
    void fixedIntervalsAreMultiplesOfTheIntervalSinceTheEpoch() {
        assertThat(ScheduleSpec.every(java.time.Duration.ofMinutes(5))
                .nextAfter(java.time.Instant.parse("2026-03-29T01:02:03Z")).orElseThrow())
                .isEqualTo(java.time.Instant.parse("2026-03-29T01:05:00Z"));
        assertThat(new FixedInterval(1000).nextAfter(java.time.Instant.ofEpochMilli(2000)).orElseThrow().toEpochMilli())
                .isEqualTo(3000);
    }
}
