package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.server.RawRedis;
import io.echomq.server.RedisServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code emq lock … --redlock URL,URL,URL} against three real masters: outputs and exit codes. */
class RedlockCommandsTest {
    private static final Pattern GRANTED = Pattern.compile("OK token=([0-9a-f]{32}) fence=(\\d+)\n");
    private static final String LOCK = "emq:lock:{orders}:lock";
    private static final List<RedisServer> SERVERS = new ArrayList<>();
    private static final List<RawRedis> RAW = new ArrayList<>();
    private static String masters;

    @BeforeAll
    static void start() {
        for (int i = 0; i < 3; i++) {
            RedisServer s = RedisServer.start();
            SERVERS.add(s);
            RAW.add(RawRedis.connect(s.host(), s.port()));
        }
        masters = String.join(",", SERVERS.stream().map(RedisServer::url).toList());
    }

    @AfterAll
    static void stop() {
        RAW.forEach(RawRedis::close);
        SERVERS.forEach(RedisServer::close);
    }

    @BeforeEach
    void flush() {
        RAW.forEach(r -> r.call("FLUSHALL"));
    }

    /** Runs emq with no EMQ_REDIS_URL, so that only --redlock names a server. */
    private static EmqRun emq(String... args) {
        return EmqRun.run(Map.of(), args);
    }

    private static List<Object> onEach(String key) {
        return RAW.stream().map(r -> r.call("GET", key)).toList();
    }

    /** A fenced grant as printed: the token and the fence. */
    private record Granted(String token, long fence) {
    }

    /** @return master 0's clock in microseconds ({@code TIME}); the masters share this machine's clock */
    private static long micros() {
        List<?> t = (List<?>) RAW.get(0).call("TIME");
        return Long.parseLong(t.get(0).toString()) * 1_000_000L + Long.parseLong(t.get(1).toString());
    }

    /**
     * Acquires a fresh {@code resource} on every master: the printed fence is a master's clock at
     * its grant, and every master holds it after the write-back.
     */
    private static Granted acquire(String resource) {
        long before = micros();
        EmqRun run = emq("lock", "acquire", resource, "--ttl", "30000", "--redlock", masters);
        assertThat(run.err()).isEmpty();
        assertThat(run.code()).isZero();
        Matcher m = GRANTED.matcher(run.out());
        assertThat(m.matches()).as("output %s", run.out()).isTrue();
        long fence = Long.parseLong(m.group(2));
        assertThat(fence).isBetween(before, micros());
        String fenceKey = "emq:lock:{" + resource + "}:fence";
        assertThat(onEach(fenceKey)).containsOnly(Long.toString(fence));
        return new Granted(m.group(1), fence);
    }

    @Test
    void acquirePutsTheTokenOnEveryMasterAndASecondAcquireIsNil() {
        String token = acquire("orders").token();

        assertThat(onEach(LOCK)).containsExactly(token, token, token);
        assertThat(emq("lock", "acquire", "orders", "--ttl", "30000", "--redlock", masters))
                .isEqualTo(new EmqRun(1, "nil\n", ""));
        assertThat(onEach(LOCK)).containsExactly(token, token, token);
    }

    @Test
    void releaseAndRenewAnswerAsForOneServer() {
        Granted first = acquire("orders");
        String token = first.token();

        assertThat(emq("lock", "renew", "orders", token, "--ttl", "60000", "--redlock", masters))
                .isEqualTo(new EmqRun(0, "RENEWED\n", ""));
        assertThat((Long) RAW.get(2).call("PTTL", LOCK)).isGreaterThan(30_000L);
        assertThat((Long) RAW.get(2).call("PTTL", "emq:lock:{orders}:fence")).as("the fence key lives as long as the lock")
                .isGreaterThan(30_000L);
        assertThat(emq("lock", "release", "orders", "someone-else", "--redlock", masters))
                .isEqualTo(new EmqRun(ExitCodes.NOT_OWNER, "NOT_OWNER\n", ""));
        assertThat(emq("lock", "release", "orders", token, "--redlock", masters))
                .isEqualTo(new EmqRun(0, "RELEASED\n", ""));
        assertThat(onEach(LOCK)).containsExactly(null, null, null);
        assertThat(emq("lock", "release", "orders", token, "--redlock", masters))
                .isEqualTo(new EmqRun(ExitCodes.EXPIRED, "EXPIRED\n", ""));
        assertThat(emq("lock", "renew", "orders", token, "--ttl", "60000", "--redlock", masters))
                .isEqualTo(new EmqRun(ExitCodes.EXPIRED, "EXPIRED\n", ""));
        assertThat(acquire("orders").fence()).isGreaterThan(first.fence());
    }

