package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.server.CommandTap;
import io.echomq.testkit.Garbage;
import io.echomq.testkit.NameCases;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Command lines, judged by an oracle before they run.
 *
 * <ul>
 *   <li>{@code lock acquire}, {@code queue enqueue} and {@code queue remove} with names from {@link NameCases} and
 *       numbers at and around every documented range: the command must exit 2 with one clear line on stderr and
 *       nothing sent to Redis (MONITOR proves it) if and only if the oracle finds an argument invalid, and otherwise
 *       give the answer it documents (acquire 0, enqueue 0, remove of a missing job from a stored queue 1).</li>
 *   <li>Garbage command lines (every subcommand, hostile positionals, options with hostile values, unknown options)
 *       whose validity no oracle settles: they exit 0, 1, 2, 5, 6 or 10 (5 and 6: a
 *       release or renew that happened to be valid, whose lease is gone; 10: a destructive command that no terminal
 *       confirmed), never 3 or 4 and never with a stack trace, and exit 2 only with one line on stderr and nothing
 *       sent, or, for a valid command on a queue that is not stored, only the reads that found it missing.</li>
 * </ul>
 * Names that begin with '-' or '@' are left out of the judged cases: the command line reads those as options and
 * argument files before any name rule applies.
 */
@Timeout(180)
class CliBadInputTest {
    /** Garbage command lines, whose validity no oracle settles. */
    private static final int CASES = 60;
    /** Judged cases per command, besides the listed boundaries. */
    private static final int JUDGED = 30;
    /** Numbers as typed, and whether each is a decimal long (picocli's reading of a number option). */
    private static final List<String> NUMBERS = List.of("0", "1", "-1", "20", "1000", "1001", "-1000", "-1001",
            "86400000", "86400001", "31536000000", "31536000001", "9223372036854775807", "99999999999999999999",
            "abc", "", "1.5", "1e3", "NaN");
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

    /** The commands a run may send that found its queue missing: the connection's handshake and the reads. */
    private static final Set<String> LOOKUP = Set.of("HELLO", "AUTH", "CLIENT", "PING", "INFO", "SELECT", "EXISTS",
        "SCAN");

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
        }).distinct();
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

    /** One judged command line and what the oracle expects of it. */
    record Judged(List<String> args, boolean valid, int validCode) {
        @Override
        public String toString() {
            return args.stream().map(Garbage::show).toList().toString();
        }
    }

    private static Long number(String typed) {
        try {
            return Long.parseLong(typed);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static boolean inRange(String typed, long min, long max) {
        Long n = number(typed);
        return n != null && n >= min && n <= max;
    }

    private static List<String> names(int maxBytes) {
        return NameCases.stratified(JUDGED, maxBytes).stream()
                .filter(n -> !n.startsWith("-") && !n.startsWith("@")).toList();
    }

    static Stream<Judged> judged() {
        List<Judged> out = new ArrayList<>();
        for (String r : names(NameCases.MAX_NAME_BYTES)) {
            out.add(new Judged(List.of("lock", "acquire", r, "--ttl", "30000"), NameCases.resourceValid(r), 0));
        }
        for (String t : NUMBERS) {
            out.add(new Judged(List.of("lock", "acquire", "r", "--ttl", t), inRange(t, 1, 86_400_000), 0));
            out.add(new Judged(List.of("lock", "acquire", "r", "--ttl", "1000", "--wait", t),
                    inRange(t, 0, Long.MAX_VALUE), 0));
        }
        for (String q : names(NameCases.MAX_QUEUE_BYTES)) {
            out.add(new Judged(List.of("queue", "enqueue", q, "x"), NameCases.userQueueValid(q), 0));
        }
        for (String n : NUMBERS) {
            out.add(new Judged(List.of("queue", "enqueue", "q", "x", "--priority", n), inRange(n, -1000, 1000), 0));
            out.add(new Judged(List.of("queue", "enqueue", "q", "x", "--delay", n),
                    inRange(n, 0, QueueEnqueueCommand.MAX_DELAY_MS), 0));
        }
        for (String id : names(NameCases.MAX_NAME_BYTES)) {
            out.add(new Judged(List.of("queue", "remove", "q", id), NameCases.jobIdValid(id), ExitCodes.NO));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("judged")
    void aCommandExitsTwoWithNothingSentIfAndOnlyIfAnArgumentIsInvalid(Judged c) {
        if (c.args().get(0).equals("queue") && !c.args().get(1).equals("enqueue")) {
            // a stored queue, so that a valid command gives its own answer rather than "no such queue"
            assertThat(EmqRun.at(REDIS.url(), "queue", "timeout", "q", "60000", "--create").code()).isZero();
        }
        String marker = "cli-marker-" + System.nanoTime();
        REDIS.raw().call("PING", marker + "-before");
        assertThat(tap.awaitCommand(cmd -> cmd.contains(marker + "-before"), Duration.ofSeconds(10))).isTrue();
        tap.clear();

        EmqRun run = EmqRun.at(REDIS.url(), c.args().toArray(String[]::new));

        REDIS.raw().call("PING", marker);
        assertThat(tap.awaitCommand(cmd -> cmd.contains(marker), Duration.ofSeconds(10))).isTrue();
        List<List<String>> sent = tap.commands().stream().takeWhile(cmd -> !cmd.contains(marker)).toList();
        assertThat(run.err()).as("no stack trace for %s", c).doesNotContain("\tat ");
        if (c.valid()) {
            assertThat(run.code()).as("exit code of the valid %s: %s", c, run).isEqualTo(c.validCode());
            assertThat(sent).as("commands for %s", c).isNotEmpty();
        } else {
            assertThat(run.code()).as("exit code of the invalid %s: %s", c, run).isEqualTo(ExitCodes.BAD_INPUT);
            assertThat(run.err().strip()).as("one clear line for %s", c).isNotBlank().doesNotContain("\n");
            assertThat(sent).as("nothing sent to Redis for %s", c).isEmpty();
        }
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
                ExitCodes.NOT_OWNER, ExitCodes.EXPIRED, ExitCodes.NOT_CONFIRMED);
        assertThat(run.err()).as("no stack trace for %s", shown).doesNotContain("\tat ");
        if (run.code() == ExitCodes.BAD_INPUT) {
            assertThat(run.err()).as("one clear line for %s", shown).isNotBlank().endsWith("\n");
            assertThat(run.err().strip()).doesNotContain("\n");
            if (run.err().contains(": no such queue '")) {
                assertThat(sent).as("only the lookup sent to Redis for %s", shown)
                        .allSatisfy(cmd -> assertThat(LOOKUP).contains(cmd.get(0).toUpperCase(Locale.ROOT)));
            } else {
                assertThat(sent).as("nothing sent to Redis for %s", shown).isEmpty();
            }
        }
        if (run.code() == ExitCodes.NOT_CONFIRMED) {
            assertThat(run.err()).as("why, for %s", shown).contains("nothing was changed");
        }
    }
}
