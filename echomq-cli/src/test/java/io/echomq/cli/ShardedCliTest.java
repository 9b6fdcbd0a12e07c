package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.ShardedQueue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code emq queue … --partitions k} and {@code emq worker … --partitions k} against a real server. */
@Timeout(120)
class ShardedCliTest extends QueueCliTestBase {
    private static final int K = 3;

    private static List<String> enqueue(int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            EmqRun run = emq("queue", "enqueue", "orders", "job-" + i, "--partitions", Integer.toString(K));
            assertThat(run.code()).as(run.err()).isZero();
            ids.add(run.out().strip());
        }
        return ids;
    }

    @Test
    void enqueuePrintsPartitionedIdsAndStatsShowsTheSumThenEachPartition() {
        // each run is a new client whose round-robin starts at a random partition
        List<String> ids = enqueue(2 * K);
        long[] perPartition = new long[K];
        for (String id : ids) {
            assertThat(id).matches("[0-9]+-[0-9]+");
            perPartition[Integer.parseInt(id.substring(0, id.indexOf('-')))]++;
        }

        EmqRun stats = emq("queue", "stats", "orders", "--partitions", Integer.toString(K));
        assertThat(stats.code()).isZero();
        List<String> lines = stats.out().lines().toList();
        assertThat(lines).hasSize(1 + K);
        assertThat(lines.get(0)).isEqualTo("pending=" + 2 * K + " active=0 delayed=0 dead=0 completed=0 failed=0 overdue=0 paused=0"
                + " limit=none cap=none throttled=no");
        for (int p = 0; p < K; p++) {
            assertThat(lines.get(1 + p)).isEqualTo("partition=" + p
                    + " pending=" + perPartition[p] + " active=0 delayed=0 dead=0 completed=0 failed=0 overdue=0 paused=0");
        }
        assertThat(emq("queue", "stats", "orders").out()).as("without --partitions: the stored count")
                .isEqualTo(stats.out());
    }

    @Test
    void forgettingPartitionsHidesNothingAndAWrongCountIsRefused() {
        enqueue(2);
        EmqRun stats = emq("queue", "stats", "orders");
        assertThat(stats.code()).isZero();
        assertThat(stats.out()).startsWith("pending=2 ").contains("partition=" + (K - 1) + " ");

        EmqRun more = emq("queue", "enqueue", "orders", "no flag");
        assertThat(more.out()).as("spread over the stored count").matches("[0-9]+-[0-9]+\n");
        assertThat(emq("queue", "inspect", "orders", more.out().strip()).out()).contains("payload=no flag");

        EmqRun keyed = emq("queue", "enqueue", "orders", "keyed", "--partition-key", "customer-42");
        assertThat(keyed.out()).startsWith(ShardedQueue.partitionOf("customer-42", K) + "-");

        for (String[] args : new String[][] {{"queue", "stats", "orders", "--partitions", "4"},
            {"queue", "enqueue", "orders", "x", "--partitions", "2"},
            {"worker", "orders", "--exec", "true", "--exit-when-idle", "--partitions", "4"}}) {
            EmqRun wrong = emq(args);
            assertThat(wrong.code()).as("%s", wrong).isEqualTo(ExitCodes.BAD_INPUT);
            assertThat(wrong.err()).contains("--partitions " + args[args.length - 1])
                    .contains("sharded into " + K + " partitions").hasLineCount(1);
        }
        assertThat(client.shardedQueue("orders", K).stats().pending()).isEqualTo(4);

        EmqRun run = emq("worker", "orders", "--exec", "cat >/dev/null", "--exit-when-idle");
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.err()).contains("stopped (queue drained): completed=4 ");
    }

    @Test
    void aPartitionKeyOnAPlainQueueIsRefused() {
        emq("queue", "enqueue", "plain", "x");
        EmqRun keyed = emq("queue", "enqueue", "plain", "y", "--partition-key", "c-1");
        assertThat(keyed.code()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(keyed.err()).contains("--partition-key needs a sharded queue");
        assertThat(emq("queue", "stats", "plain").out()).startsWith("pending=1 ");
    }

    @Test
    void anIdempotencyKeyNamesOneJobWhateverTheInstance() {
        String k = Integer.toString(K);
        EmqRun first = emq("queue", "enqueue", "orders", "a", "--key", "invoice-7", "--partitions", k);
        EmqRun again = emq("queue", "enqueue", "orders", "b", "--key", "invoice-7", "--partitions", k);
        assertThat(again.out()).isEqualTo(first.out());
        assertThat(again.err()).contains("existing job " + first.out().strip());
        assertThat(first.out().strip()).startsWith(ShardedQueue.partitionOf("invoice-7", K) + "-");
    }

    @Test
    void aPartitionKeyChoosesThePartition() {
        String k = Integer.toString(K);
        String expected = ShardedQueue.partitionOf("customer-42", K) + "-";
        for (int i = 0; i < 3; i++) {
            EmqRun run = emq("queue", "enqueue", "orders", "job-" + i, "--partitions", k, "--partition-key",
                    "customer-42");
            assertThat(run.code()).as(run.err()).isZero();
            assertThat(run.out()).isEqualTo(expected + (i + 1) + "\n");
        }
    }

    @Test
    void inspectRemoveAndDeadUseThePartitionedIds() {
        String k = Integer.toString(K);
        String id = enqueue(2).get(1);
        assertThat(emq("queue", "inspect", "orders", id, "--partitions", k).out()).startsWith("state=pending\n");
        assertThat(emq("queue", "remove", "orders", id, "--partitions", k)).isEqualTo(new EmqRun(0, "REMOVED\n", ""));
        assertThat(emq("queue", "remove", "orders", id, "--partitions", k).out()).isEqualTo("MISSING\n");

        ShardedQueue q = client.shardedQueue("orders", K);
        String doomed = q.enqueue("doomed".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults().withMaxAttempts(1))
                .id();
        Job job = q.claim(10, Duration.ofSeconds(30)).stream().filter(j -> j.id().equals(doomed)).findFirst()
                .orElseThrow();
        assertThat(job.fail("boom")).hasToString("DEAD");
        assertThat(emq("queue", "dead", "orders", "--partitions", k).out()).startsWith(doomed + "\t")
                .contains("\tboom");
        assertThat(emq("queue", "dead", "orders", "--partitions", k, "--retry", "--yes").out()).isEqualTo("redriven=1\n");
    }

    @Test
    void aWorkerDrainsEveryPartition() {
        enqueue(3 * K);
        EmqRun run = emq("worker", "orders", "--partitions", Integer.toString(K), "--exec",
                "echo \"$EMQ_QUEUE $EMQ_JOB_ID\"", "--exit-when-idle");
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out().lines().toList()).hasSize(3 * K).allMatch(l -> l.matches("orders [0-9]+-[0-9]+"));
        assertThat(run.err()).contains("stopped (queue drained): completed=" + 3 * K + " ");
        assertThat(client.shardedQueue("orders", K).stats())
                .isEqualTo(new io.echomq.queue.QueueStats(0, 0, 0, 0, 3 * K, 0, 0));
    }

    @Test
    void badPartitionInputExitsTwoBeforeRedisIsTouched() {
        String url = "redis://127.0.0.1:" + EmqRun.closedPort();
        EmqRun zero = EmqRun.at(url, "queue", "stats", "orders", "--partitions", "0");
        assertThat(zero.code()).isEqualTo(2);
        assertThat(zero.err()).startsWith("emq queue stats: Invalid value for option '--partitions': 0 is outside 1.."
                + ShardedQueue.MAX_PARTITIONS);
        EmqRun worker = EmqRun.at(url, "worker", "orders", "--exec", "true", "--partitions", "5000");
        assertThat(worker.code()).isEqualTo(2);
        assertThat(worker.err()).contains("--partitions");
        EmqRun plainId = EmqRun.at(url, "queue", "remove", "orders", "17", "--partitions", "3");
        assertThat(plainId.code()).isEqualTo(2);
        assertThat(plainId.err()).contains("<partition>-<id>");
        EmqRun plainInspect = EmqRun.at(url, "queue", "inspect", "orders", "x-1", "--partitions", "3");
        assertThat(plainInspect.code()).isEqualTo(2);
        EmqRun partitionName = EmqRun.at(url, "queue", "enqueue", "orders#1", "x");
        assertThat(partitionName.code()).isEqualTo(2);
        assertThat(partitionName.err()).contains("names a partition of a sharded queue");
    }
}
