package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.lock.LockClient;
import io.echomq.queue.QueueClient;
import io.echomq.testkit.Garbage;
import io.lettuce.core.RedisURI;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed Redis URLs, generated: hostile schemes, user-info, hosts, ports and paths, and plain
 * garbage. Each is refused by {@link RedisUrls#parse} and by both client builders, when the setting
 * is given and before anything connects, with an {@link IllegalArgumentException} that names the
 * URL problem and never echoes the password; or it is accepted as a URL with a host and a port in
 * 1..65535 (or a socket path).
 */
class RedisUrlPropertyTest {
    private static final int CASES = 400;

    static Stream<Arguments> urls() {
        return Garbage.cases(CASES, g -> {
            String password = "pw" + g.plain(10);
            String scheme = g.oneOf("redis://", "rediss://", "REDIS://", "http://", "redis:/", "redis:", "", "redis-socket://",
                    "redis+sentinel://", "unix://");
            String user = g.oneOf("", "", "user:" + password + "@", ":" + password + "@", "user@", password + "@",
                    ":" + password + "@:", "a:b:" + password + "@", "@");
            String host = g.oneOf("127.0.0.1", "localhost", "", "[::1]", "[::1", "::1", "h st", "host}", g.string(),
                    "2001:db8::1", "[2001:db8::1]");
            String port = g.oneOf("", ":" + g.around(0, 1, 6379, 65535, 65536, -1, Integer.MAX_VALUE), ":abc", ":",
                    ":6379:6380", ":" + g.string());
            String rest = g.oneOf("", "", "/0", "/15", "/abc", "/-1", "?timeout=5s", "#x", "/" + g.string());
            String url = g.chance(0.1) ? g.string() : scheme + user + host + port + rest;
            return Arguments.of(url, password);
        });
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("urls")
    void aUrlIsRefusedClearlyWithoutItsPasswordOrAcceptedWithAHostAndPort(String url, String password) {
        String shown = Garbage.show(url);
        RedisURI uri;
        try {
            uri = RedisUrls.parse(url);
        } catch (IllegalArgumentException refused) {
            assertThat(refused.getMessage()).as(shown).contains("Redis URL").doesNotContain(password);
            assertThatThrownBy(() -> LockClient.builder().redisUrl(url)).isInstanceOf(IllegalArgumentException.class)
                    .message().doesNotContain(password);
            assertThatThrownBy(() -> QueueClient.builder().redisUrl(url)).isInstanceOf(IllegalArgumentException.class)
                    .message().doesNotContain(password);
            return;
        }
        if (uri.getSocket() == null) {
            assertThat(uri.getHost()).as("host of %s", shown).isNotBlank();
            assertThat(uri.getPort()).as("port of %s", shown).isBetween(1, 65535);
        }
        assertThat(RedisUrls.redact(url)).doesNotContain(password);
        LockClient.builder().redisUrl(url);
        QueueClient.builder().redisUrl(url);
    }
}
