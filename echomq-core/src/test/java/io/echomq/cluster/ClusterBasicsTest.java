package io.echomq.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.ReleaseOutcome;
import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.Worker;
import io.echomq.server.RawRedis;
import io.echomq.server.RedisCluster;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lock and the queue through Lettuce's cluster client on a real three-master cluster: names
 * chosen so that their slots fall on every master, so every master serves scripts.
 */
class ClusterBasicsTest {
    private static RedisCluster cluster;
    private static RawRedis raw;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.start();
        raw = cluster.raw();
    }

    @AfterAll
    static void stop() {
        raw.close();
        cluster.close();
    }

    @BeforeEach
    void flush() {
        raw.call("FLUSHALL");
    }

    /** Names whose hash tags land on every master. */
    private static List<String> namesOnEveryMaster(String prefix, String keyFormat) {
        Set<Integer> owners = new HashSet<>();
        List<String> names = new java.util.ArrayList<>();
        for (int i = 0; owners.size() < cluster.masters().size(); i++) {
            String name = prefix + i;
            if (owners.add(cluster.ownerOf(RedisCluster.slot(String.format(keyFormat, name))))) {
                names.add(name);
            }
        }
        return names;
    }

    /** @return the clock of the cluster's first master in microseconds ({@code TIME}); one machine, one clock */
    private static long micros() {
        io.echomq.server.RedisServer m = cluster.masters().get(0);
        try (RawRedis r = RawRedis.connect(m.host(), m.port())) {
            List<?> t = (List<?>) r.call("TIME");
            return Long.parseLong(t.get(0).toString()) * 1_000_000L + Long.parseLong(t.get(1).toString());
        }
    }

    /** WAIT counts one connection's writes; on a cluster that is not yet ours to pick, so refuse. */
    @Test
    void waitForReplicasIsRefusedBeforeRedisOnACluster() {
        try (LockClient locks = LockClient.create(cluster.url())) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> locks.tryAcquire("wait-on-cluster",
                            Duration.ofSeconds(5), io.echomq.lock.AcquireOptions.defaults()
                                    .waitForReplicas(1, Duration.ofMillis(100))))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("cluster");
            assertThat(locks.inspect("wait-on-cluster").isHeld()).isFalse();
        }
    }

    /** The snippet of docs/scaling.md "Connecting", verbatim apart from the URL. */
    @Test
    void docsScalingExample() throws Exception {
        String url = cluster.url();
        long before = micros();
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        java.io.PrintStream out = System.out;
        System.setOut(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            // --- docs/scaling.md "Connecting" ---
            try (LockClient locks = LockClient.create(url);
                 QueueClient queues = QueueClient.create(url)) {
                try (Lease lease = locks.acquire("invoice-42", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
                    queues.queue("emails").enqueue("{\"to\":\"ada@example.com\"}");
                }
                System.out.println(queues.serverDescription());   // Redis Cluster 7.0.15 (3 masters, SPUBLISH: yes)
            }
            // --- end ---
        } finally {
            System.setOut(out);
        }
        // Named as the servers name themselves (server_name, valkey_version); SPUBLISH as COMMAND INFO finds it.
        boolean spublish = io.echomq.Capabilities.knows(cluster.masters().get(0), "spublish");
        assertThat(printed.toString(java.nio.charset.StandardCharsets.UTF_8).trim())
                .isEqualTo(cluster.product() + " Cluster " + cluster.version() + " (3 masters, SPUBLISH: "
                        + (spublish ? "yes" : "no") + ")");
        assertThat(raw.call("LLEN", "emq:{emails}:wait")).as("priority 0 waits in the LIST").isEqualTo(1L);
        // the fence key outlives the released lock by at most its ttl; its fence is the clock at the grant
        assertThat(Long.parseLong((String) raw.call("GET", "emq:lock:{invoice-42}:fence"))).isBetween(before, micros());
        assertThat((Long) raw.call("PTTL", "emq:lock:{invoice-42}:fence")).isBetween(1L, 30_000L);
        assertThat(raw.call("EXISTS", "emq:lock:{invoice-42}:lock")).isEqualTo(0L);
    }

    @Test
    void locksOnEveryMasterAcquireFenceRenewAndRelease() throws Exception {
        try (LockClient locks = LockClient.create(cluster.url())) {
            assertThat(locks.serverDescription()).startsWith(cluster.product() + " Cluster " + cluster.version())
                    .contains("3 masters");
            for (String r : namesOnEveryMaster("res-", "emq:lock:{%s}:lock")) {
                long before = micros();
                Lease first = locks.tryAcquire(r, Duration.ofSeconds(10)).orElseThrow();
                assertThat(first.fence()).as("a fresh resource's first fence is the clock").isBetween(before, micros());
                assertThat(locks.tryAcquire(r, Duration.ofSeconds(10))).isEmpty();
                assertThat(raw.call("GET", locks.lockKey(r))).isEqualTo(first.token());
                assertThat(locks.inspect(r).lastFence()).isEqualTo(first.fence());
                first.renew(Duration.ofSeconds(20));
                assertThat(first.release()).isEqualTo(ReleaseOutcome.RELEASED);
                Lease second = locks.acquire(r, Duration.ofSeconds(10), Duration.ofSeconds(5));
                assertThat(second.fence()).isGreaterThan(first.fence());
                assertThat(raw.call("GET", locks.fenceKey(r))).isEqualTo(Long.toString(second.fence()));
                second.close();
                assertThat(raw.call("EXISTS", locks.lockKey(r))).isEqualTo(0L);
            }
        }
    }

    @Test
    void queuesOnEveryMasterEnqueueClaimAndComplete() {
        try (QueueClient client = QueueClient.create(cluster.url())) {
            for (String name : namesOnEveryMaster("q", "emq:{%s}:pending")) {
                Queue q = client.queue(name);
                String id = q.enqueue("hello " + name);
                Optional<Job> job = q.claim(Duration.ofSeconds(10));
                assertThat(job).isPresent();
                assertThat(job.get().id()).isEqualTo(id);
                assertThat(job.get().payloadUtf8()).isEqualTo("hello " + name);
                job.get().complete();
                assertThat(q.stats().completed()).isEqualTo(1);
                assertThat(raw.call("EXISTS", "emq:{" + name + "}:job:" + id)).as("the default keeps no completed hash")
                        .isEqualTo(0L);
            }
        }
    }

    @Test
    void workersOnEveryMasterRunEveryJobOnce() {
        try (QueueClient client = QueueClient.create(cluster.url())) {
            List<String> names = namesOnEveryMaster("w", "emq:{%s}:pending");
            ConcurrentHashMap<String, Integer> runs = new ConcurrentHashMap<>();
            List<Worker> workers = new java.util.ArrayList<>();
            for (String name : names) {
                workers.add(client.worker(name, job -> runs.merge(name + "/" + job.id(), 1, Integer::sum))
                        .concurrency(4).lease(Duration.ofSeconds(10)).start());
            }
            for (String name : names) {
                for (int i = 0; i < 50; i++) {
                    client.queue(name).enqueue("job " + i);
                }
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> runs.size() == 50 * names.size());
            await().atMost(Duration.ofSeconds(10)).until(() -> names.stream()
                    .allMatch(n -> client.queue(n).stats().completed() == 50));
            assertThat(runs.values()).allMatch(n -> n == 1);
            workers.forEach(Worker::close);
        }
    }
}
