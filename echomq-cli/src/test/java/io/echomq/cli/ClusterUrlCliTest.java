package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.server.RawRedis;
import io.echomq.server.RedisCluster;
import io.echomq.server.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The lock and queue commands take a redis-cluster:// URL as they take a redis:// one; a successful command on
 * a cluster prints nothing on stderr; and a redis:// URL that names a cluster node exits 2 with the
 * redis-cluster:// URL to use, never with a raw MOVED.
 */
class ClusterUrlCliTest {
    private static RedisCluster cluster;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void lockCommandsRunOnACluster() {
        EmqRun acquired = EmqRun.run(java.util.Map.of(), "lock", "acquire", "orders", "--ttl", "30000",
                "--redis", cluster.url());
        assertThat(acquired.code()).as(acquired.err()).isZero();
        assertThat(acquired.out()).matches("OK token=" + LockCommandsTest.TOKEN + " fence=[1-9][0-9]{15}\n");
        String token = acquired.out().replaceAll("(?s).*token=(\\S+).*", "$1");
        try (RawRedis raw = cluster.raw()) {
            assertThat(raw.call("GET", "emq:lock:{orders}:lock")).isEqualTo(token);
        }
        EmqRun released = EmqRun.at(cluster.url(), "lock", "release", "orders", token);
        assertThat(released.out().trim()).isEqualTo("RELEASED");
    }

    @Test
    void queueCommandsRunOnACluster() {
        EmqRun enqueued = EmqRun.at(cluster.url(), "queue", "enqueue", "emails", "hello");
        assertThat(enqueued.code()).as(enqueued.err()).isZero();
        EmqRun stats = EmqRun.at(cluster.url(), "queue", "stats", "emails");
        assertThat(stats.out()).startsWith("pending=1 ");
    }

    @Test
    void aMalformedClusterUrlExitsTwo() {
        EmqRun run = EmqRun.at("redis-cluster://a:1,,b:2", "queue", "stats", "emails");
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err()).contains("Malformed Redis Cluster URL").contains("an empty host between commas");
    }

    @Test
    void aSuccessfulCommandOnAClusterWritesNothingToStderr() throws Exception {
        // Its own JVM, as `emq` runs: Lettuce's warnings go to the process's stderr, which an in-process run
        // does not capture.
        Result acquired = emq("lock", "acquire", "quiet", "--ttl", "30000", "--redis", cluster.url());
        assertThat(acquired.code).as(acquired.err).isZero();
        assertThat(acquired.out).startsWith("OK token=");
        assertThat(acquired.err).as("stderr of a successful lock acquire").isEmpty();

        Result enqueued = emq("queue", "enqueue", "quiet-q", "hello", "--redis", cluster.url());
        assertThat(enqueued.code).as(enqueued.err).isZero();
        assertThat(enqueued.err).as("stderr of a successful enqueue").isEmpty();
    }

    @Test
    void aRedisUrlNamingAClusterNodeExitsTwoNamingTheClusterForm() {
        // every master: the one that owns the name's slot too, so the answer does not depend on the name
        for (RedisServer node : cluster.masters()) {
            String expected = "redis-cluster://" + node.host() + ":" + node.port();
            for (String[] args : List.of(new String[] {"lock", "acquire", "orders", "--ttl", "1000"},
                    new String[] {"queue", "stats", "emails"})) {
                EmqRun run = EmqRun.at(node.url(), args);
                assertThat(run.code()).as("%s on %s: %s", args[0], node.url(), run.err()).isEqualTo(2);
                assertThat(run.err()).contains("names a node of a Redis Cluster").contains(expected)
                        .doesNotContain("MOVED");
            }
            EmqRun withDb = EmqRun.at(node.url() + "/3", "queue", "stats", "emails");
            assertThat(withDb.code()).as(withDb.err()).isEqualTo(2);
            assertThat(withDb.err()).contains(expected).doesNotContain("SELECT");
        }
    }

    private record Result(int code, String out, String err) {
    }

    /** Runs {@code emq args} as its own JVM on this module's class path. */
    private static Result emq(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Emq.class.getName()));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile("emq-out", ".txt");
        Path err = Files.createTempFile("emq-err", ".txt");
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("emq " + String.join(" ", args) + " did not exit within 60 s");
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
