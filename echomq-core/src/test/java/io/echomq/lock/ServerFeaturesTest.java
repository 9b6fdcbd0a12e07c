package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.Capabilities;
import io.echomq.testkit.RedisExtension;
import io.echomq.server.RedisServer;
import org.junit.jupiter.api.Test;

/**
 * The client names the server as the server names itself ({@code server_name}, {@code valkey_version}
 * or {@code redis_version} in {@code INFO server}), and finds SPUBLISH with COMMAND INFO.
 */
class ServerFeaturesTest extends LockTestBase {

    @Test
    void detectsTheServerAndItsShardedPubSub() {
        RedisServer server = REDIS.server();
        String description = locks.serverDescription();
        System.out.println("server under test: " + description);
        String name = server.product() + (RedisExtension.clusterMode() ? " Cluster " : " ") + server.version();
        assertThat(description).startsWith(name + " (");
        boolean spublish = Capabilities.knows(server, "spublish");
        assertThat(description).endsWith("SPUBLISH: " + (spublish ? "yes" : "no") + ")");
        // An oracle independent of the probe, for the servers CI runs: only Redis 6.x lacks SPUBLISH.
        boolean redis6 = server.product().equals("Redis") && server.version().startsWith("6.");
        assertThat(spublish).as("SPUBLISH on %s %s", server.product(), server.version()).isEqualTo(!redis6);
    }
}
