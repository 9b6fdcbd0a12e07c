package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One logical queue over K partitions: where jobs go, how they are claimed, and the operators' calls. */
@Timeout(60)
class ShardedQueueTest extends QueueTestBase {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final int K = 3;

    /** A partition key that {@link ShardedQueue#partitionOf} sends to partition {@code p} of {@code k}. */
    static String keyFor(int p, int k, String stem) {
        for (int i = 0; ; i++) {
            if (ShardedQueue.partitionOf(stem + i, k) == p) {
                return stem + i;
            }
        }
    }

    private static int partitionOfId(String id) {
        return Integer.parseInt(id.substring(0, id.indexOf('-')));
    }

    private long zcard(String key) {
        return (Long) raw().call("ZCARD", key);
    }

    private long llen(String key) {
        return (Long) raw().call("LLEN", key);
    }

    @Test
    void roundRobinSpreadsEvenlyAndEachPartitionIsItsOwnHashTag() {
        ShardedQueue q = client.shardedQueue("orders", K);
        int perPartition = 7;
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < K * perPartition; i++) {
            ids.add(q.enqueue("job-" + i));
        }
        for (int p = 0; p < K; p++) {
            // priority 0: the partition's wait LIST (this test used to read the pending ZSET)
            assertThat(llen("emq:{orders#" + p + "}:wait")).as("partition %d", p).isEqualTo(perPartition);
            assertThat(q.partitionStats().get(p).pending()).isEqualTo(perPartition);
        }
        assertThat(q.stats().pending()).isEqualTo((long) K * perPartition);
        assertThat(ids).allMatch(id -> id.matches("[0-9]+-[0-9]+"));
        assertThat(new HashSet<>(ids)).hasSize(ids.size());
        assertThat(get("emq:{orders}:partitions")).isEqualTo(Integer.toString(K));
        assertThat(zcard("emq:{orders}:pending")).as("no plain queue of that name").isZero();
        assertThat(llen("emq:{orders}:wait")).as("no plain queue of that name").isZero();
    }

    @Test
    void idempotencyKeyDedupesAcrossInstancesBecauseItChoosesThePartition() {
        EnqueueOptions once = EnqueueOptions.defaults().withIdempotencyKey("invoice-9", Duration.ofMinutes(5));
        EnqueueResult first = client.shardedQueue("q", K).enqueue(bytes("a"), once);
        EnqueueResult second = client(b -> { }).shardedQueue("q", K).enqueue(bytes("b"), once);
        assertThat(first.created()).isTrue();
        assertThat(second.created()).isFalse();
        assertThat(second.id()).isEqualTo(first.id());
        assertThat(partitionOfId(first.id())).isEqualTo(ShardedQueue.partitionOf("invoice-9", K));
        assertThat(client.shardedQueue("q", K).stats().pending()).isEqualTo(1);
    }

    @Test
    void aPartitionKeyKeepsItsJobsInOnePartitionInEnqueueOrder() {
        ShardedQueue q = client.shardedQueue("q", K);
        String key = keyFor(1, K, "customer-");
        List<String> mine = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            mine.add(q.enqueue(key, bytes("mine-" + i), EnqueueOptions.defaults()).id());
            q.enqueue("other-" + i);
        }
        assertThat(mine).allMatch(id -> partitionOfId(id) == 1);
        List<String> claimedMine = new ArrayList<>();
        for (List<Job> batch = q.claim(7, LEASE); !batch.isEmpty(); batch = q.claim(7, LEASE)) {
            batch.stream().filter(j -> j.payloadUtf8().startsWith("mine-")).forEach(j -> claimedMine.add(j.id()));
        }
        assertThat(claimedMine).containsExactlyElementsOf(mine);
    }

    @Test
    @Tag("standalone-only")   // reads MONITOR of one server
    void enqueueAllSendsOneScriptPerPartitionAndAnswersInRequestOrder() throws Exception {
        ShardedQueue q = client.shardedQueue("q", K);
        List<JobRequest> requests = IntStream.range(0, 300).mapToObj(i -> JobRequest.of("bulk-" + i)).toList();
        client.queue("warm-up").enqueue("loads the script, so the count below has no NOSCRIPT retry");
        List<EnqueueResult> results;
        try (ClientCommandMonitor monitor = new ClientCommandMonitor(REDIS.server().host(), REDIS.server().port())) {
            raw().call("PING");
            results = q.enqueueAll(requests);
            Awaitility.await().until(() -> monitor.commands().stream().anyMatch(c -> c.line().contains("bulk-299")));
            List<ClientCommandMonitor.Command> scripts = monitor.commands().stream()
                    .filter(c -> c.name().equals("EVALSHA") || c.name().equals("EVAL")).toList();
            assertThat(scripts).as("one enqueue script per partition").hasSize(K);
        }
        assertThat(results).hasSize(requests.size());
        for (int i = 0; i < results.size(); i++) {
            assertThat(q.inspect(results.get(i).id()).orElseThrow().field("payload")).isEqualTo("bulk-" + i);
        }
        assertThat(q.partitionStats()).allMatch(s -> s.pending() == requests.size() / K);
    }

    @Test
    void aFloodedPartitionDoesNotStarveAnotherOne() {
        ShardedQueue q = client.shardedQueue("q", K);
        String flood = keyFor(0, K, "flood-");
        String few = keyFor(2, K, "few-");
        List<JobRequest> lots = IntStream.range(0, 500).mapToObj(i -> JobRequest.of("flood")).toList();
        q.enqueueAll(flood, lots);
        int fewJobs = 3;
        for (int i = 0; i < fewJobs; i++) {
            q.enqueue(few, bytes("few"), EnqueueOptions.defaults());
        }
        // Each call starts one partition further on, so partition 2 is asked first once in every K
        // calls and then gives up one job: its jobs are all out within fewJobs * K single claims.
        int claims = 0;
        int fewClaimed = 0;
        while (fewClaimed < fewJobs && claims < fewJobs * K) {
            Job job = q.claim(LEASE).orElseThrow();
            claims++;
            if (job.payloadUtf8().equals("few")) {
                fewClaimed++;
            }
        }
        assertThat(fewClaimed).as("few jobs claimed within %d claims", fewJobs * K).isEqualTo(fewJobs);
        assertThat(q.partitionStats().get(0).pending()).isGreaterThan(lots.size() - claims);
    }

    @Test
    void claimFillsABatchFromSeveralPartitions() {
        ShardedQueue q = client.shardedQueue("q", K);
        for (int p = 0; p < K; p++) {
            q.enqueue(keyFor(p, K, "k-"), bytes("p" + p), EnqueueOptions.defaults());
        }
        List<Job> jobs = q.claim(10, LEASE);
        assertThat(jobs).extracting(Job::payloadUtf8).containsExactlyInAnyOrder("p0", "p1", "p2");
        assertThat(jobs).allMatch(j -> j.queueName().equals("q"));
        for (Job j : jobs) {
            assertThat(j.complete()).isEqualTo(SettleOutcome.COMPLETED);
        }
        QueueStats s = q.stats();
        assertThat(s.completed()).isEqualTo(K);
        assertThat(s.drained()).isTrue();
        assertThat(q.claim(LEASE)).isEmpty();
    }

    @Test
    void removeAndInspectGoStraightToThePartitionNamedInTheId() {
        ShardedQueue q = client.shardedQueue("q", K);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < K; i++) {
            ids.add(q.enqueue("job-" + i));
        }
        String id = ids.get(1);
        assertThat(q.inspect(id)).hasValueSatisfying(info -> {
            assertThat(info.id()).isEqualTo(id);
            assertThat(info.state()).isEqualTo("pending");
        });
        Job held = q.claim(10, LEASE).stream().filter(j -> j.id().equals(id)).findFirst().orElseThrow();
        assertThat(q.remove(id, false)).isEqualTo(RemoveOutcome.LOCKED);
        assertThat(q.remove(id, true)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(held.complete()).isEqualTo(SettleOutcome.LEASE_LOST);
        assertThat(q.remove(id, true)).isEqualTo(RemoveOutcome.MISSING);
        assertThat(q.inspect(id)).isEmpty();
        assertThat(q.remove(K + 5 + "-1", false)).as("beyond the mark").isEqualTo(RemoveOutcome.MISSING);
        assertThat(q.inspect(K + 5 + "-1")).isEmpty();
        for (String bad : List.of("17", "x-1", "-1", "1-", "12345-1")) {
            assertThatThrownBy(() -> q.remove(bad, false)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("<partition>-<id>");
        }
    }

    @Test
    void deadLettersReapAndRedriveSpanThePartitions() {
        ShardedQueue q = client.shardedQueue("q", K);
        EnqueueOptions once = EnqueueOptions.defaults().withMaxAttempts(1);
        for (int i = 0; i < 2 * K; i++) {
            q.enqueue(bytes("doomed-" + i), once);
        }
        for (Job j : q.claim(2 * K, LEASE)) {
            assertThat(j.fail(new IllegalStateException("boom"))).isEqualTo(SettleOutcome.DEAD);
        }
        List<DeadJob> dead = q.dead(100);
        assertThat(dead).hasSize(2 * K);
        assertThat(dead.stream().map(d -> partitionOfId(d.id())).collect(Collectors.toSet())).hasSize(K);
        assertThat(dead).isSortedAccordingTo((a, b) -> Long.compare(a.diedAtMillis(), b.diedAtMillis()));
        assertThat(q.dead(2)).hasSize(2);
        assertThat(q.stats().dead()).isEqualTo(2L * K);

        assertThat(q.redrive(List.of(dead.get(0).id(), dead.get(1).id()))).isEqualTo(2);
        assertThat(q.purgeDead(List.of(dead.get(2).id()))).isEqualTo(1);
        assertThat(q.redrive(100)).isEqualTo(2L * K - 3);
        assertThat(q.stats().dead()).isZero();
        assertThat(q.stats().pending()).isEqualTo(2L * K - 1);

        // every partition's leases run out; one reap returns them all
        List<Job> leased = q.claim(100, Queue.MIN_LEASE);
        assertThat(leased).hasSize(2 * K - 1);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> q.stats().overdue() == leased.size());
        ReapResult r = q.reap(100);
        assertThat(r.returned() + r.dead()).isEqualTo(leased.size());
        assertThat(q.stats().active()).isZero();
    }

    @Test
    void promoteAndPurgeByLimitSpanThePartitions() {
        ShardedQueue q = client.shardedQueue("q", K);
        for (int i = 0; i < 2 * K; i++) {
            q.enqueue(bytes("later"), EnqueueOptions.defaults().withDelay(Duration.ofMillis(1)));
        }
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
            q.promote(100);
            return q.stats().pending() == 2L * K;
        });
        for (Job j : q.claim(100, LEASE)) {
            assertThat(j.failWithoutRetry("no")).isEqualTo(SettleOutcome.DEAD);
        }
        assertThat(q.purgeDead(K + 1)).isEqualTo(K + 1);
        assertThat(q.purgeDead(100)).isEqualTo(K - 1);
        assertThat(q.stats().dead()).isZero();
    }

    @Test
    void aClientDeclaringMorePartitionsRaisesTheMarkAndNoJobIsStranded() {
        ShardedQueue small = client.shardedQueue("q", 2);
        ShardedQueue big = client(b -> { }).shardedQueue("q", 4);
        assertThat(big.partitions()).isEqualTo(4);
        assertThat(small.partitions()).as("not yet refreshed").isEqualTo(2);
        for (int p = 0; p < 4; p++) {
            big.enqueue(keyFor(p, 4, "k-"), bytes("p" + p), EnqueueOptions.defaults());
        }
        assertThat(small.refresh()).isEqualTo(4);
        assertThat(small.declaredPartitions()).isEqualTo(2);
        assertThat(small.stats().pending()).isEqualTo(4);
        assertThat(small.claim(10, LEASE)).extracting(Job::payloadUtf8)
                .containsExactlyInAnyOrder("p0", "p1", "p2", "p3");

        // a client that declares fewer enqueues into its own few, but still spans the mark
        ShardedQueue fewer = client(b -> { }).shardedQueue("q", 1);
        assertThat(fewer.partitions()).isEqualTo(4);
        assertThat(fewer.enqueue("x")).startsWith("0-");
        assertThat(fewer.stats().active()).isEqualTo(4);
        assertThat(get("emq:{q}:partitions")).isEqualTo("4");
    }

    @Test
    void badInputIsRefusedBeforeRedisIsTouched() {
        assertThatThrownBy(() -> client.shardedQueue("q", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.shardedQueue("q", ShardedQueue.MAX_PARTITIONS + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.shardedQueue("q{x}", 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.queue("orders#1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partition");
        assertThatThrownBy(() -> client.shardedQueue("orders#12", 2)).isInstanceOf(IllegalArgumentException.class);
        assertThat(client.queue("orders#a").name()).isEqualTo("orders#a");
        assertThat(client.queue("#").name()).isEqualTo("#");
        ShardedQueue q = client.shardedQueue("q", 2);
        assertThatThrownBy(() -> q.enqueue("", bytes("x"), EnqueueOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> q.enqueueAll(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> q.claim(0, LEASE)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> q.reap(0)).isInstanceOf(IllegalArgumentException.class);
        for (int p = 0; p < 2; p++) {
            assertThat(raw().call("EXISTS", "emq:{q#" + p + "}:seq")).as("partition %d untouched", p).isEqualTo(0L);
        }
    }

    @Test
    void aMalformedMarkIsReportedNotGuessed() {
        raw().call("SET", "emq:{q}:partitions", "many");
        assertThatThrownBy(() -> client.shardedQueue("q", 2)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("emq:{q}:partitions");
        assertThat(get("emq:{q}:partitions")).isEqualTo("many");
    }

    @Test
    void partitionOfIsCrc32ModK() {
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update("customer-42".getBytes(StandardCharsets.UTF_8));
        assertThat(ShardedQueue.partitionOf("customer-42", 7)).isEqualTo((int) (crc.getValue() % 7));
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            seen.add(ShardedQueue.partitionOf("k" + i, 5));
        }
        assertThat(seen).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
    }

    private String get(String key) {
        Object v = raw().call("GET", key);
        return v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(v);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
