package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RawRedis;
import io.echomq.testkit.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The lock and queue commands take a redis-cluster:// URL as they take a redis:// one. */
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
        assertThat(acquired.out()).matches("OK token=[0-9a-f]{32} fence=[1-9][0-9]{15}\n");
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
}
