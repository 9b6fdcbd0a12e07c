package io.echomq.queue;

import static io.echomq.queue.ShardedQueueTest.keyFor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A worker on a sharded queue claims from every partition, fairly, and keeps each partition's leases. */
@Timeout(90)
class ShardedWorkerTest extends QueueTestBase {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int K = 4;

    private ShardedQueue sharded() {
        return client.shardedQueue("q", K);
    }

    @Test
    void drainsEveryPartitionExactlyOnce() {
        ShardedQueue q = sharded();
        int jobs = 400;
        q.enqueueAll(IntStream.range(0, jobs).mapToObj(i -> JobRequest.of("job-" + i)).toList());
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        try (Worker w = client.worker(q, job -> runs.computeIfAbsent(job.id(), id -> new AtomicInteger())
                .incrementAndGet()).concurrency(8).shutdownGrace(Duration.ofSeconds(2)).start()) {
            await().atMost(WAIT).until(() -> q.stats().completed() == jobs);
            assertThat(w.queueName()).isEqualTo("q");
            assertThat(w.counts().completed()).isEqualTo(jobs);
        }
        assertThat(runs).hasSize(jobs);
        assertThat(runs.values()).allMatch(n -> n.get() == 1);
        assertThat(q.partitionStats()).allMatch(s -> s.completed() == jobs / K && s.drained());
    }

    @Test
    void aWorkerBuiltByNameServesTheQueueAsStored() {
        ShardedQueue q = sharded();
        int jobs = 40;
        q.enqueueAll(IntStream.range(0, jobs).mapToObj(i -> JobRequest.of("job-" + i)).toList());
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        // By name, from another client that never declared the count: the stored one is read.
        try (QueueClient other = QueueClient.create(REDIS.url());
             Worker w = other.worker("q", job -> runs.computeIfAbsent(job.id(), id -> new AtomicInteger())
                     .incrementAndGet()).concurrency(4).shutdownGrace(Duration.ofSeconds(2)).start()) {
            await().atMost(WAIT).until(() -> q.stats().completed() == jobs);
            assertThat(w.queueName()).isEqualTo("q");
        }
        assertThat(runs).hasSize(jobs);
        assertThat(runs.values()).allMatch(n -> n.get() == 1);
        assertThat(q.partitionStats()).allMatch(s -> s.completed() == jobs / K && s.drained());
        // A plain queue's name still gives a plain queue's worker.
        client.queue("plain").enqueue("one");
        try (Worker w = client.worker("plain", job -> { }).start()) {
            await().atMost(WAIT).until(() -> client.queue("plain").stats().completed() == 1);
        }
    }

