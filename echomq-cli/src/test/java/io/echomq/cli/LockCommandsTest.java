package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code emq lock …} against a real server: exact outputs and exit codes. */
class LockCommandsTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    /** A token the CLI mints: the random part, the ttl and its holder label ({@code host:pid:emq}). */
    static final String TOKEN = "[0-9a-f]{32}\\+\\d+\\+[A-Za-z0-9._:@/-]+:" + ProcessHandle.current().pid() + ":emq";
    private static final Pattern GRANTED = Pattern.compile("OK token=(" + TOKEN + ") fence=(\\d+)\n");

    @BeforeEach
    void flush() {
        REDIS.flushAll();
    }

    private static EmqRun emq(String... args) {
        return EmqRun.at(REDIS.url(), args);
    }

    /** A fenced grant as printed: the token and the fence. */
    private record Granted(String token, long fence) {
    }

    /** @return the server's clock in microseconds ({@code TIME}), below a fresh resource's first fence */
    private static long micros() {
        java.util.List<?> t = (java.util.List<?>) REDIS.raw().call("TIME");
        return Long.parseLong(t.get(0).toString()) * 1_000_000L + Long.parseLong(t.get(1).toString());
    }

    /** The first grant of a fresh resource: its fence is the server's clock at the grant. */
    private static String acquire(String resource, long ttlMillis) {
        return acquire(resource, ttlMillis, micros() - 1).token();
    }

    /**
     * Acquires {@code resource} fenced, asserting that the printed fence is above {@code above} and
     * is exactly what the fence key holds.
     */
    private static Granted acquire(String resource, long ttlMillis, long above) {
        EmqRun run = emq("lock", "acquire", resource, "--ttl", Long.toString(ttlMillis));
        assertThat(run.err()).isEmpty();
        assertThat(run.code()).isZero();
        Matcher m = GRANTED.matcher(run.out());
        assertThat(m.matches()).as("output %s", run.out()).isTrue();
        long fence = Long.parseLong(m.group(2));
        assertThat(fence).isGreaterThan(above);
        assertThat(REDIS.raw().call("GET", "emq:lock:{" + resource + "}:fence")).isEqualTo(Long.toString(fence));
        return new Granted(m.group(1), fence);
    }

    @Test
    void acquirePrintsTokenAndFenceAndLeavesTheLeaseInPlace() {
        String token = acquire("orders", 30_000);

        assertThat(REDIS.raw().call("GET", "emq:lock:{orders}:lock")).isEqualTo(token);
        assertThat((Long) REDIS.raw().call("PTTL", "emq:lock:{orders}:lock")).isBetween(1L, 30_000L);
        assertThat((Long) REDIS.raw().call("PTTL", "emq:lock:{orders}:fence")).isBetween(1L, 30_000L);
    }

    @Test
    void fenceRisesWithEveryGrant() {
        Granted first = acquire("orders", 30_000, micros() - 1);
        assertThat(emq("lock", "release", "orders", first.token()).out()).isEqualTo("RELEASED\n");
        Granted second = acquire("orders", 30_000, first.fence());
        assertThat(emq("lock", "release", "orders", second.token()).out()).isEqualTo("RELEASED\n");
        acquire("orders", 30_000, second.fence());
        assertThat(second.token()).isNotEqualTo(first.token());
    }

    @Test
    void secondAcquirePrintsNilAndExitsOne() {
        Granted granted = acquire("orders", 30_000, micros() - 1);

        EmqRun again = emq("lock", "acquire", "orders", "--ttl", "30000");

        assertThat(again).isEqualTo(new EmqRun(1, "nil\n", ""));
        assertThat(REDIS.raw().call("GET", "emq:lock:{orders}:lock")).isEqualTo(granted.token());
        assertThat(REDIS.raw().call("GET", "emq:lock:{orders}:fence")).as("a refusal leaves the fence alone")
                .isEqualTo(Long.toString(granted.fence()));
    }

    @Test
    void plainAcquirePrintsFenceNoneAndTouchesNoFence() {
        EmqRun run = emq("lock", "acquire", "jobs", "--ttl", "30000", "--plain");

        assertThat(run.code()).isZero();
        assertThat(run.err()).isEmpty();
        assertThat(run.out()).matches("OK token=" + TOKEN + " fence=none\n");
        String token = run.out().substring("OK token=".length(), run.out().indexOf(" fence="));
        assertThat(REDIS.raw().call("GET", "emq:lock:{jobs}:lock")).isEqualTo(token);
        assertThat(REDIS.raw().call("EXISTS", "emq:lock:{jobs}:fence")).isEqualTo(0L);
        assertThat(emq("lock", "acquire", "jobs", "--ttl", "30000", "--plain")).isEqualTo(new EmqRun(1, "nil\n", ""));
    }

    @Test
    void releaseAnswersReleasedThenExpired() {
        String token = acquire("orders", 30_000);

        assertThat(emq("lock", "release", "orders", token)).isEqualTo(new EmqRun(0, "RELEASED\n", ""));
        assertThat(REDIS.raw().call("EXISTS", "emq:lock:{orders}:lock")).isEqualTo(0L);
        assertThat(emq("lock", "release", "orders", token)).isEqualTo(new EmqRun(ExitCodes.EXPIRED, "EXPIRED\n", ""));
    }

    @Test
    void releaseWithAnotherTokenIsNotOwnerAndKeepsTheLock() {
        String token = acquire("orders", 30_000);

        assertThat(emq("lock", "release", "orders", "someone-else")).isEqualTo(new EmqRun(ExitCodes.NOT_OWNER, "NOT_OWNER\n", ""));
        assertThat(REDIS.raw().call("GET", "emq:lock:{orders}:lock")).isEqualTo(token);
    }

    @Test
    void renewAnswersRenewedNotOwnerAndExpired() {
        String token = acquire("orders", 1_000);

        assertThat(emq("lock", "renew", "orders", token, "--ttl", "60000")).isEqualTo(new EmqRun(0, "RENEWED\n", ""));
        assertThat((Long) REDIS.raw().call("PTTL", "emq:lock:{orders}:lock")).isBetween(30_001L, 60_000L);

        assertThat(emq("lock", "renew", "orders", "someone-else", "--ttl", "60000"))
                .isEqualTo(new EmqRun(ExitCodes.NOT_OWNER, "NOT_OWNER\n", ""));
        assertThat(REDIS.raw().call("GET", "emq:lock:{orders}:lock")).isEqualTo(token);

        assertThat(emq("lock", "release", "orders", token).out()).isEqualTo("RELEASED\n");
        assertThat(emq("lock", "renew", "orders", token, "--ttl", "60000")).isEqualTo(new EmqRun(ExitCodes.EXPIRED, "EXPIRED\n", ""));
        assertThat(REDIS.raw().call("EXISTS", "emq:lock:{orders}:lock")).as("never revived").isEqualTo(0L);
    }

    @Test
    void tokensThatStartWithADashAreValuesNotOptions() {
        for (String token : new String[] {"-h3kQ9xP_qLm2Zt7Yb4Wc1A", "-V3kQ9xP_qLm2Zt7Yb4Wc1A",
            "--ttl9xP_qLm2Zt7Yb4Wc1A", "--9xP_qLm2Zt7Yb4Wc1Ax"}) {
            REDIS.raw().call("SET", "emq:lock:{dash}:lock", token, "PX", "30000");
            assertThat(emq("lock", "renew", "dash", token, "--ttl", "60000")).isEqualTo(new EmqRun(0, "RENEWED\n", ""));
            assertThat(emq("lock", "release", "dash", token)).isEqualTo(new EmqRun(0, "RELEASED\n", ""));
        }
    }

    @Test
    void inspectShowsHolderTtlAndFence() {
        assertThat(emq("lock", "inspect", "orders")).isEqualTo(new EmqRun(0, "free fence=0\n", ""));

        Granted granted = acquire("orders", 30_000, micros() - 1);
        EmqRun held = emq("lock", "inspect", "orders");
        assertThat(held.code()).isZero();
        assertThat(held.err()).isEmpty();
        Matcher m = Pattern.compile("held token=(\\S+)… label=(\\S+) ttl_ms=(\\d+) fence=" + granted.fence()
                + " renewed_ms_ago=(\\d+)\n").matcher(held.out());
        assertThat(m.matches()).as("output %s", held.out()).isTrue();
        assertThat(m.group(1)).isEqualTo(granted.token().substring(0, 8));
        assertThat(m.group(2)).isEqualTo(granted.token().substring(granted.token().indexOf('+', 33) + 1));
        assertThat(Long.parseLong(m.group(4))).isBetween(0L, 30_000L - Long.parseLong(m.group(3)) + 1);
        assertThat(emq("lock", "inspect", "orders", "--show-token").out()).startsWith("held token=" + granted.token() + " ");
        assertThat(Long.parseLong(m.group(3))).isBetween(1L, 30_000L);

        emq("lock", "release", "orders", granted.token());
        assertThat(emq("lock", "inspect", "orders")).isEqualTo(new EmqRun(0, "free fence=" + granted.fence() + "\n", ""));
    }

    @Test
    void inspectFlagsALockWithoutExpiry() {
        REDIS.raw().call("SETNX", "emq:lock:{stuck}:lock", "crashed-before-expire");

        assertThat(emq("lock", "inspect", "stuck"))
                .isEqualTo(new EmqRun(0, "held token=crashed-… label=- ttl_ms=-1 (no expiry) fence=0 renewed_ms_ago=-\n", ""));
    }

    @Test
    void waitThatRunsOutPrintsNilAndAReason() {
        acquire("orders", 30_000);

        EmqRun run = emq("lock", "acquire", "orders", "--ttl", "1000", "--wait", "300");

        assertThat(run.code()).isEqualTo(1);
        assertThat(run.out()).isEqualTo("nil\n");
        assertThat(run.err()).isEqualTo("emq lock acquire: Timed out after 300 ms waiting for lock 'orders': still held\n");
    }

    @Test
    void waitGetsTheLockOnceTheHolderExpires() {
        Granted first = acquire("orders", 200, micros() - 1);

        EmqRun run = emq("lock", "acquire", "orders", "--ttl", "30000", "--wait", "10000");

        assertThat(run.err()).isEmpty();
        assertThat(run.code()).isZero();
        Matcher m = GRANTED.matcher(run.out());
        assertThat(m.matches()).as("output %s", run.out()).isTrue();
        assertThat(Long.parseLong(m.group(2))).isGreaterThan(first.fence());
    }

    @Test
    void redisOptionOverridesTheEnvironment() {
        String deadUrl = "redis://127.0.0.1:" + EmqRun.closedPort();

        EmqRun run = EmqRun.at(deadUrl, "lock", "inspect", "orders", "--redis", REDIS.url());

        assertThat(run).isEqualTo(new EmqRun(0, "free fence=0\n", ""));
    }

    @Test
    void urlComesFromTheEnvironmentElseTheLocalDefault() {
        // blanks removed: the help wraps its columns wherever their width puts the line end
        String help = EmqRun.run(Map.of(), "lock", "inspect", "--help").out().replaceAll("\\s+", "");
        assertThat(help).contains("(now:redis://127.0.0.1:6379)");

        String fromEnv = EmqRun.at("redis://10.1.2.3:7000", "lock", "inspect", "--help").out().replaceAll("\\s+", "");
        assertThat(fromEnv).contains("(now:redis://10.1.2.3:7000)");
    }
}
