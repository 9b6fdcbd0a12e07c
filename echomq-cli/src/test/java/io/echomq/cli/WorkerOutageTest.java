package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.server.RedisServer;
import io.echomq.testkit.FaultProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Redis outage seen by {@code emq worker} run as its own JVM (so its real logging configuration applies): one
 * line when the connection drops and one when it is back, however many reconnect attempts fail in between, and
 * none of Lettuce's per-attempt warnings.
 */
@Timeout(180)
class WorkerOutageTest extends QueueCliTestBase {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void anOutagePrintsOneLineWhenLostAndOneWhenBack() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(REDIS.server())) {
            Process jvm = launch(proxy.url(), "worker", "q", "--create", "--exec", "cat");
            try {
                await().atMost(PATIENCE).until(() -> err().contains(", server "));
                long acceptedBefore = proxy.acceptedConnections();

                proxy.blackHole(Duration.ofSeconds(50));   // reconnects are accepted, then hang until healed
                assertThat(proxy.cutAll()).isPositive();
                await().atMost(PATIENCE).until(() -> err().contains("lost; retrying"));
                // several reconnect attempts fail while the outage lasts
                await().atMost(PATIENCE).until(() -> proxy.acceptedConnections() >= acceptedBefore + 3);
                proxy.heal();
                await().atMost(PATIENCE).until(() -> err().contains(" is back"));
            } finally {
                jvm.destroy();   // SIGTERM
                assertThat(jvm.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
            }
            String err = err();
            String url = proxy.url();
            assertThat(err.lines().filter(l -> l.equals("worker q: connection to " + url + " lost; retrying")))
                    .as(err).hasSize(1);
            assertThat(err.lines().filter(l -> l.equals("worker q: connection to " + url + " is back")))
                    .as(err).hasSize(1);
            assertThat(err).as("Lettuce's reconnect warnings are muted").doesNotContain("ConnectionWatchdog",
                    "Cannot reconnect", "Reconnecting");
        }
    }

    @Test
    void refusedReconnectsDuringAServerRestartAreNotWarnedEachTime() throws Exception {
        RedisServer server = RedisServer.start();
        int port = server.port();
        Process jvm = launch(server.url(), "worker", "q", "--create", "--exec", "cat");
        try {
            await().atMost(PATIENCE).until(() -> err().contains(", server "));

            server.close();   // every reconnect attempt is now refused
            long down = System.nanoTime();
            await().atMost(PATIENCE).until(() -> err().contains("lost; retrying"));
            Thread.sleep(3_000);   // the outage: Lettuce's backoff (1 ms, doubling) makes about ten attempts in it
            server = RedisServer.builder().port(port).start();
            // Lettuce doubles its delay after each refused attempt, so its next attempt can come as long after
            // the restart as the outage lasted: on a loaded machine the outage itself stretches, and the wait
            // for the reconnect allows for that on top of its own patience
            Duration outage = Duration.ofNanos(System.nanoTime() - down);
            await().atMost(PATIENCE.plus(outage)).untilAsserted(() -> assertThat(err())
                    .as("after an outage of %d ms", outage.toMillis()).contains(" is back"));
        } finally {
            jvm.destroy();
            assertThat(jvm.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
            server.close();
        }
        String err = err();
        assertThat(err.lines().filter(l -> l.endsWith(" lost; retrying"))).as(err).hasSize(1);
        assertThat(err.lines().filter(l -> l.endsWith(" is back"))).as(err).hasSize(1);
        assertThat(err).as("Lettuce's per-attempt warnings are muted").doesNotContain("ConnectionWatchdog",
                "Cannot reconnect", "Reconnecting");
    }

    private Process launch(String url, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Emq.class.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectOutput(dir.resolve("jvm.out").toFile())
                .redirectError(dir.resolve("jvm.err").toFile());
        pb.environment().put(RedisOptions.ENV, url);
        return pb.start();
    }

    private String err() {
        try {
            Path file = dir.resolve("jvm.err");
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
