package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Bad input exits 2 and an unreachable Redis exits 3, each with one clear line on stderr. */
class FailuresTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    static Stream<Arguments> badInput() {
        return Stream.of(
                Arguments.of(new String[] {"lock", "acquire", "r", "--ttl", "0"},
                        "emq lock acquire: Invalid value for option '--ttl': 0 is not a ttl; give 1..86400000 "
                                + "milliseconds (see 'emq lock acquire --help')"),
                Arguments.of(new String[] {"lock", "acquire", "r", "--ttl", "-5"},
                        "emq lock acquire: Invalid value for option '--ttl': -5 is not a ttl; give 1..86400000 "
                                + "milliseconds (see 'emq lock acquire --help')"),
                Arguments.of(new String[] {"lock", "acquire", "r", "--ttl", "abc"},
                        "emq lock acquire: Invalid value for option '--ttl': 'abc' is not a long "
                                + "(see 'emq lock acquire --help')"),
                Arguments.of(new String[] {"lock", "acquire", "r", "--ttl", "86400001"},
                        "emq lock acquire: Invalid value for option '--ttl': 86400001 is not a ttl; give "
                                + "1..86400000 milliseconds (see 'emq lock acquire --help')"),
                Arguments.of(new String[] {"lock", "acquire", "", "--ttl", "1000"},
                        "emq lock acquire: <resource> must not be empty (see 'emq lock acquire --help')"),
                Arguments.of(new String[] {"lock", "acquire", "r"},
                        "emq lock acquire: Missing required option: '--ttl=<ms>' (see 'emq lock acquire --help')"),
                Arguments.of(new String[] {"lock", "acquire", "r", "--ttl", "1000", "--wait", "-1"},
                        "emq lock acquire: Invalid value for option '--wait': -1 is negative; give 0 or more "
                                + "milliseconds (see 'emq lock acquire --help')"),
                Arguments.of(new String[] {"lock", "acquire", "r", "--ttl", "1000", "--redis", "redis://:99999"},
                        "emq lock acquire: Malformed Redis URL 'redis://:99999': no host; expected "
                                + "redis://[user:password@]host[:port][/db]"),
                Arguments.of(new String[] {"lock", "acquire", "r", "--ttl", "1000", "--redis", "http://x"},
                        "emq lock acquire: Malformed Redis URL 'http://x': the scheme must be redis://, rediss:// "
                                + "or redis-socket://"),
                Arguments.of(new String[] {"lock", "acquire", "r", "--ttl", "1000", "--redis", "redis://h:99999"},
                        "emq lock acquire: Malformed Redis URL 'redis://h:99999': port 99999 is outside 1..65535; "
                                + "expected redis://[user:password@]host[:port][/db]"),
                Arguments.of(new String[] {"lock", "release", "r", ""},
                        "emq lock release: <token> must not be empty (see 'emq lock release --help')"),
                Arguments.of(new String[] {"lock", "release", "r"},
                        "emq lock release: Missing required parameter: '<token>' (see 'emq lock release --help')"),
                Arguments.of(new String[] {"lock", "renew", "r", "t", "--ttl", "0"},
                        "emq lock renew: Invalid value for option '--ttl': 0 is not a ttl; give 1..86400000 "
                                + "milliseconds (see 'emq lock renew --help')"),
                Arguments.of(new String[] {"lock", "inspect", ""},
                        "emq lock inspect: <resource> must not be empty (see 'emq lock inspect --help')"),
                Arguments.of(new String[] {"lock", "inspect", "r", "--bogus"},
                        "emq lock inspect: Unknown option: '--bogus' (see 'emq lock inspect --help')"),
                Arguments.of(new String[] {"lock", "acquire", "r", "--ttl", "5", "--tll", "4"},
                        "emq lock acquire: Unknown options: '--tll', '4' "
                                + "(see 'emq lock acquire --help')"),
                Arguments.of(new String[] {"lock"},
                        "emq lock: Missing required subcommand (see 'emq lock --help')"),
                Arguments.of(new String[] {},
                        "emq: Missing required subcommand (see 'emq --help')"),
                Arguments.of(new String[] {"server", "--port", "99999"},
                        "emq server: Invalid value for option '--port': 99999 is outside 0..65535"),
                Arguments.of(new String[] {"server", "--port", "x"},
                        "emq server: Invalid value for option '--port': 'x' is not an int (see 'emq server --help')"),
                Arguments.of(new String[] {"demo", "--redis", "http://x"},
                        "emq demo: Malformed Redis URL 'http://x': the scheme must be redis://, rediss:// "
                                + "or redis-socket://"));
    }

    @ParameterizedTest
    @MethodSource("badInput")
    void badInputExitsTwoWithOneLine(String[] args, String message) {
        EmqRun run = EmqRun.at(REDIS.url(), args);

        assertThat(run.err()).isEqualTo(message + "\n");
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
    }

    @Test
    void badInputIsReportedBeforeRedisIsTouched() {
        String deadUrl = "redis://127.0.0.1:" + EmqRun.closedPort();

        EmqRun run = EmqRun.run(Map.of(), "lock", "acquire", "r", "--ttl", "0", "--redis", deadUrl);

        assertThat(run.code()).isEqualTo(2);
    }

    static Stream<Arguments> everyRedisCommand() {
        return Stream.of(
                new String[] {"lock", "acquire", "r", "--ttl", "1000"},
                new String[] {"lock", "acquire", "r", "--ttl", "1000", "--wait", "100"},
                new String[] {"lock", "release", "r", "t"},
                new String[] {"lock", "renew", "r", "t", "--ttl", "1000"},
                new String[] {"lock", "inspect", "r"}).map(args -> Arguments.of((Object) args));
    }

    @ParameterizedTest
    @MethodSource("everyRedisCommand")
    void unreachableRedisExitsThree(String[] args) {
        int port = EmqRun.closedPort();

        EmqRun run = EmqRun.at("redis://127.0.0.1:" + port, args);

        assertThat(run.code()).isEqualTo(3);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).startsWith("emq lock " + args[1] + ": cannot connect to 127.0.0.1:" + port)
                .contains("connection refused; is a server running? `./emq server` starts one")
                .endsWith("\n")
                .hasLineCount(1);
    }

    @Test
    void unreachableRedisFailsTheDemoWithThree() {
        int port = EmqRun.closedPort();

        EmqRun run = EmqRun.run(Map.of(), "demo", "--redis", "redis://127.0.0.1:" + port);

        assertThat(run.code()).isEqualTo(3);
        assertThat(run.err()).startsWith("emq demo: Redis CONNECT redis://127.0.0.1:" + port).hasLineCount(1);
    }

    @Test
    void everyUsageHelpListsTheExitCodes() {
        // the group "emq lock" never connects; HelpEverywhereTest checks its list
        for (String[] args : new String[][] {{"--help"}, {"lock", "acquire", "--help"},
            {"lock", "release", "--help"}, {"lock", "renew", "--help"}, {"lock", "inspect", "--help"},
            {"server", "--help"}, {"demo", "--help"}}) {
            EmqRun run = EmqRun.run(Map.of(), args);
            assertThat(run.code()).isZero();
            assertThat(run.out()).contains("Exit codes:", "  0  ", "  2  bad input", "  3  ", "  4  unexpected");
        }
    }
}
