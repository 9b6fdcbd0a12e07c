package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.MissedFires;
import io.echomq.queue.Schedule;
import io.echomq.queue.ScheduleInfo;
import io.echomq.queue.ScheduleSpec;
import io.echomq.queue.Schedules;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;

/** The schedules page: a queue's schedules with their next fire times, bounded, and its bad input. */
class SchedulesPageTest extends DashboardTestBase {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS 'UTC'")
            .withZone(ZoneOffset.UTC);

    @Test
    void listsTheSchedulesEarliestFirstWithTheirNextFireTimes() {
        Schedules s = client.schedules("reports");
        ScheduleInfo daily = s.upsert(Schedule.of("b-daily", ScheduleSpec.every(Duration.ofDays(1)),
                "{\"report\":\"revenue\"}").withMissed(MissedFires.ALL));
        ScheduleInfo often = s.upsert(Schedule.of("a-often", ScheduleSpec.every(Duration.ofMinutes(5)), "<ping>"));

        HttpResponse<String> r = get("/schedules?queue=reports");
        assertThat(r.statusCode()).isEqualTo(200);
        // Id, spec, zone, next fire, in, missed fires, payload
        var oftenRow = row(r.body(), "a-often");
        assertThat(oftenRow).hasSize(7);
        assertThat(oftenRow.subList(0, 4)).containsExactly("a-often", "every:PT5M", "UTC",
                TIME.format(often.nextFire().orElseThrow()));
        // "in" is read by the dashboard's clock, after the upsert: within 5 min, or due at the very edge
        assertThat(oftenRow.get(4)).matches("in [0-9]+ (s|min)|due [0-9]+ s ago");
        assertThat(oftenRow.subList(5, 7)).containsExactly("skip", "&lt;ping&gt;");
        assertThat(row(r.body(), "b-daily")).startsWith("b-daily", "every:PT24H", "UTC",
                TIME.format(daily.nextFire().orElseThrow())).contains("all", "{&quot;report&quot;:&quot;revenue&quot;}");
        // every 5 min before every day, or at the same time and then by id
        assertThat(r.body().indexOf("<td>a-often</td>")).as("earliest first").isLessThan(r.body().indexOf("<td>b-daily</td>"));
        assertThat(r.body()).contains("2 schedules stored").doesNotContain("Showing the first", "cannot be read");

        assertThat(get("/queue?name=reports").body()).as("the queue page links it")
                .contains("<a href=\"/schedules?queue=reports\">Schedules</a>");
    }

    @Test
    void saysWhatItLeavesOutAndAnswersBadInputWithA4xx() {
        Schedules s = client.schedules("reports");
        // Every 1, 2 and 4 min: fire times fall on multiples of the interval, so s1 <= s2 <= s3, ties by id.
        for (int i = 1; i <= 3; i++) {
            s.upsert(Schedule.of("s" + i, ScheduleSpec.every(Duration.ofMinutes(1L << (i - 1))), "p"));
        }
        HttpResponse<String> first = get("/schedules?queue=reports&limit=2");
        assertThat(first.body()).contains("3 schedules stored", "Showing the first 2", "<td>s1</td>", "<td>s2</td>")
                .doesNotContain("<td>s3</td>");
        REDIS.raw().call("DEL", "emq:{reports}:schedule:s1");   // stored, but no longer readable
        assertThat(get("/schedules?queue=reports&limit=2").body()).contains("1 cannot be read by this dashboard")
                .doesNotContain("<td>s1</td>");

        client.queue("emails").enqueue("a");
        assertThat(get("/schedules?queue=emails").body()).contains("No schedule on this queue.");
        HttpResponse<String> unknown = get("/schedules?queue=nowhere");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(message(unknown)).isEqualTo("no queue named 'nowhere' on this server");
        HttpResponse<String> huge = get("/schedules?queue=reports&limit=100000");
        assertThat(huge.statusCode()).isEqualTo(400);
        assertThat(message(huge)).isEqualTo("limit must be a whole number in 1..500, was '100000'");
        assertThat(get("/schedules").statusCode()).isEqualTo(400);
        assertThat(get(readOnly, "/schedules?queue=reports").statusCode()).as("a page, so read-only shows it")
                .isEqualTo(200);
    }

    @Test
    void untilSaysHowFarOffCoarsely() {
        Instant now = Instant.parse("2026-12-01T10:00:00Z");
        assertThat(SchedulesPage.until(now, now.plusSeconds(42))).isEqualTo("in 42 s");
        assertThat(SchedulesPage.until(now, now.plusSeconds(4 * 60 + 10))).isEqualTo("in 4 min");
        assertThat(SchedulesPage.until(now, now.plusSeconds(5 * 3600))).isEqualTo("in 5 h");
        assertThat(SchedulesPage.until(now, now.plusSeconds(3600 + 14 * 60 + 59))).isEqualTo("in 1 h 14 min");
        assertThat(SchedulesPage.until(now, now.plusSeconds(3 * 86_400))).isEqualTo("in 3 d");
        assertThat(SchedulesPage.until(now, now.minusSeconds(12))).isEqualTo("due 12 s ago");
    }
}
