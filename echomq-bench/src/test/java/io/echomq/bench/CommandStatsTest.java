package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The commandstats arithmetic of the queue bench's breakdown, and the INFO cpu sum: pure Java, no server. */
class CommandStatsTest {
    private static final String BEFORE = String.join("\r\n",
            "# Commandstats",
            "cmdstat_evalsha:calls=10,usec=1000,usec_per_call=100.00,rejected_calls=0,failed_calls=0",
            "cmdstat_hset:calls=10,usec=50,usec_per_call=5.00,rejected_calls=0,failed_calls=0",
            "cmdstat_info:calls=3,usec=90,usec_per_call=30.00,rejected_calls=0,failed_calls=0",
            "");
    private static final String AFTER = String.join("\r\n",
            "# Commandstats",
            "cmdstat_evalsha:calls=210,usec=21000,usec_per_call=100.00,rejected_calls=0,failed_calls=0",
            "cmdstat_hset:calls=410,usec=2050,usec_per_call=5.00,rejected_calls=0,failed_calls=0",
            "cmdstat_zadd:calls=200,usec=3000,usec_per_call=15.00,rejected_calls=0,failed_calls=0",
            "cmdstat_client|setinfo:calls=2,usec=4,usec_per_call=2.00,rejected_calls=0,failed_calls=0",
            "cmdstat_info:calls=5,usec=150,usec_per_call=30.00,rejected_calls=0,failed_calls=0",
            "cmdstat_ping:calls=1,usec=1,usec_per_call=1.00,rejected_calls=0,failed_calls=0",
            "");

    @Test
    void parsesEveryCommandLineAndSkipsTheRest() {
        Map<String, CommandStats.Stat> stats = CommandStats.parse(AFTER);

        assertThat(stats).containsOnlyKeys("evalsha", "hset", "zadd", "client|setinfo", "info", "ping");
        assertThat(stats.get("evalsha")).isEqualTo(new CommandStats.Stat(210, 21000));
        assertThat(stats.get("client|setinfo")).isEqualTo(new CommandStats.Stat(2, 4));
        assertThat(CommandStats.parse("# Server\r\nredis_version:7.0.15\r\n")).isEmpty();
        assertThatThrownBy(() -> CommandStats.parse("cmdstat_get:usec=4")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theDeltaCountsNewCommandsFromZeroAndDropsIdleOnes() {
        Map<String, CommandStats.Stat> delta = CommandStats.delta(CommandStats.parse(BEFORE),
                CommandStats.parse(AFTER + "cmdstat_get:calls=0,usec=0\r\n"));

        assertThat(delta.get("evalsha")).isEqualTo(new CommandStats.Stat(200, 20000));
        assertThat(delta.get("hset")).isEqualTo(new CommandStats.Stat(400, 2000));
        assertThat(delta.get("zadd")).as("absent before").isEqualTo(new CommandStats.Stat(200, 3000));
        assertThat(delta.get("info")).isEqualTo(new CommandStats.Stat(2, 60));
        assertThat(delta).doesNotContainKey("get");
    }

    @Test
    void theScriptOverheadIsTheScriptsTimeLessTheCommandsTheyRan() {
        Map<String, CommandStats.Stat> delta = CommandStats.delta(CommandStats.parse(BEFORE), CommandStats.parse(AFTER));

        // evalsha 20000 µs, inner hset 2000 + zadd 3000; info, ping and client|setinfo are the client's own
        assertThat(CommandStats.scriptOverheadUsec(delta)).isEqualTo(15_000);
        assertThat(CommandStats.scriptOverheadUsec(Map.of("evalsha", new CommandStats.Stat(1, 5),
                "set", new CommandStats.Stat(1, 9)))).as("never below zero").isZero();
    }

    @Test
    void rowsArePerJobByServerTimeThenTheOverhead() {
        Map<String, CommandStats.Stat> delta = CommandStats.delta(CommandStats.parse(BEFORE), CommandStats.parse(AFTER));

        List<CommandStats.Row> rows = CommandStats.rows(delta, 200, 2);

        assertThat(rows).extracting(CommandStats.Row::name).containsExactly("evalsha", "zadd", CommandStats.OVERHEAD);
        assertThat(rows.get(0).callsPerJob()).isEqualTo(1.0);
        assertThat(rows.get(0).usecPerJob()).isEqualTo(100.0);
        assertThat(rows.get(1).usecPerJob()).isEqualTo(15.0);
        assertThat(rows.get(2).callsPerJob()).isEqualTo(1.0);
        assertThat(rows.get(2).usecPerJob()).isEqualTo(75.0);
        assertThat(CommandStats.format(rows.get(2))).contains("script overhead (Lua and call conversion)")
                .contains("1.000").contains("75.00");
        assertThatThrownBy(() -> CommandStats.rows(delta, 0, 2)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void serverCpuIsSystemPlusUserSeconds() {
        String info = "# CPU\r\nused_cpu_sys:1.250000\r\nused_cpu_user:2.500001\r\nused_cpu_sys_children:9.0\r\n";

        assertThat(PhaseCpu.cpuSeconds(info)).isCloseTo(3.750001, within(1e-9));
        assertThatThrownBy(() -> PhaseCpu.cpuSeconds("# CPU\r\nused_cpu_sys:1.0\r\n"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
