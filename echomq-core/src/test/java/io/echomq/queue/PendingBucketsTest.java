package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Pending buckets (docs/protocol.md, "Pending buckets"): a default-option job of the LIST layout
 * waits with no hash of its own, its payload a field of {@code emq:{q}:pb:<id / 128>}, and every
 * step that takes it out of pending makes its hash or drops it with its field.
 */
@Timeout(60)
class PendingBucketsTest extends SemanticsTestBase {
    /** The cancel test reads the cancelled job's hash, which the client keeps for its retention. */
    @Override
    Duration retainCompleted() {
        return Duration.ofHours(1);
    }

    private static String bucket(long id) {
        return P + "pb:" + id / 128;
    }

    private Object field(long id) {
        return raw().call("HGET", bucket(id), Long.toString(id));
    }

    @Test
    void aDefaultJobWaitsInItsBucketWithNoHashAndItsClaimWritesTheHashWhole() {
        String id = queue.enqueue("hello");
        assertThat(exists(jobKey(id))).as("no hash while it waits").isFalse();
        String value = field(Long.parseLong(id)).toString();
        assertThat(value).matches("\\d{13}:hello");
        assertThat(waiting()).containsExactly(id);

        Job job = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(job.id()).isEqualTo(id);
        assertThat(job.attempt()).isEqualTo(1);
        assertThat(new String(job.payload(), StandardCharsets.UTF_8)).isEqualTo("hello");
        Map<String, String> h = hash(id);
        assertThat(h).containsEntry("payload", "hello").containsEntry("attempts", "1").containsEntry("spent", "1")
                .containsEntry("state", "active").containsEntry("created_at", value.substring(0, 13))
                .containsKey("claimed_at");
        assertThat(exists(bucket(Long.parseLong(id)))).as("the claimed field is dropped, and the empty bucket with it")
                .isFalse();
        assertThat(job.complete()).isEqualTo(SettleOutcome.COMPLETED);
    }

    @Test
    void aBulkFillsOneBucketPer128IdsAndAClaimOfManyDrainsThemInOrder() {
        List<JobRequest> bulk = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            bulk.add(JobRequest.of("p" + i));
        }
        List<EnqueueResult> ids = queue.enqueueAll(bulk);
        long first = Long.parseLong(ids.get(0).id());
        assertThat((Long) raw().call("HLEN", bucket(first + 200))).isEqualTo(128L);
        assertThat((List<?>) raw().call("KEYS", P + "job:*")).isEmpty();

