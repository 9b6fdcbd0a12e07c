package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.server.RawRedis;
import io.echomq.testkit.ChildJvm;
import io.echomq.testkit.RedisExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/** {@code emq server}: a real redis-server in the foreground, until stopped. */
class ServerCommandTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void servesUntilStoppedAndPrintsItsUrlAndVersion() throws Exception {
        CommandLine cli = Emq.commandLine(Map.of());
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(new StringWriter(), true));
        ServerCommand server = cli.getSubcommands().get("server").getCommand();

        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> cli.execute("server", "--port", "0"));
        await().atMost(Duration.ofSeconds(15)).until(() -> out.toString().contains("Ctrl-C"));

        Matcher m = Pattern.compile("(redis|valkey)-server (\\d+\\.\\d+\\.\\d+) listening at"
                + " redis://127\\.0\\.0\\.1:(\\d+) — Ctrl-C to stop\n").matcher(out.toString());
        assertThat(m.matches()).as("output %s", out).isTrue();
        int port = Integer.parseInt(m.group(3));
        try (RawRedis raw = RawRedis.connect("127.0.0.1", port)) {
            assertThat(raw.call("PING")).isEqualTo("PONG");
            // the name and version printed are the ones the server gives
            String info = (String) raw.call("INFO", "server");
            assertThat(info.contains("server_name:valkey")).isEqualTo(m.group(1).equals("valkey"));
            assertThat(info).contains(m.group(1) + "_version:" + m.group(2));
        }
        EmqRun locked = EmqRun.run(Map.of(), "lock", "acquire", "r", "--ttl", "1000",
                "--redis", "redis://127.0.0.1:" + port);
        assertThat(locked.out()).startsWith("OK token=");

        server.stop();
        assertThat(exit.get(15, TimeUnit.SECONDS)).isZero();
        assertThat(canConnect(port)).as("stopped").isFalse();
    }

    @Test
    void aTakenPortExitsThree() {
        EmqRun run = EmqRun.run(Map.of(), "server", "--port", Integer.toString(REDIS.server().port()));

        assertThat(run.code()).isEqualTo(3);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("emq server: cannot start redis-server on port " + REDIS.server().port()
                + ": the port is already in use (is another Redis running? try --port 0 for a free port)\n");
    }

    @Test
    void killedWithSigkillItsRedisServerDiesToo() throws Exception {
        try (ChildJvm emq = ChildJvm.start("io.echomq.cli.Emq", line -> { }, "server", "--port", "0")) {
            String banner = emq.awaitLine(l -> l.contains("Ctrl-C to stop"), Duration.ofSeconds(30));
            Matcher m = Pattern.compile("listening at redis://127\\.0\\.0\\.1:(\\d+) ").matcher(banner);
            assertThat(m.find()).as("banner %s", banner).isTrue();
            int port = Integer.parseInt(m.group(1));
            assertThat(canConnect(port)).isTrue();

            emq.kill();   // SIGKILL: no shutdown hook runs in the emq JVM

            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> assertThat(canConnect(port)).as("redis-server on port %d", port).isFalse());
        }
    }

    private static boolean canConnect(int port) {
        try (RawRedis raw = RawRedis.connect("127.0.0.1", port)) {
            return "PONG".equals(raw.call("PING"));
        } catch (UncheckedIOException e) {
            return false;
        }
    }
}
