package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.server.RawRedis;
import io.echomq.testkit.RedisExtension;
import io.echomq.testkit.TestCertificates;
import io.echomq.server.TlsRedisServer;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The CLI with a password and with TLS: the password in {@code --redis} or {@code EMQ_REDIS_URL}
 * is used but never printed (help, errors, worker banners, misplaced arguments), a token is
 * printed only where the user asked for it, and {@code --redis rediss://… --redis-ca PEM} works
 * against a TLS-only server.
 */
@Timeout(120)
class CliSecurityTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private final String password = "pw-" + HexFormat.of().formatHex(new SecureRandom().generateSeed(12));
    private String url;

    @BeforeEach
    void requirePassword() {
        REDIS.flushAll();
        REDIS.raw().call("CONFIG", "SET", "requirepass", password);
        url = "redis://:" + password + "@127.0.0.1:" + REDIS.server().port();
    }

    @AfterEach
    void noPassword() {
        REDIS.raw().call("CONFIG", "SET", "requirepass", "");
    }

    @Test
    void thePasswordFromTheEnvironmentIsUsedButTheHelpHidesIt() {
        EmqRun help = EmqRun.at(url, "lock", "inspect", "--help");
        assertThat(help.out().replaceAll("\\s+", "")).contains("(now:redis://***@127.0.0.1:" + REDIS.server().port() + ")")
                .doesNotContain(password);

        EmqRun acquire = EmqRun.at(url, "lock", "acquire", "orders", "--ttl", "30000");
        assertThat(acquire.code()).as("%s", acquire).isZero();
        assertThat(acquire.out()).matches("OK token=" + LockCommandsTest.TOKEN + " fence=[1-9][0-9]{15}\n");
        assertThat(acquire.toString()).doesNotContain(password);
    }

    @Test
    void tokensArePrintedOnlyWhereAskedFor() {
        EmqRun acquire = EmqRun.at(url, "lock", "acquire", "orders", "--ttl", "30000");
        Matcher m = Pattern.compile("token=(\\S+)").matcher(acquire.out());
        assertThat(m.find()).isTrue();
        String token = m.group(1);
        assertThat(EmqRun.at(url, "lock", "inspect", "orders").out()).doesNotContain(token);
        assertThat(EmqRun.at(url, "lock", "inspect", "orders", "--show-token").out()).contains("token=" + token);

        for (EmqRun run : new EmqRun[] {
            EmqRun.at(url, "lock", "renew", "orders", token, "--ttl", "20000"),
            EmqRun.at(url, "lock", "renew", "orders", token, "--ttl", "abc"),
            EmqRun.at(url, "lock", "release", "or}ders", token),
            EmqRun.at(url, "lock", "release", "orders", token),
            EmqRun.at(url, "lock", "release", "orders", token)}) {
            assertThat(run.toString()).as("%s", run).doesNotContain(token).doesNotContain(password);
        }
    }

    @Test
    void failuresNeverEchoThePassword() {
        int port = REDIS.server().port();
        EmqRun wrong = EmqRun.at("redis://:" + password + "x@127.0.0.1:" + port, "lock", "inspect", "orders");
        assertThat(wrong.code()).isEqualTo(ExitCodes.REDIS_FAILURE);
        assertThat(wrong.err()).contains("redis://***@127.0.0.1").doesNotContain(password);

        EmqRun none = EmqRun.run(Map.of(), "lock", "inspect", "orders", "--redis", "redis://127.0.0.1:" + port);
        assertThat(none.code()).isEqualTo(ExitCodes.REDIS_FAILURE);
        assertThat(none.err()).contains("needs a password: redis://:PASSWORD@127.0.0.1:" + port);

        String refusedUrl = "redis://:" + password + "@127.0.0.1:" + EmqRun.closedPort();
        EmqRun refused = EmqRun.run(Map.of(), "queue", "stats", "q", "--redis", refusedUrl);
        assertThat(refused.code()).isEqualTo(ExitCodes.REDIS_FAILURE);
        assertThat(refused.toString()).doesNotContain(password);

        EmqRun malformed = EmqRun.run(Map.of(), "lock", "inspect", "orders", "--redis",
                "redis://:" + password + "@127.0.0.1:99999");
        assertThat(malformed.code()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(malformed.toString()).doesNotContain(password);

        // a URL given where a value was expected: picocli echoes the argument, with its user-info hidden
        EmqRun misplaced = EmqRun.run(Map.of(), "lock", "inspect", "orders", url);
        assertThat(misplaced.code()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(misplaced.err()).contains("redis://***@").doesNotContain(password);
    }

    @Test
    void theWorkerBannerAndSummaryHideThePassword() {
        EmqRun.at(url, "queue", "enqueue", "q", "payload");
        EmqRun worker = EmqRun.at(url, "worker", "q", "--exec", "cat > /dev/null", "--exit-when-idle");
        assertThat(worker.code()).as("%s", worker).isZero();
        // the server as it names itself in INFO server: "Redis 7.0.15" or "Valkey 8.0.1"
        assertThat(worker.err()).contains("server " + REDIS.server().product() + " " + REDIS.server().version() + " (");
        assertThat(worker.toString()).doesNotContain(password);
    }

    @Test
    void rediss_withTheCaFromRedisCa() {
        REDIS.raw().call("CONFIG", "SET", "requirepass", "");
        TestCertificates certs = TestCertificates.generate("CLI test CA");
        try (TlsRedisServer tls = TlsRedisServer.start(certs)) {
            String ca = certs.ca().toString();
            EmqRun ok = EmqRun.run(Map.of(), "lock", "acquire", "tls-lock", "--ttl", "30000",
                    "--redis", tls.url(), "--redis-ca", ca);
            assertThat(ok.code()).as("%s", ok).isZero();
            assertThat(ok.out()).startsWith("OK token=");
            EmqRun stats = EmqRun.run(Map.of(RedisOptions.ENV, tls.url()), "queue", "pause", "q", "--create",
                    "--redis-ca", ca);
            assertThat(stats.code()).as("%s", stats).isZero();

            EmqRun untrusted = EmqRun.run(Map.of(), "lock", "inspect", "tls-lock", "--redis", tls.url());
            assertThat(untrusted.code()).isEqualTo(ExitCodes.REDIS_FAILURE);

            EmqRun plain = EmqRun.run(Map.of(), "lock", "inspect", "tls-lock", "--redis",
                    "redis://127.0.0.1:" + tls.port(), "--redis-ca", ca);
            assertThat(plain.code()).isEqualTo(ExitCodes.BAD_INPUT);
            assertThat(plain.err()).contains("not rediss://");
        } finally {
            certs.delete();
        }
        try (RawRedis check = RawRedis.connect("127.0.0.1", REDIS.server().port())) {
            assertThat(check.call("PING")).isEqualTo("PONG");
        }
    }
}