        List<String> seen = new ArrayList<>();
        while (seen.size() < 300) {
            for (Job j : queue.claim(50, LONG_LEASE)) {
                assertThat(new String(j.payload(), StandardCharsets.UTF_8)).isEqualTo("p" + seen.size());
                seen.add(j.id());
                assertThat(j.complete()).isEqualTo(SettleOutcome.COMPLETED);
            }
        }
        assertThat((List<?>) raw().call("KEYS", P + "pb:*")).as("every bucket drained").isEmpty();
    }

    @Test
    void inspectAndAWaiterSeeABucketedJobAsPending() throws InterruptedException {
        String id = queue.enqueue("look");
        JobInfo info = queue.inspect(id).orElseThrow();
        assertThat(info.state()).isEqualTo("pending");
        assertThat(info.attempts()).isZero();
        assertThat(info.payloadUtf8()).isEqualTo("look");
        assertThat(info.field("created_at")).matches("\\d{13}");
        assertThat(queue.awaitResult(id, Duration.ofMillis(200)).outcome())
                .as("a pending job has not ended: the wait times out rather than answer NOT_FOUND")
                .isEqualTo(JobResult.Outcome.TIMED_OUT);
    }

    /**
     * A claim moves a job from its bucket to its hash in one script; a reader that looked in the
     * hash first and the bucket second could fall between the two and call a live job missing.
     * Here readers chase a claimer over 600 jobs, each read aimed at the job being claimed.
     */
    @Test
    void aReaderRacingTheClaimAlwaysFindsTheJobInItsBucketOrItsHash() throws Exception {
        List<JobRequest> bulk = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            bulk.add(JobRequest.of("r" + i));
        }
        List<EnqueueResult> ids = queue.enqueueAll(bulk);
        AtomicInteger front = new AtomicInteger();
        CompletableFuture<Void> claimer = CompletableFuture.runAsync(() -> {
            while (front.get() < ids.size()) {
                queue.claim(LONG_LEASE).orElseThrow().complete();
                front.incrementAndGet();
            }
        });
        List<String> missed = new ArrayList<>();
        int reads = 0;
        int waits = 0;
        while (!claimer.isDone()) {
            int at = Math.min(front.get(), ids.size() - 1);
            String id = ids.get(at).id();
            reads++;
            if (queue.inspect(id).isEmpty()) {
                missed.add("inspect " + id);
            }
            if (reads % 8 == 0) {
                waits++;
                if (queue.awaitResult(id, Duration.ZERO).outcome() == JobResult.Outcome.NOT_FOUND) {
                    missed.add("awaitResult " + id);
                }
            }
        }
        claimer.get();
        assertThat(reads).as("the readers ran alongside the claims").isGreaterThan(50);
        assertThat(waits).isPositive();
        assertThat(missed).as("every read found the job, pending or claimed").isEmpty();
    }

    @Test
    void removeAndCancelTakeTheJobOutOfItsBucket() {
        String removed = queue.enqueue("r");
        String cancelled = queue.enqueue("c");
        assertThat(queue.remove(removed, false)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(field(Long.parseLong(removed))).isNull();
        assertThat(queue.remove(removed, false)).as("gone from everywhere").isEqualTo(RemoveOutcome.MISSING);

        assertThat(queue.cancel(cancelled)).isEqualTo(CancelOutcome.CANCELLED);
        assertThat(field(Long.parseLong(cancelled))).isNull();
        assertThat(waiting()).isEmpty();
        assertThat(queue.claim(LONG_LEASE)).isEmpty();
    }

    @Test
    void aCancelledJobKeepsItsPayloadInTheHashItGetsWhenRetentionAsks() {
        String id = queue.enqueue("kept");
        assertThat(queue.cancel(id)).isEqualTo(CancelOutcome.CANCELLED);
        assertThat(hash(id)).containsEntry("payload", "kept").containsEntry("state", "cancelled")
                .containsKey("created_at").containsKey("finished_at");
    }

    @Test
    void switchingToTheZsetLayoutGivesEveryBucketedJobItsHash() {
        String a = queue.enqueue("a");
        String b = queue.enqueue("b");
        queue.setLayout(QueueLayout.ZSET);
        assertThat((List<?>) raw().call("KEYS", P + "pb:*")).isEmpty();
        assertThat(hash(a)).containsEntry("payload", "a").containsKey("created_at");
        assertThat(hash(b)).containsEntry("payload", "b");
        assertThat(members(PENDING)).containsExactly(a, b);
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(job.id()).isEqualTo(a);
        assertThat(job.attempt()).isEqualTo(1);
    }

    @Test
    void theZsetLayoutAndExtraFieldsKeepOneHashPerJob() {
        queue.setLayout(QueueLayout.ZSET);
        String id = queue.enqueue("z");
        assertThat(hash(id)).containsEntry("payload", "z");
        assertThat((List<?>) raw().call("KEYS", P + "pb:*")).isEmpty();
    }

    @Test
    void aMalformedBucketValueSendsTheJobToDeadWithTheValueAsItsPayload() {
        String id = queue.enqueue("x");
        raw().call("HSET", bucket(Long.parseLong(id)), id, "not-a-value");
        assertThat(queue.claim(LONG_LEASE)).isEmpty();
        List<DeadJob> dead = queue.dead(10);
        assertThat(dead).hasSize(1);
        assertThat(dead.get(0).reason()).isEqualTo("pending bucket value is not <created_at>:<payload>");
        assertThat(dead.get(0).payloadUtf8()).isEqualTo("not-a-value");
        assertThat(field(Long.parseLong(id))).isNull();
    }

    @Test
    void aBucketOfAnotherTypeIsLeftAloneAndItsJobsGetAHashEach() {
        raw().call("SET", bucket(1), "foreign");
        String id = queue.enqueue("y");
        assertThat(get(bucket(1))).as("the foreign data is left alone").isEqualTo("foreign");
        assertThat(hash(id)).containsEntry("payload", "y").containsKey("created_at");
        assertThat(queue.inspect(id).orElseThrow().payloadUtf8()).isEqualTo("y");
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(job.id()).isEqualTo(id);
        assertThat(new String(job.payload(), StandardCharsets.UTF_8)).isEqualTo("y");
        assertThat(job.complete()).isEqualTo(SettleOutcome.COMPLETED);
    }

    @Test
    @Tag("standalone-only")   // reads INFO memory of one server (docs/scaling.md)
    void aPendingJobCostsUnder100BytesOfServerMemory() {
        int n = 20_000;
        raw().call("MEMORY", "PURGE");
        long before = usedMemory();
        List<JobRequest> chunk = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            chunk.add(JobRequest.of("{\"i\":" + i + "}"));
            if (chunk.size() == 1000) {
                queue.enqueueAll(chunk);
                chunk = new ArrayList<>();
            }
        }
        long perJob = (usedMemory() - before) / n;
        assertThat(pendingCount()).isEqualTo(n);
        assertThat(perJob).as("bytes per pending job").isLessThanOrEqualTo(100L);
    }

    private long usedMemory() {
        for (String line : raw().call("INFO", "memory").toString().split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        throw new AssertionError("INFO memory has no used_memory");
    }
}
