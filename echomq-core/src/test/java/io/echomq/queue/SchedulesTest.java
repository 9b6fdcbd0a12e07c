package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Upsert, list, next and remove of a queue's schedules, the stored form, and bad input refused before Redis. */
class SchedulesTest extends QueueTestBase {

    @Test
    void upsertListNextAndRemove() {
        Schedules s = client.schedules("q");
        ScheduleInfo info = s.upsert(Schedule.of("tick", ScheduleSpec.every(Duration.ofMinutes(5)), "hello")
                .withMissed(MissedFires.ALL).withMaxMissed(4).withPriority(7).withMaxAttempts(2));
        assertThat(info.version()).isEqualTo(1);
        Instant next = info.nextFire().orElseThrow();
        assertThat(next.toEpochMilli() % 300_000).isZero();
        assertThat(next).isAfter(Instant.now().minusSeconds(5)).isBefore(Instant.now().plus(Duration.ofMinutes(6)));

        List<ScheduleInfo> all = s.list();
        assertThat(all).hasSize(1);
        Schedule back = all.get(0).schedule();
        assertThat(back).isEqualTo(info.schedule());
        assertThat(back.spec().text()).isEqualTo("every:PT5M");
        assertThat(back.missed()).isEqualTo(MissedFires.ALL);
        assertThat(back.maxMissed()).isEqualTo(4);
        assertThat(all.get(0).nextFire()).contains(next);

        assertThat(s.next("tick", 3)).containsExactly(next, next.plus(Duration.ofMinutes(5)),
                next.plus(Duration.ofMinutes(10)));
        assertThat(s.next("nope", 3)).isEmpty();

        // the stored form, as another client reads it
        assertThat(raw().call("HGET", "emq:{q}:schedule:tick", "spec")).isEqualTo("every:PT5M");
        assertThat(raw().call("HGET", "emq:{q}:schedule:tick", "missed")).isEqualTo("all");

        assertThat(s.remove("tick")).isTrue();
        assertThat(s.remove("tick")).isFalse();
        assertThat(s.list()).isEmpty();
        assertThat(raw().call("EXISTS", "emq:{q}:schedule:tick")).isEqualTo(0L);
    }

    @Test
    void aBoundedListingReadsOnlyTheEarliestAndTheCountIsEveryStoredOne() {
        Schedules s = client.schedules("q");
        // Fire times fall on multiples of the interval, so these three may share one; then the ids order them.
        s.upsert(Schedule.of("b-hourly", ScheduleSpec.every(Duration.ofHours(1)), "h"));
        s.upsert(Schedule.of("a-minutely", ScheduleSpec.every(Duration.ofMinutes(1)), "m"));
        s.upsert(Schedule.of("c-daily", ScheduleSpec.every(Duration.ofDays(1)), "d"));
        assertThat(s.count()).isEqualTo(3);
        assertThat(s.list(2)).extracting(i -> i.schedule().id()).containsExactly("a-minutely", "b-hourly");
        assertThat(s.list(1000)).extracting(i -> i.schedule().id()).containsExactly("a-minutely", "b-hourly", "c-daily");
        // an id whose hash is gone cannot be read: counted, not listed
        raw().call("DEL", "emq:{q}:schedule:a-minutely");
        assertThat(s.count()).isEqualTo(3);
        assertThat(s.list(2)).extracting(i -> i.schedule().id()).containsExactly("b-hourly");
        assertThatThrownBy(() -> s.list(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be in 1..1000, was 0");
        assertThatThrownBy(() -> s.list(1001)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void reDeclaringTheSameTimingKeepsTheNextFireTimeAndAChangedOneMovesIt() {
        Schedules s = client.schedules("q");
        s.upsert(Schedule.of("t", ScheduleSpec.every(Duration.ofMinutes(1)), "a"));
        long due = System.currentTimeMillis() - 10_000;
        raw().call("ZADD", "emq:{q}:schedules", Long.toString(due), "t");   // due, not yet fired

        ScheduleInfo again = s.upsert(Schedule.of("t", ScheduleSpec.every(Duration.ofMinutes(1)), "b"));
        assertThat(again.nextFire()).contains(Instant.ofEpochMilli(due));   // nothing skipped
        assertThat(again.version()).isEqualTo(2);
        assertThat(s.get("t").orElseThrow().schedule().payloadUtf8()).isEqualTo("b");

        ScheduleInfo moved = s.upsert(Schedule.of("t", ScheduleSpec.every(Duration.ofMinutes(2)), "b"));
        assertThat(moved.nextFire().orElseThrow()).isAfter(Instant.ofEpochMilli(due + 10_000));
        assertThat(moved.nextFire().orElseThrow().toEpochMilli() % 120_000).isZero();
    }

    @Test
    void badInputIsRefusedBeforeRedis() {
        assertThatThrownBy(() -> ScheduleSpec.every(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("interval must be positive");
        assertThatThrownBy(() -> ScheduleSpec.every(Duration.ofSeconds(-5))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ScheduleSpec.every(Duration.ofMillis(10))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 100 ms");
        assertThatThrownBy(() -> ScheduleSpec.parse("every:5 minutes", "UTC")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ISO-8601");
        assertThatThrownBy(() -> ScheduleSpec.parse("hourly", "UTC")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ScheduleSpec.parse("weekly:x", "UTC")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown schedule kind 'weekly'");
        assertThatThrownBy(() -> MissedFires.parse("sometimes")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown missed-fire policy 'sometimes'");
        assertThatThrownBy(() -> Schedule.of("a b", ScheduleSpec.every(Duration.ofSeconds(1)), "x"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Schedule.of("x".repeat(201), ScheduleSpec.every(Duration.ofSeconds(1)), "x"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Schedule.of("ok", ScheduleSpec.every(Duration.ofSeconds(1)), "x").withMaxMissed(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.schedules("q").next("ok", 0)).isInstanceOf(IllegalArgumentException.class);
        // core alone has no cron parser: a cron spec says so rather than storing what no one could fire
        assertThatThrownBy(() -> ScheduleSpec.cron("0 * * * *", "UTC")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("echomq-cron");
        assertThat(raw().call("DBSIZE")).isEqualTo(0L);
    }
}
