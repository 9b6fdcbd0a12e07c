package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.server.CommandTap;
import io.echomq.testkit.Garbage;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Garbage command lines, generated: every subcommand with hostile positional values and options
 * given hostile values (non-numbers, out-of-range numbers, empty strings, braces, colons, control
 * characters, malformed URLs and CA files). Each run exits 0, 1, 5 or 6 (it happened to be a
 * valid command: 5 and 6 are a release or renew whose lease is gone) or 2 with one clear line
 * on stderr and nothing sent to Redis (MONITOR proves it). Never 3 or 4, and never a stack trace.
 */
@Timeout(180)
class CliBadInputTest {
    private static final int CASES = 200;
    private static final String[][] COMMANDS = {
        {"lock", "acquire"}, {"lock", "release"}, {"lock", "renew"}, {"lock", "inspect"}, {"lock"},
        {"queue", "enqueue"}, {"queue", "stats"}, {"queue", "reap"}, {"queue", "remove"}, {"queue", "dead"},
        {"queue", "inspect"}, {"queue"}, {"worker"}, {},
    };
    private static final String[] OPTIONS = {"--ttl", "--wait", "--delay", "--priority", "--max-attempts", "--key",
        "--key-window", "--limit", "--concurrency", "--lease", "--grace", "--redis", "--redis-ca", "--nope", "-x",
        "--force", "--plain", "--retry", "--purge", "--exit-when-idle"};

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

    @BeforeEach
    void flush() {
        REDIS.flushAll();
    }

    static Stream<List<String>> commandLines() {
        return Garbage.cases(CASES, g -> {
            List<String> args = new ArrayList<>(List.of(g.oneOf(COMMANDS)));
            int words = g.between(0, 4);
            for (int i = 0; i < words; i++) {
                if (g.chance(0.5)) {
                    args.add(g.chance(0.3) ? g.oneOf("orders", "q", "1", "-") : g.string());
                } else {
                    args.add(g.oneOf(OPTIONS));
                    if (g.chance(0.85)) {
                        args.add(value(g));
                    }
                }
            }
            return args;
        });
    }

    private static String value(Garbage g) {
        return switch (g.between(0, 4)) {
            case 0 -> Long.toString(g.around(0, 1, -1, 1000, 86_400_000, 86_400_001, Integer.MAX_VALUE, Long.MAX_VALUE));
            case 1 -> g.oneOf("abc", "", " ", "1e3", "0x10", "99999999999999999999", "-0", "1.5", "NaN");
            case 2 -> g.oneOf("http://127.0.0.1:1", "redis://:99999", "redis://host:abc", "not a url",
                    "redis://:secret@[::1", "/no/such/ca.pem");
            default -> g.string();
        };
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("commandLines")
    void garbageGetsExitTwoAndOneClearLineWithNothingSent(List<String> args) {
        String shown = args.stream().map(Garbage::show).toList().toString();
        String marker = "cli-marker-" + System.nanoTime();
        REDIS.raw().call("PING", marker + "-before");
        assertThat(tap.awaitCommand(c -> c.contains(marker + "-before"), Duration.ofSeconds(10))).isTrue();
        tap.clear();

        EmqRun run = EmqRun.at(REDIS.url(), args.toArray(String[]::new));

        REDIS.raw().call("PING", marker);
        assertThat(tap.awaitCommand(c -> c.contains(marker), Duration.ofSeconds(10))).isTrue();
        List<List<String>> sent = tap.commands().stream().takeWhile(c -> !c.contains(marker)).toList();
        assertThat(run.code()).as("exit code of %s: %s", shown, run).isIn(ExitCodes.OK, ExitCodes.NO, ExitCodes.BAD_INPUT,
                ExitCodes.NOT_OWNER, ExitCodes.EXPIRED);
        assertThat(run.err()).as("no stack trace for %s", shown).doesNotContain("\tat ");
        if (run.code() == ExitCodes.BAD_INPUT) {
            assertThat(run.err()).as("one clear line for %s", shown).isNotBlank().endsWith("\n");
            assertThat(run.err().strip()).doesNotContain("\n");
            assertThat(sent).as("nothing sent to Redis for %s", shown).isEmpty();
        }
    }
}
