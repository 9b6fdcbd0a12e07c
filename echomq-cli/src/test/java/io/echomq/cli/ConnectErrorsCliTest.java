package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Each connection failure a newcomer meets names its cause and the fix, on one line, exit code 3,
 * against a real server: no server on the port, a server that needs a password, a wrong password,
 * and rediss:// to a plaintext server (answered within 3 s). No password is printed.
 */
@Timeout(120)
class ConnectErrorsCliTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static EmqRun emq(String url, String... args) {
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--redis";
        all[args.length + 1] = url;
        return EmqRun.run(Map.of(), all);
    }

    private static void assertOneLine(EmqRun run) {
        assertThat(run.code()).as("%s", run).isEqualTo(ExitCodes.REDIS_FAILURE);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().strip()).as("one line: %s", run).doesNotContain("\n");
    }

    @Test
    void noServerNamesHostAndPortAndHowToStartOne() {
        int port = EmqRun.closedPort();
        for (String[] args : new String[][] {{"lock", "inspect", "orders"}, {"queue", "stats", "q"}}) {
            EmqRun run = emq("redis://127.0.0.1:" + port, args);
            assertOneLine(run);
            assertThat(run.err()).contains("127.0.0.1:" + port)
                    .contains("is a server running? `./emq server` starts one");
        }
    }

    @Test
    void aServerThatNeedsAPasswordSaysHowToGiveIt() {
        String password = "pw-" + HexFormat.of().formatHex(new SecureRandom().generateSeed(8));
        int port = REDIS.server().port();
        REDIS.raw().call("CONFIG", "SET", "requirepass", password);
        try {
            EmqRun none = emq("redis://127.0.0.1:" + port, "lock", "inspect", "orders");
            assertOneLine(none);
            assertThat(none.err()).contains("the server at 127.0.0.1:" + port + " needs a password: "
                    + "redis://:PASSWORD@127.0.0.1:" + port);

            EmqRun wrong = emq("redis://:" + password + "x@127.0.0.1:" + port, "queue", "stats", "q");
            assertOneLine(wrong);
            assertThat(wrong.err()).contains("wrong password or user").contains("redis://***@127.0.0.1:" + port)
                    .doesNotContain(password);

            EmqRun wrongUser = emq("redis://nobody:" + password + "@127.0.0.1:" + port, "lock", "inspect", "o");
            assertOneLine(wrongUser);
            assertThat(wrongUser.err()).contains("wrong password or user").doesNotContain(password);

            EmqRun right = emq("redis://:" + password + "@127.0.0.1:" + port, "lock", "inspect", "orders");
            assertThat(right.code()).as("%s", right).isZero();
        } finally {
            REDIS.raw().call("CONFIG", "SET", "requirepass", "");
        }
    }

    /**
     * Lettuce completes a refused handshake with the refusal or with the close that follows it,
     * whichever it sees first; the CLI connects again rather than report the bare close, so every
     * wrong password reads as one.
     */
    @Test
    void aWrongPasswordReadsAsOneEveryTime() {
        String password = "pw-" + HexFormat.of().formatHex(new SecureRandom().generateSeed(8));
        int port = REDIS.server().port();
        REDIS.raw().call("CONFIG", "SET", "requirepass", password);
        try {
            List<String> other = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                EmqRun wrong = emq("redis://:" + password + "x@127.0.0.1:" + port, "lock", "inspect", "o");
                if (wrong.code() != ExitCodes.REDIS_FAILURE || !wrong.err().contains("wrong password or user")) {
                    other.add(wrong.err().strip());
                }
            }
            assertThat(other).as("runs that said something else").isEmpty();
        } finally {
            REDIS.raw().call("CONFIG", "SET", "requirepass", "");
        }
    }

    @Test
    void redissToAPlaintextServerFailsWithinThreeSeconds() {
        int port = REDIS.server().port();
        long start = System.nanoTime();
        EmqRun run = emq("rediss://127.0.0.1:" + port, "lock", "inspect", "orders");
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        assertOneLine(run);
        assertThat(run.err()).contains("the server at 127.0.0.1:" + port
                + " did not answer TLS; is it a plaintext server? use redis://");
        assertThat(tookMs).as("answered in %d ms", tookMs).isLessThan(3_000);

        EmqRun worker = emq("rediss://127.0.0.1:" + port, "worker", "q", "--exec", "true", "--exit-when-idle");
        assertOneLine(worker);
        assertThat(worker.err()).contains("did not answer TLS");
    }
}