    @Test
    void theOptionMayBeRepeatedInsteadOfCommaSeparated() {
        EmqRun run = emq("lock", "acquire", "orders", "--ttl", "30000", "--redlock", SERVERS.get(0).url(),
                "--redlock", SERVERS.get(1).url(), "--redlock", SERVERS.get(2).url());

        assertThat(run.code()).isZero();
        assertThat(run.out()).matches("OK token=[0-9a-f]{32} fence=[1-9][0-9]{15}\n");
    }

    @Test
    void inspectGivesAVerdictThenEveryMaster() {
        Granted granted = acquire("orders");
        String token = granted.token();
        long fence = granted.fence();
        RAW.get(2).call("SET", LOCK, "someone-else", "PX", "30000");

        EmqRun run = emq("lock", "inspect", "orders", "--redlock", masters);

        assertThat(run.code()).isZero();
        assertThat(run.err()).isEmpty();
        assertThat(run.out()).matches("held token=" + token + " masters=2/3 fence=" + fence + "\n"
                + "master " + Pattern.quote(SERVERS.get(0).url()) + " held token=" + token + " ttl_ms=\\d+ fence=" + fence + "\n"
                + "master " + Pattern.quote(SERVERS.get(1).url()) + " held token=" + token + " ttl_ms=\\d+ fence=" + fence + "\n"
                + "master " + Pattern.quote(SERVERS.get(2).url()) + " held token=someone-else ttl_ms=\\d+ fence=" + fence + "\n");

        RAW.get(1).call("DEL", LOCK);
        assertThat(emq("lock", "inspect", "orders", "--redlock", masters).out()).startsWith("free fence=" + fence + "\n");
    }

    @Test
    void aMajorityOfMastersDownExitsThree() {
        String dead = "redis://127.0.0.1:" + EmqRun.closedPort();
        String alsoDead = "redis://127.0.0.1:" + EmqRun.closedPort();

        EmqRun run = emq("lock", "acquire", "orders", "--ttl", "30000",
                "--redlock", SERVERS.get(0).url() + "," + dead + "," + alsoDead);

        assertThat(run.code()).isEqualTo(3);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).startsWith("emq lock acquire: Redis CONNECT: reached 1 of 3 Redlock masters, 2 needed;")
                .contains(dead);
        assertThat(onEach(LOCK)).containsExactly(null, null, null);
    }

    @Test
    void aMinorityDownStillGrants() {
        String dead = "redis://127.0.0.1:" + EmqRun.closedPort();

        EmqRun run = emq("lock", "acquire", "orders", "--ttl", "30000",
                "--redlock", SERVERS.get(0).url() + "," + SERVERS.get(1).url() + "," + dead);

        assertThat(run.code()).isZero();
        assertThat(run.out()).matches("OK token=[0-9a-f]{32} fence=[1-9][0-9]{15}\n");
    }

    @Test
    void badMasterListsExitTwoBeforeConnecting() {
        String a = SERVERS.get(0).url();
        String b = SERVERS.get(1).url();
        EmqRun two = emq("lock", "acquire", "orders", "--ttl", "30000", "--redlock", a + "," + b);
        assertThat(two.code()).isEqualTo(2);
        assertThat(two.err()).isEqualTo("emq lock acquire: --redlock names 2 masters; Redlock needs an odd number "
                + "of at least 3 (with fewer, one failure stops it; for one server use --redis)\n");

        EmqRun repeated = emq("lock", "inspect", "orders", "--redlock", a + "," + b + "," + a);
        assertThat(repeated.code()).isEqualTo(2);
        assertThat(repeated.err()).contains("twice; Redlock masters must be independent servers");

        EmqRun both = emq("lock", "release", "orders", "tok", "--redis", a, "--redlock", masters);
        assertThat(both.code()).isEqualTo(2);
        assertThat(both.err()).startsWith("emq lock release: --redis and --redlock cannot be combined");

        EmqRun badTtl = emq("lock", "acquire", "orders", "--ttl", "0", "--redlock", masters);
        assertThat(badTtl.code()).isEqualTo(2);
        EmqRun badTimeout = emq("lock", "acquire", "orders", "--ttl", "1000", "--redlock", masters,
                "--master-timeout", "0");
        assertThat(badTimeout.code()).isEqualTo(2);
        assertThat(badTimeout.err()).startsWith("emq lock acquire: Invalid value for option '--master-timeout': 0");
        assertThat(onEach(LOCK)).containsExactly(null, null, null);
    }
}
