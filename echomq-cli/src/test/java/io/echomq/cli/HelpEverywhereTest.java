package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.server.CommandTap;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * {@code -h} is help on every command and subcommand, found by walking picocli's own command
 * model, so a command added later is covered without editing this test: exit code 0, the usage on
 * stdout, nothing on stderr, and nothing sent to Redis (MONITOR proves it), even when {@code -h}
 * comes before other arguments that would otherwise name a lock or a queue.
 */
class HelpEverywhereTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static CommandTap tap;

    @BeforeAll
    static void monitor() {
        tap = REDIS.raw().monitor();
    }

    @AfterAll
    static void close() {
        tap.close();
    }

    /** @return the path of every command in the tree, e.g. [], [lock], [lock, acquire] */
    static Stream<List<String>> commands() {
        List<List<String>> all = new ArrayList<>();
        walk(Emq.commandLine(Map.of()), new ArrayList<>(), all);
        return all.stream();
    }

    private static void walk(CommandLine cmd, List<String> path, List<List<String>> all) {
        all.add(List.copyOf(path));
        cmd.getSubcommands().forEach((name, sub) -> {
            path.add(name);
            walk(sub, path, all);
            path.remove(path.size() - 1);
        });
    }

    @Test
    void theTreeHasEveryCommandWeKnowOf() {
        assertThat(commands().map(p -> String.join(" ", p)).toList())
                .contains("lock acquire", "lock release", "lock renew", "lock inspect", "queue enqueue",
                        "queue stats", "worker", "server", "demo");
    }

    @ParameterizedTest(name = "emq {0} -h")
    @MethodSource("commands")
    void dashHIsHelp(List<String> path) {
        assertHelp(path, List.of("-h"));
        assertHelp(path, List.of("--help"));
        // before what would be a resource or a queue name, and an option with a value
        assertHelp(path, List.of("-h", "orders", "--ttl", "1000"));
        assertHelp(path, List.of("orders", "-h"));
    }

    private static void assertHelp(List<String> path, List<String> rest) {
        List<String> args = new ArrayList<>(path);
        args.addAll(rest);
        String marker = "help-marker-" + System.nanoTime();
        tap.clear();

        EmqRun run = EmqRun.at(REDIS.url(), args.toArray(String[]::new));

        REDIS.raw().call("PING", marker);
        assertThat(tap.awaitCommand(c -> c.contains(marker), Duration.ofSeconds(10))).isTrue();
        List<List<String>> sent = tap.commands().stream().takeWhile(c -> !c.contains(marker)).toList();
        assertThat(run.code()).as("exit code of emq %s: %s", args, run).isZero();
        assertThat(run.out()).as("usage of emq %s", args).startsWith("Usage: emq");
        assertThat(run.out()).contains("Exit codes:");
        assertThat(run.err()).as("stderr of emq %s", args).isEmpty();
        assertThat(sent).as("nothing sent to Redis by emq %s", args).isEmpty();
    }

    @Test
    void topLevelHelpHasTheWholeTableAndEachCommandOnlyItsOwnCodes() {
        String top = EmqRun.run(Map.of(), "--help").out();
        for (int code = 0; code <= 7; code++) {
            assertThat(top).contains("\n  " + code + "  ");
        }
        String release = EmqRun.run(Map.of(), "lock", "release", "-h").out();
        assertThat(release).contains("  0  RELEASED", "  5  NOT_OWNER", "  6  EXPIRED", "  2  bad input", "  3  Redis")
                .doesNotContain("  1  ", "  7  ");
        String acquire = EmqRun.run(Map.of(), "lock", "acquire", "-h").out();
        assertThat(acquire).contains("  1  the lock is held").doesNotContain("  5  ", "  6  ", "  7  ");
        String group = EmqRun.run(Map.of(), "lock", "-h").out();
        assertThat(group).contains("  0  the help was printed", "  2  no subcommand").doesNotContain("  3  ");
        EmqRun bare = EmqRun.run(Map.of(), "lock");
        assertThat(bare.code()).isEqualTo(ExitCodes.BAD_INPUT);
        String stats = EmqRun.run(Map.of(), "queue", "stats", "-h").out();
        assertThat(stats).doesNotContain("  1  ", "  5  ", "  6  ", "  7  ");
    }

    @Test
    void aTokenThatMerelyStartsWithDashHIsStillAValueAndALoneDashHGoesAfterDoubleDash() {
        REDIS.raw().call("SET", "emq:lock:{orders}:lock", "-h3kQ", "PX", "30000");
        assertThat(EmqRun.at(REDIS.url(), "lock", "renew", "orders", "-h3kQ", "--ttl", "60000").out())
                .isEqualTo("RENEWED\n");
        assertThat(EmqRun.at(REDIS.url(), "lock", "release", "orders", "-h3kQ").out()).isEqualTo("RELEASED\n");

        REDIS.raw().call("SET", "emq:lock:{orders}:lock", "-h", "PX", "30000");
        assertThat(EmqRun.at(REDIS.url(), "lock", "release", "orders", "--", "-h").out()).isEqualTo("RELEASED\n");
        assertThat(EmqRun.at(REDIS.url(), "queue", "enqueue", "q", "-hello").out()).isEqualTo("1\n");
    }
}
