package io.echomq.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.SettleOutcome;
import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.EnqueueResult;
import io.echomq.queue.Job;
import io.echomq.queue.JobRequest;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueStats;
import io.echomq.queue.RemoveOutcome;
import io.echomq.queue.ShardedQueue;
import io.echomq.queue.Worker;
import io.echomq.server.RawRedis;
import io.echomq.server.RedisCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A sharded queue on a real three-master cluster: its partitions' slots fall on every master, and
 * each partition is served by its own master, with every script in one slot.
 */
@Timeout(120)
class ShardedClusterTest {
    private static final int K = 6;
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static RedisCluster cluster;
    private static RawRedis raw;
    private static String name;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.start();
        raw = cluster.raw();
        name = nameOnEveryMaster();
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

    /** A queue name whose K partitions' slots fall on every master. */
    private static String nameOnEveryMaster() {
        for (int i = 0; ; i++) {
            if (owners("orders-" + i).size() == cluster.masters().size()) {
                return "orders-" + i;
            }
        }
    }

    private static Set<Integer> owners(String queue) {
        Set<Integer> owners = new HashSet<>();
        for (int p = 0; p < K; p++) {
            owners.add(cluster.ownerOf(RedisCluster.slot("emq:{" + queue + "#" + p + "}:pending")));
        }
        return owners;
    }

    @Test
    void jobsSpreadOverEveryMasterAndAWorkerRunsEachOnce() {
        try (QueueClient client = QueueClient.create(cluster.url())) {
            ShardedQueue q = client.shardedQueue(name, K);
            int jobs = 600;
            q.enqueueAll(IntStream.range(0, jobs).mapToObj(i -> JobRequest.of("job-" + i)).toList());
            for (int p = 0; p < K; p++) {
                assertThat(raw.call("LLEN", "emq:{" + name + "#" + p + "}:wait")).isEqualTo((long) jobs / K);
            }
            ConcurrentHashMap<String, Integer> runs = new ConcurrentHashMap<>();
            try (Worker w = client.worker(q, job -> runs.merge(job.id(), 1, Integer::sum)).concurrency(8)
                    .lease(Duration.ofSeconds(10)).shutdownGrace(Duration.ofSeconds(2)).start()) {
                await().atMost(WAIT).until(() -> q.stats().completed() == jobs);
            }
            assertThat(runs).hasSize(jobs);
            assertThat(runs.values()).allMatch(n -> n == 1);
            assertThat(q.partitionStats()).allMatch(s -> s.drained() && s.completed() == jobs / K);
        }
    }

    @Test
    void anIdleWorkerWakesOnAnEnqueueOnAnyMaster() {
        try (QueueClient client = QueueClient.create(cluster.url())) {
            ShardedQueue q = client.shardedQueue(name, K);
            CountDownLatch ran = new CountDownLatch(K);
            try (Worker w = client.worker(q, job -> ran.countDown()).idlePoll(Duration.ofHours(1))
                    .shutdownGrace(Duration.ofSeconds(2)).start()) {
                await().atMost(WAIT).until(w::isIdle);
                for (int p = 0; p < K; p++) {
                    q.enqueue(key(p), "late".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults());
                }
                await().atMost(WAIT).until(() -> ran.getCount() == 0);
            }
        }
    }

    @Test
    void operatorsWorkAcrossMasters() {
        try (QueueClient client = QueueClient.create(cluster.url())) {
            ShardedQueue q = client.shardedQueue(name, K);
            EnqueueOptions once = EnqueueOptions.defaults().withMaxAttempts(1)
                    .withIdempotencyKey("invoice-1", Duration.ofMinutes(1));
            EnqueueResult first = q.enqueue("a".getBytes(StandardCharsets.UTF_8), once);
            assertThat(q.enqueue("b".getBytes(StandardCharsets.UTF_8), once).id()).isEqualTo(first.id());
            for (int p = 0; p < K; p++) {
                q.enqueue(key(p), ("p" + p).getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults().withMaxAttempts(1));
            }
            List<Job> claimed = q.claim(100, Duration.ofSeconds(10));
            assertThat(claimed).hasSize(K + 1);
            for (Job j : claimed) {
                assertThat(j.fail("boom")).isEqualTo(SettleOutcome.DEAD);
            }
            assertThat(q.dead(100)).hasSize(K + 1);
            assertThat(q.stats()).isEqualTo(new QueueStats(0, 0, 0, K + 1, 0, K + 1, 0));
            assertThat(q.redrive(100)).isEqualTo(K + 1);
            assertThat(q.inspect(first.id()).orElseThrow().state()).isEqualTo("pending");
            assertThat(q.remove(first.id(), false)).isEqualTo(RemoveOutcome.REMOVED);
            assertThat(q.reap(100).returned()).isZero();
            assertThat(q.stats().pending()).isEqualTo(K);
        }
    }

    /** A partition key that sends a job to partition {@code p}. */
    private static String key(int p) {
        for (int i = 0; ; i++) {
            if (ShardedQueue.partitionOf("k" + i, K) == p) {
                return "k" + i;
            }
        }
    }
}
