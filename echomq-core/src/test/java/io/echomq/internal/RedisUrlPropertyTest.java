package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.lock.LockClient;
import io.echomq.queue.QueueClient;
import io.echomq.testkit.Garbage;
import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Redis URLs built from parts whose validity the documented grammar {@code redis[s]://[user:password@]host[:port][/db]}
 * settles: a URL is accepted if and only if every part is valid, and then it parses to exactly the host, port,
 * database, password and TLS it names. Each invalid part is tried alone (the others valid), then draws of which half
 * are valid. The scheme is lower case, as documented: Lettuce refuses {@code REDIS://}. Either way a refusal is an {@link IllegalArgumentException} from {@link RedisUrls#parse} and from both
 * client builders that names the URL problem and never echoes the password.
 *
 * <p>A further set of hostile strings whose validity the grammar does not settle (Lettuce decides the edge cases)
 * is checked only for that: no password in any message, and the parser and both builders agree.
 */
class RedisUrlPropertyTest {
    private static final String PASSWORD = "pw-s3cret-42";
    private static final Map<String, Boolean> SCHEMES = parts("redis://", true, "rediss://", true, "REDIS://", false,
            "Rediss://", false, "http://", false, "redis:/", false, "redis:", false, "", false, "redis+sentinel://",
            false, "unix://", false);
    private static final Map<String, Boolean> USERS = parts("", true, "user:" + PASSWORD + "@", true,
            ":" + PASSWORD + "@", true);
    private static final Map<String, Boolean> HOSTS = parts("127.0.0.1", true, "localhost", true, "[::1]", true,
            "[2001:db8::1]", true, "redis.internal", true, "h-1", true, "", false, "[::1", false, " ", false);
    private static final Map<String, Boolean> PORTS = parts("", true, ":1", true, ":6379", true, ":65535", true,
            ":0", false, ":65536", false, ":-1", false, ":abc", false, ":", false, ":99999999999", false, ":1e3",
            false);
    private static final Map<String, Boolean> PATHS = parts("", true, "/0", true, "/15", true, "/", true);

    /** One URL and the parts it was built from. */
    record Url(String scheme, String user, String host, String port, String path) {
        String text() {
            return scheme + user + host + port + path;
        }

        boolean valid() {
            return SCHEMES.get(scheme) && USERS.get(user) && HOSTS.get(host) && PORTS.get(port) && PATHS.get(path);
        }

        @Override
        public String toString() {
            return Garbage.show(text());
        }
    }

    static Stream<Url> urls() {
        List<Url> out = new ArrayList<>();
        Url ok = new Url("redis://", "", "127.0.0.1", ":6379", "");
        SCHEMES.keySet().forEach(s -> out.add(new Url(s, ok.user(), ok.host(), ok.port(), ok.path())));
        USERS.keySet().forEach(u -> out.add(new Url(ok.scheme(), u, ok.host(), ok.port(), ok.path())));
        HOSTS.keySet().forEach(h -> out.add(new Url(ok.scheme(), ok.user(), h, ok.port(), ok.path())));
        PORTS.keySet().forEach(p -> out.add(new Url(ok.scheme(), ok.user(), ok.host(), p, ok.path())));
        PATHS.keySet().forEach(p -> out.add(new Url(ok.scheme(), ok.user(), ok.host(), ok.port(), p)));
        SplittableRandom r = new SplittableRandom(Garbage.seed());
        for (int i = 0; i < 60; i++) {
            Url drawn = new Url(pick(r, SCHEMES, true), pick(r, USERS, true), pick(r, HOSTS, true),
                    pick(r, PORTS, true), pick(r, PATHS, true));
            if (i % 2 == 1) {   // one part made invalid
                drawn = switch (r.nextInt(3)) {
                    case 0 -> new Url(pick(r, SCHEMES, false), drawn.user(), drawn.host(), drawn.port(), drawn.path());
                    case 1 -> new Url(drawn.scheme(), drawn.user(), pick(r, HOSTS, false), drawn.port(), drawn.path());
                    default -> new Url(drawn.scheme(), drawn.user(), drawn.host(), pick(r, PORTS, false), drawn.path());
                };
            }
            if (!out.contains(drawn)) {
                out.add(drawn);
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("urls")
    void aUrlIsAcceptedIfAndOnlyIfEveryPartIsValidAndThenParsesToWhatItNames(Url url) {
        String text = url.text();
        if (!url.valid()) {
            assertRefusedWithoutPassword(text);
            return;
        }
        RedisURI uri = RedisUrls.parse(text);
        assertThat(uri.getHost()).as("host of %s (an IPv6 host keeps its brackets)", url).isEqualTo(url.host());
        assertThat(uri.getPort()).as("port of %s", url)
                .isEqualTo(url.port().isEmpty() ? 6379 : Integer.parseInt(url.port().substring(1)));
        assertThat(uri.getDatabase()).as("database of %s", url)
                .isEqualTo(url.path().length() > 1 ? Integer.parseInt(url.path().substring(1)) : 0);
        assertThat(uri.isSsl()).as("TLS of %s", url).isEqualTo(url.scheme().toLowerCase().startsWith("rediss"));
        io.lettuce.core.RedisCredentials credentials = uri.getCredentialsProvider().resolveCredentials().block();
        assertThat(credentials == null || !credentials.hasPassword() ? "" : new String(credentials.getPassword()))
                .as("password of %s", url)
                .isEqualTo(url.user().isEmpty() ? "" : PASSWORD);
        assertThat(RedisUrls.redact(text)).doesNotContain(PASSWORD);
        LockClient.builder().redisUrl(text);
        QueueClient.builder().redisUrl(text);
    }

    static Stream<Arguments> hostile() {
        return Garbage.cases(40, g -> {
            String url = g.oneOf("redis://", "rediss://", "") + g.oneOf("", "a:b:" + PASSWORD + "@", PASSWORD + "@",
                    "@", ":" + PASSWORD + "@:") + g.string() + g.oneOf("", ":" + g.string(), "/" + g.string());
            return Arguments.of(url);
        }).distinct();
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("hostile")
    void aHostileUrlNeverLeaksItsPasswordAndParserAndBuildersAgree(String url) {
        boolean parsed;
        try {
            RedisUrls.parse(url);
            parsed = true;
        } catch (IllegalArgumentException refused) {
            parsed = false;
            assertRefusedWithoutPassword(url);
        }
        assertThat(RedisUrls.redact(url)).doesNotContain(PASSWORD);
        if (parsed) {
            LockClient.builder().redisUrl(url);
            QueueClient.builder().redisUrl(url);
        }
    }

    private static void assertRefusedWithoutPassword(String url) {
        String shown = Garbage.show(url);
        assertThatThrownBy(() -> RedisUrls.parse(url)).as("refuse %s", shown)
                .isInstanceOf(IllegalArgumentException.class).message().contains("Redis URL")
                .doesNotContain(PASSWORD);
        assertThatThrownBy(() -> LockClient.builder().redisUrl(url)).isInstanceOf(IllegalArgumentException.class)
                .message().doesNotContain(PASSWORD);
        assertThatThrownBy(() -> QueueClient.builder().redisUrl(url)).isInstanceOf(IllegalArgumentException.class)
                .message().doesNotContain(PASSWORD);
    }

    private static String pick(SplittableRandom r, Map<String, Boolean> parts, boolean valid) {
        List<String> of = parts.entrySet().stream().filter(e -> e.getValue() == valid).map(Map.Entry::getKey).toList();
        return of.get(r.nextInt(of.size()));
    }

    private static Map<String, Boolean> parts(Object... kv) {
        Map<String, Boolean> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], (Boolean) kv[i + 1]);
        }
        return m;
    }
}
