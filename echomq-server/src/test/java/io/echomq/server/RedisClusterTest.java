package io.echomq.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RedisClusterTest {
    private static RedisCluster cluster;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.start();
        System.out.println("echomq-server started " + cluster);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void slotIsCrc16OfTheHashTag() {
        // the reference values from the Redis Cluster specification and redis-cli CLUSTER KEYSLOT
        assertThat(RedisCluster.slot("123456789")).isEqualTo(0x31C3);
        assertThat(RedisCluster.slot("{user1000}.following")).isEqualTo(RedisCluster.slot("{user1000}.followers"));
        try (RawRedis raw = cluster.raw()) {
            for (String key : List.of("foo", "emq:{q}:pending", "foo{}{bar}", "foo{{bar}}zap", "{}", "x{a}y{b}")) {
                assertThat(RedisCluster.slot(key)).as(key)
                        .isEqualTo(((Long) raw.call("CLUSTER", "KEYSLOT", key)).intValue());
            }
        }
    }

    @Test
    void formsAClusterOfThreeMastersThatAllAgree() {
        assertThat(cluster.masters()).hasSize(3);
        assertThat(cluster.replicas()).isEmpty();
        assertThat(cluster.url()).startsWith("redis-cluster://127.0.0.1:").contains(",");
        Set<Integer> owners = new HashSet<>();
        for (int slot = 0; slot < RedisCluster.SLOTS; slot += 997) {
            owners.add(cluster.ownerOf(slot));
        }
        assertThat(owners).containsExactlyInAnyOrder(0, 1, 2);
        for (RedisServer m : cluster.masters()) {
            try (RawRedis raw = RawRedis.connect(m.host(), m.port())) {
                assertThat((String) raw.call("CLUSTER", "INFO")).contains("cluster_state:ok")
                        .contains("cluster_known_nodes:3").contains("cluster_slots_assigned:16384");
            }
        }
    }

    @Test
    void rawRoutesEveryKeyToItsMasterAndBroadcastsFlushAndDbsize() {
        try (RawRedis raw = cluster.raw()) {
            raw.call("FLUSHALL");
            for (int i = 0; i < 30; i++) {
                assertThat(raw.call("SET", "k" + i, "v" + i)).isEqualTo("OK");
            }
            for (int i = 0; i < 30; i++) {
                assertThat(raw.call("GET", "k" + i)).isEqualTo("v" + i);
            }
            assertThat(raw.call("DBSIZE")).isEqualTo(30L);
            assertThat((List<?>) raw.call("KEYS", "*")).hasSize(30);
            Set<Integer> owners = new HashSet<>();
            for (int i = 0; i < 30; i++) {
                owners.add(cluster.ownerOf(RedisCluster.slot("k" + i)));
            }
            assertThat(owners).as("the keys spread over the masters").hasSizeGreaterThan(1);
            assertThatThrownBy(raw::monitor).isInstanceOf(UnsupportedOperationException.class);
            raw.call("FLUSHALL");
            assertThat(raw.call("DBSIZE")).isEqualTo(0L);
        }
    }

    @Test
    void migrateSlotMovesTheKeysAndClientsFollowMovedAndAsk() {
        String tag = "{mig}";
        int slot = RedisCluster.slot(tag);
        int from = cluster.ownerOf(slot);
        int to = (from + 1) % 3;
        try (RawRedis raw = cluster.raw()) {
            for (int i = 0; i < 250; i++) {
                raw.call("SET", tag + i, Integer.toString(i));
            }
            AtomicInteger batches = new AtomicInteger();
            List<Object> midway = new ArrayList<>();
            int moved = cluster.migrateSlot(slot, from, to, 100, () -> {
                // half migrated: a key already moved is served through ASK, one not yet moved by the source
                if (batches.incrementAndGet() == 1) {
                    for (int i = 0; i < 250; i++) {
                        midway.add(raw.call("GET", tag + i));
                    }
                }
            });
            assertThat(moved).isEqualTo(250);
            assertThat(batches.get()).isEqualTo(3);
            assertThat(midway).hasSize(250).doesNotContainNull();
            assertThat(cluster.ownerOf(slot)).isEqualTo(to);
            RedisServer old = cluster.masters().get(from);
            try (RawRedis direct = RawRedis.connect(old.host(), old.port())) {
                assertThatThrownBy(() -> direct.call("GET", tag + 1)).isInstanceOf(RawRedis.ErrorReply.class)
                        .hasMessageStartingWith("MOVED " + slot);
            }
            for (int i = 0; i < 250; i++) {
                assertThat(raw.call("GET", tag + i)).isEqualTo(Integer.toString(i));
            }
            cluster.migrateSlot(slot, to, from);
            assertThat(cluster.ownerOf(slot)).isEqualTo(from);
        }
    }

    @Test
    void migrateSlotRejectsBadArguments() {
        int slot = RedisCluster.slot("x");
        int owner = cluster.ownerOf(slot);
        assertThatThrownBy(() -> cluster.migrateSlot(-1, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cluster.migrateSlot(slot, owner, owner)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cluster.migrateSlot(slot, (owner + 1) % 3, owner))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not own");
    }

    @Test
    void startsMastersWithReplicasAndStopsEverything() {
        List<RedisServer> nodes = new ArrayList<>();
        try (RedisCluster small = RedisCluster.builder().masters(3).replicasPerMaster(1)
                .nodeTimeout(java.time.Duration.ofMillis(2_000)).start()) {
            nodes.addAll(small.masters());
            nodes.addAll(small.replicas());
            assertThat(small.replicas()).hasSize(3);
            RedisServer replica = small.replicas().get(0);
            try (RawRedis raw = RawRedis.connect(replica.host(), replica.port())) {
                assertThat((String) raw.call("INFO", "replication")).contains("role:slave")
                        .contains("master_port:" + small.masters().get(0).port());
                List<Object> timeout = new ArrayList<>((List<?>) raw.call("CONFIG", "GET", "cluster-node-timeout"));
                assertThat(timeout).containsExactly("cluster-node-timeout", "2000");
            }
        }
        assertThat(nodes).noneMatch(RedisServer::isRunning);
        assertThatThrownBy(() -> RedisCluster.builder().masters(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisCluster.builder().replicasPerMaster(3))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisCluster.builder().nodeTimeout(java.time.Duration.ofMillis(50)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
