package io.echomq.cron;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.ScheduleSpec;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The next-fire computation of cron schedules: 5 and 6 fields, a zone per schedule, and the
 * documented behaviour across the DST gap (2026-03-29, 02:00 → 03:00) and overlap (2026-10-25,
 * 03:00 → 02:00) of Europe/Berlin. No Redis: the fire times are a pure function of the spec.
 */
class CronFireTimesTest {
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    private static List<String> next(String cron, ZoneId zone, String from, int n) {
        ScheduleSpec spec = ScheduleSpec.cron(cron, zone);
        List<String> out = new ArrayList<>();
        Instant t = Instant.parse(from);
        for (int i = 0; i < n; i++) {
            t = spec.nextAfter(t).orElseThrow();
            out.add(t.toString());
        }
        return out;
    }

    @Test
    void fiveFieldsAreMinutesAndSixFieldsStartWithSeconds() {
        assertThat(next("*/15 * * * *", ZoneId.of("UTC"), "2026-01-01T00:07:30Z", 3))
                .containsExactly("2026-01-01T00:15:00Z", "2026-01-01T00:30:00Z", "2026-01-01T00:45:00Z");
        assertThat(next("*/20 * * * * *", ZoneId.of("UTC"), "2026-01-01T00:00:05Z", 3))
                .containsExactly("2026-01-01T00:00:20Z", "2026-01-01T00:00:40Z", "2026-01-01T00:01:00Z");
        assertThat(next("0 9 * * MON-FRI", ZoneId.of("UTC"), "2026-01-02T10:00:00Z", 2))   // a Friday
                .containsExactly("2026-01-05T09:00:00Z", "2026-01-06T09:00:00Z");
    }

    @Test
    void theZoneIsTheSchedulesOwn() {
        assertThat(next("0 9 * * *", BERLIN, "2026-01-10T00:00:00Z", 1)).containsExactly("2026-01-10T08:00:00Z");
        assertThat(next("0 9 * * *", ZoneId.of("America/New_York"), "2026-01-10T00:00:00Z", 1))
                .containsExactly("2026-01-10T14:00:00Z");
        assertThat(next("0 9 * * *", BERLIN, "2026-07-10T00:00:00Z", 1)).containsExactly("2026-07-10T07:00:00Z");
    }

    @Test
    void aTimeInTheSpringGapFiresOnceAtTheJump() {
        // 02:30 does not exist on 2026-03-29 in Berlin: fired at 03:00 CEST (01:00Z), then 02:30 as usual.
        assertThat(next("30 2 * * *", BERLIN, "2026-03-28T12:00:00Z", 3))
                .containsExactly("2026-03-29T01:00:00Z",
                        "2026-03-30T00:30:00Z", "2026-03-31T00:30:00Z");
        // the same in 6 fields
        assertThat(next("0 30 2 * * *", BERLIN, "2026-03-28T12:00:00Z", 2))
                .containsExactly("2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z");
    }

    @Test
    void anHourlyScheduleNeitherDoublesNorSkipsAtTheGap() {
        // 01:00 CET, then 03:00 CEST: one real hour later, and the missing 02:00 is not fired twice.
        assertThat(next("0 * * * *", BERLIN, "2026-03-28T23:30:00Z", 3))
                .containsExactly("2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z");
    }

    @Test
    void aFixedHourInTheAutumnOverlapFiresOnceAtItsFirstOccurrence() {
        // 02:30 happens at 00:30Z (CEST) and again at 01:30Z (CET): fired once, the first time.
        assertThat(next("30 2 * * *", BERLIN, "2026-10-24T12:00:00Z", 2))
                .containsExactly("2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z");
    }

    @Test
    void anHourlyScheduleFiresInEveryRealHourOfTheOverlap() {
        assertThat(next("0 * * * *", BERLIN, "2026-10-24T23:30:00Z", 3))
                .containsExactly("2026-10-25T00:00:00Z", "2026-10-25T01:00:00Z", "2026-10-25T02:00:00Z");
    }

    @Test
    void anExpressionThatNeverMatchesHasNoNextFire() {
        assertThat(ScheduleSpec.cron("0 0 30 2 *", BERLIN).nextAfter(Instant.parse("2026-01-01T00:00:00Z"))).isEmpty();
    }

    @Test
    void badExpressionsAndZonesAreRefusedWithAReason() {
        assertThatThrownBy(() -> ScheduleSpec.cron("61 * * * *", "UTC")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bad cron expression '61 * * * *'");
        assertThatThrownBy(() -> ScheduleSpec.cron("* * *", "UTC")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has 3 fields");
        assertThatThrownBy(() -> ScheduleSpec.cron("0 * * * *", "Mars/Olympus")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown time zone 'Mars/Olympus'");
        assertThatThrownBy(() -> ScheduleSpec.parse("cron:not a cron at all", "UTC"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theStoredFormReadsBackToTheSameSpec() {
        ScheduleSpec s = ScheduleSpec.cron("  0  9 * *   MON-FRI ", "Europe/Berlin");
        assertThat(s.text()).isEqualTo("cron:0 9 * * MON-FRI");
        assertThat(ScheduleSpec.parse(s.text(), s.zone().getId())).isEqualTo(s);
    }
}
