package io.echomq.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The single-server connection and its MONITOR tap; the cluster's routing is RedisClusterTest's. It starts its
 * own standalone server (this module cannot use the test kit's extension, which depends on it), so it runs the
 * same in every CI pass, cluster passes included.
 */
class RawRedisTest {

    private static RedisServer server;
    private static RawRedis raw;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        raw = RawRedis.connect(server.host(), server.port());
    }

    @AfterAll
    static void stop() {
        if (raw != null) {
            raw.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void flush() {
        raw.call("FLUSHALL");
    }

    @Test
    void roundTripsRepliesOfEveryType() {
        assertThat(raw.call("SET", "k", "héllo wörld")).isEqualTo("OK");
        assertThat(raw.call("GET", "k")).isEqualTo("héllo wörld");
        assertThat(raw.call("INCR", "n")).isEqualTo(1L);
        assertThat(raw.call("INCRBY", "n", "41")).isEqualTo(42L);
        assertThat(raw.call("GET", "missing")).isNull();
        assertThat(raw.call("RPUSH", "l", "a", "", "c")).isEqualTo(3L);
        assertThat(raw.call("LRANGE", "l", "0", "-1")).isEqualTo(List.of("a", "", "c"));
        assertThat(raw.call("MGET", "k", "missing")).isEqualTo(java.util.Arrays.asList("héllo wörld", null));
        assertThat(raw.call("EVAL", "return {1, 'x', {2}}", "0")).isEqualTo(List.of(1L, "x", List.of(2L)));
    }

    @Test
    void errorRepliesAreThrownAndTheConnectionStaysUsable() {
        raw.call("SET", "k", "v");
        assertThatThrownBy(() -> raw.call("INCR", "k"))
                .isInstanceOf(RawRedis.ErrorReply.class)
                .hasMessageStartingWith("ERR ");
        assertThatThrownBy(() -> raw.call("NOSUCHCOMMAND"))
                .isInstanceOf(RawRedis.ErrorReply.class)
                .hasMessageContaining("unknown command");
        assertThat(raw.call("PING")).isEqualTo("PONG");
    }

    @Test
    void monitorCapturesExactArguments() {
        String tricky = "a b \"quoted\" back\\slash\ttab\nnewline é";
        try (CommandTap tap = raw.monitor();
             RawRedis other = RawRedis.connect(server.host(), server.port())) {
            other.call("SET", "key 1", tricky);
            other.call("GET", "");
            assertThat(tap.awaitCommand(c -> c.equals(List.of("GET", "")), Duration.ofSeconds(10))).isTrue();
            assertThat(tap.commands()).contains(List.of("SET", "key 1", tricky));

            tap.clear();
            assertThat(tap.commands()).isEmpty();
            other.call("DEL", "key 1");
            assertThat(tap.awaitCommand(c -> c.get(0).equals("DEL"), Duration.ofSeconds(10))).isTrue();
            assertThat(tap.commands()).containsExactly(List.of("DEL", "key 1"));
        }
    }

    @Test
    void parsesMonitorLines() {
        assertThat(CommandTap.parse("1700000000.123456 [0 127.0.0.1:5555] \"SET\" \"k\" \"v\""))
                .containsExactly("SET", "k", "v");
        assertThat(CommandTap.parse("1700000000.123456 [0 lua] \"GET\" \"a\\\"b\\\\c\\x00\\xc3\\xa9\\r\\n\""))
                .containsExactly("GET", "a\"b\\c\u0000é\r\n");
        assertThat(CommandTap.parse("1700000000.123456 [3 unix:/tmp/redis.sock] \"PING\""))
                .containsExactly("PING");
    }
}