    @Test
    void aFloodedPartitionDoesNotStarveAPartitionWithAFewJobs() throws Exception {
        ShardedQueue q = sharded();
        int flood = 2000;
        int few = 5;
        int concurrency = 2;
        q.enqueueAll(keyFor(0, K, "flood-"), IntStream.range(0, flood).mapToObj(i -> JobRequest.of("flood")).toList());
        for (int i = 0; i < few; i++) {
            q.enqueue(keyFor(3, K, "few-"), "few".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults());
        }
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch fewDone = new CountDownLatch(few);
        try (Worker w = client.worker(q, job -> {
            order.add(job.payloadUtf8());
            if (job.payloadUtf8().equals("few")) {
                fewDone.countDown();
            }
        }).concurrency(concurrency).shutdownGrace(Duration.ofSeconds(2)).start()) {
            assertThat(fewDone.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            w.shutdown(Duration.ofSeconds(2));
        }
        // Every claim round starts one partition further on and claims at most `concurrency` jobs,
        // so partition 3 comes first at least once in K rounds and gives up a job each time.
        int bound = few * K * concurrency;
        int lastFew;
        synchronized (order) {
            lastFew = order.lastIndexOf("few");
        }
        assertThat(lastFew).as("the few jobs ran among the first %d of %d", bound, order.size()).isLessThan(bound);
        assertThat(q.partitionStats().get(0).pending()).as("the flood is still there").isPositive();
    }

    @Test
    void anIdleWorkerWakesOnAnEnqueueIntoAnyPartition() {
        ShardedQueue q = sharded();
        CountDownLatch ran = new CountDownLatch(1);
        try (Worker w = client.worker(q, job -> ran.countDown()).idlePoll(Duration.ofHours(1))
                .shutdownGrace(Duration.ofSeconds(2)).start()) {
            await().atMost(WAIT).until(w::isIdle);
            q.enqueue(keyFor(K - 1, K, "late-"), "late".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults());
            // the idle poll is an hour: only the wake message on partition K-1's channel can start it
            await().atMost(WAIT).until(() -> ran.getCount() == 0);
        }
    }

    @Test
    void renewsTheLeasesOfEachPartitionOnItsOwnPartition() throws Exception {
        ShardedQueue q = sharded();
        List<String> ids = new ArrayList<>();
        for (int p = 0; p < K; p++) {
            ids.add(q.enqueue(keyFor(p, K, "r-"), "hold".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults())
                    .id());
        }
        CountDownLatch release = new CountDownLatch(1);
        Duration lease = Duration.ofMillis(600);
        try (Worker w = client.worker(q, job -> {
            if (!release.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
        }).concurrency(K).lease(lease).shutdownGrace(Duration.ofSeconds(2)).start()) {
            await().atMost(WAIT).until(() -> q.stats().active() == K);
            Map<String, Double> first = new ConcurrentHashMap<>();
            for (String id : ids) {
                first.put(id, activeScore(id));
            }
            // each lease is held past three of its lengths, so it must have been renewed in its own partition
            await().atMost(WAIT).until(() -> ids.stream().allMatch(id -> {
                Double now = activeScore(id);
                return now != null && now > first.get(id) + 3 * lease.toMillis();
            }));
            release.countDown();
            await().atMost(WAIT).until(() -> q.stats().completed() == K);
            assertThat(w.counts().leaseLost()).isZero();
        }
    }

    @Test
    void maintenanceReapsEveryPartitionAndShutdownReturnsEveryPartitionsLeases() throws Exception {
        ShardedQueue q = sharded();
        for (int p = 0; p < K; p++) {
            q.enqueue(keyFor(p, K, "m-"), "crashed".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults());
        }
        // a consumer that "crashes" holding a lease in every partition
        assertThat(q.claim(K, Queue.MIN_LEASE)).hasSize(K);
        CountDownLatch hold = new CountDownLatch(1);
        AtomicInteger started = new AtomicInteger();
        Worker w = client.worker(q, job -> {
            started.incrementAndGet();
            hold.await();
        }).concurrency(K).maintenanceInterval(Duration.ofMillis(50)).shutdownGrace(Duration.ZERO).start();
        try {
            await().atMost(WAIT).until(() -> started.get() == K);
            assertThat(q.partitionStats()).allMatch(s -> s.active() == 1 && s.pending() == 0);
        } finally {
            ShutdownReport report = w.shutdown(Duration.ZERO);
            assertThat(report.returned()).isEqualTo(K);
        }
        assertThat(q.partitionStats()).allMatch(s -> s.pending() == 1 && s.active() == 0);
    }

    @Test
    void aWorkerSpansPartitionsAnotherClientAddsWhileItRuns() {
        ShardedQueue two = client.shardedQueue("grow", 2);
        AtomicInteger done = new AtomicInteger();
        try (Worker w = client.worker(two, job -> done.incrementAndGet()).maintenanceInterval(Duration.ofMillis(50))
                .shutdownGrace(Duration.ofSeconds(2)).start()) {
            ShardedQueue five = client(b -> { }).shardedQueue("grow", 5);
            for (int p = 0; p < 5; p++) {
                five.enqueue(keyFor(p, 5, "g-"), "g".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults());
            }
            await().atMost(WAIT).until(() -> done.get() == 5);
            assertThat(two.partitions()).isEqualTo(5);
            assertThat(five.stats().completed()).isEqualTo(5);
        }
    }

    private Double activeScore(String id) {
        String local = id.substring(id.indexOf('-') + 1);
        String partition = id.substring(0, id.indexOf('-'));
        Object v = raw().call("ZSCORE", "emq:{q#" + partition + "}:active", local);
        return v == null ? null : Double.valueOf(v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8)
                : v.toString());
    }
}
