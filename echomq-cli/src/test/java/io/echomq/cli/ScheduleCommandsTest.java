package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** {@code emq schedule add|list|next|remove}, and bad input refused with exit code 2 before Redis is touched. */
class ScheduleCommandsTest extends QueueCliTestBase {

    @Test
    void addListNextRemove() {
        EmqRun typo = emq("schedule", "add", "reports", "nightly", "x", "--every", "1m");
        assertThat(typo.code()).isEqualTo(2);
        assertThat(typo.err()).contains("no such queue 'reports'").contains("--create");
        assertThat(REDIS.raw().call("DBSIZE")).isEqualTo(0L);
        EmqRun add = emq("schedule", "add", "reports", "nightly", "{\"kind\":\"daily\"}", "--cron", "0 2 * * *",
                "--zone", "Europe/Berlin", "--missed", "once", "--create");
        assertThat(add.code()).as(add.err()).isZero();
        assertThat(add.out()).startsWith("nightly next=").endsWith(" version=1\n");
        Instant next = Instant.parse(add.out().substring("nightly next=".length(), add.out().indexOf(' ', "nightly next=".length())));
        assertThat(next.atZone(java.time.ZoneId.of("Europe/Berlin")).getHour()).isIn(2, 3);   // 03:00 only on the day of the spring gap

        assertThat(emq("schedule", "add", "reports", "beat", "ping", "--every", "30s").code()).isZero();
        EmqRun list = emq("schedule", "list", "reports");
        assertThat(list.code()).isZero();
        assertThat(list.out().lines()).hasSize(2).anySatisfy(l -> assertThat(l)
                .startsWith("nightly\tcron:0 2 * * *\tzone=Europe/Berlin\tnext=" + next + "\tmissed=once\tpayload="))
                .anySatisfy(l -> assertThat(l).startsWith("beat\tevery:PT30S\tzone=UTC\tnext="));

        EmqRun times = emq("schedule", "next", "reports", "beat", "--count", "3");
        assertThat(times.out().lines()).hasSize(3);
        assertThat(Instant.parse(times.out().lines().toList().get(1)).toEpochMilli()
                - Instant.parse(times.out().lines().toList().get(0)).toEpochMilli()).isEqualTo(30_000);
        assertThat(emq("schedule", "next", "reports", "nope").code()).isEqualTo(1);
        assertThat(emq("schedule", "list", "reprots").err()).contains("no such queue 'reprots'; did you mean 'reports'?");

        EmqRun removed = emq("schedule", "remove", "reports", "nightly");
        assertThat(removed.out()).isEqualTo("REMOVED\n");
        EmqRun again = emq("schedule", "remove", "reports", "nightly");
        assertThat(again.code()).isEqualTo(1);
        assertThat(again.out()).isEqualTo("MISSING\n");
    }

    @Test
    void badInputExitsTwoWithOneLineAndTouchesNothing() {
        String[][] bad = {
            {"schedule", "add", "q", "s", "x", "--cron", "61 * * * *"},
            {"schedule", "add", "q", "s", "x", "--cron", "* * *"},
            {"schedule", "add", "q", "s", "x", "--cron", "0 * * * *", "--zone", "Mars/Olympus"},
            {"schedule", "add", "q", "s", "x", "--every", "0s"},
            {"schedule", "add", "q", "s", "x", "--every", "-5m"},
            {"schedule", "add", "q", "s", "x", "--every", "soon"},
            {"schedule", "add", "q", "s", "x", "--every", "1s", "--missed", "sometimes"},
            {"schedule", "add", "q", "s", "x", "--every", "1s", "--max-missed", "0"},
            {"schedule", "add", "q", "s", "x"},
            {"schedule", "add", "q", "s", "x", "--every", "1s", "--cron", "* * * * *"},
            {"schedule", "add", "q", "a b", "x", "--every", "1s"},
            {"schedule", "next", "q", "s", "--count", "0"},
            {"scheduler", "bad{name"},
        };
        for (String[] args : bad) {
            EmqRun r = emq(args);
            assertThat(r.code()).as("%s: %s", String.join(" ", args), r.err()).isEqualTo(2);
            assertThat(r.out()).isEmpty();
        }
        EmqRun cron = emq(bad[0]);
        assertThat(cron.err().lines().findFirst().orElseThrow()).contains("bad cron expression '61 * * * *'");
        assertThat(emq(bad[2]).err()).contains("unknown time zone 'Mars/Olympus'");
        assertThat(emq(bad[3]).err()).contains("interval must be positive");
        assertThat(emq(bad[6]).err()).contains("unknown missed-fire policy 'sometimes'");
        assertThat(REDIS.raw().call("DBSIZE")).isEqualTo(0L);
    }
}
