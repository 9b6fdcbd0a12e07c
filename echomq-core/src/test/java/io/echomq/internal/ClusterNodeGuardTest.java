package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.lock.LockClient;
import io.echomq.queue.QueueClient;
import io.echomq.server.RedisCluster;
import io.echomq.server.RedisServer;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A single-server URL naming a cluster node is refused at connect, for every node and every name, with the
 * cluster URL to use; a plain server is not refused.
 */
class ClusterNodeGuardTest {
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
    void everyClientRefusesARedisUrlNamingAClusterNode() {
        for (RedisServer node : cluster.masters()) {
            String hint = "use redis-cluster://" + node.host() + ":" + node.port() + " instead";
            assertThatThrownBy(() -> LockClient.create(node.url())).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("names a node of a Redis Cluster").hasMessageContaining(hint);
            assertThatThrownBy(() -> QueueClient.create(node.url())).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(hint);
            assertThatThrownBy(() -> EngineConnector.connect(node.url() + "/2", java.time.Duration.ofSeconds(5)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(hint)
                    .hasMessageContaining("'" + node.url() + "/2'");
        }
    }

    @Test
    void aConnectThatFailedWithoutSayingWhyIsAskedAgainWithoutSelect() {
        // The client may close the channel before the refused SELECT reaches the caller, which then
        // reads only "Unable to connect": the guard asks the node again, selecting no database.
        for (RedisServer node : cluster.masters()) {
            RedisURI uri = RedisURI.create(node.url() + "/2");
            io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create();
            try {
                IllegalArgumentException refusal = ClusterNodeGuard.askWithoutSelect(client, uri, node.url() + "/2", 5_000);
                assertThat(refusal).isNotNull();
                assertThat(refusal.getMessage()).contains("use redis-cluster://" + node.host() + ":" + node.port());
                assertThat(ClusterNodeGuard.askWithoutSelect(client, RedisURI.create(node.url()), node.url(), 5_000))
                        .as("database 0: no SELECT in the handshake, nothing to read back").isNull();
            } finally {
                client.shutdown();
            }
        }
        try (RedisServer plain = RedisServer.start()) {
            io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create();
            try {
                assertThat(ClusterNodeGuard.askWithoutSelect(client, RedisURI.create(plain.url() + "/2"),
                        plain.url() + "/2", 5_000)).as("a plain server").isNull();
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void aPlainServerAndTheClusterUrlAreAccepted() {
        try (RedisServer plain = RedisServer.start(); LockClient locks = LockClient.create(plain.url());
             LockClient clustered = LockClient.create(cluster.url())) {
            assertThat(locks.tryAcquire("guarded", java.time.Duration.ofSeconds(5))).isPresent();
            assertThat(clustered.tryAcquire("guarded", java.time.Duration.ofSeconds(5))).isPresent();
        }
    }

    @Test
    void readsTheModeAndBuildsTheClusterForm() {
        assertThat(ClusterNodeGuard.isClusterMode("# Server\r\nredis_version:7.0.15\r\nredis_mode:cluster\r\n")).isTrue();
        assertThat(ClusterNodeGuard.isClusterMode("# Server\r\nredis_mode:standalone\r\n")).isFalse();
        // Valkey 8 names the field after itself
        assertThat(ClusterNodeGuard.isClusterMode("# Server\r\nserver_name:valkey\r\nserver_mode:cluster\r\n")).isTrue();
        assertThat(ClusterNodeGuard.isClusterMode("# Server\r\nserver_name:valkey\r\nserver_mode:standalone\r\n")).isFalse();
        assertThat(ClusterNodeGuard.isClusterMode("# Server\r\nredis_version:6.2.6\r\n")).isFalse();
        assertThat(ClusterNodeGuard.clusterUrl(RedisURI.create("rediss://u:pw@h:7001/0"))).isEqualTo("rediss-cluster://h:7001");
        assertThat(ClusterNodeGuard.clusterUrl(RedisURI.create("redis://[::1]:7002"))).isEqualTo("redis-cluster://[::1]:7002");
    }
}
