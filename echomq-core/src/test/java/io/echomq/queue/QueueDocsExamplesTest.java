package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The snippets of docs/queue.md and the README's queue tour, verbatim apart from the server URL and
 * lines marked "test:", so that the documentation cannot drift from an API that compiles and
 * behaves as it says.
 */
class QueueDocsExamplesTest extends QueueTestBase {
    private static final Logger log = LoggerFactory.getLogger(QueueDocsExamplesTest.class);
    private final List<String> sent = new CopyOnWriteArrayList<>();
    private final Metrics metrics = new Metrics();
    private final List<Long> rendered = new CopyOnWriteArrayList<>();
    private final List<byte[]> processed = new CopyOnWriteArrayList<>();

    @Test
    void quickStart() {
        String url = REDIS.url();
        // --- docs/queue.md "Quick start" and README tour ---
        try (QueueClient client = QueueClient.create(url)) {
            Queue emails = client.queue("emails");
            String id = emails.enqueue("{\"to\":\"ada@example.com\"}");

            try (Worker worker = client.worker("emails", job -> send(job.payloadUtf8()))
                    .concurrency(8)
                    .lease(Duration.ofSeconds(30))
                    .start()) {
                // ... the worker runs until closed; close() is a graceful shutdown
                await().atMost(Duration.ofSeconds(10)).until(() -> emails.stats().completed() == 1); // test:
            }
        }
        // --- end ---
        assertThat(sent).containsExactly("{\"to\":\"ada@example.com\"}");
    }

    @Test
    void enqueueing() {
        byte[] payload = "monthly".getBytes(StandardCharsets.UTF_8);
        // --- docs/queue.md "Enqueueing" ---
        Queue q = client.queue("reports");

        String id = q.enqueue("plain text payload");                 // UTF-8
        String raw = q.enqueue(new byte[] {1, 2, 3});                // any bytes

        EnqueueResult r = q.enqueue(payload, EnqueueOptions.defaults()
                .withPriority(10)                                    // -1000..1000, higher first
                .withDelay(Duration.ofMinutes(5))                    // or .withRunAt(Instant)
                .withMaxAttempts(5)                                  // default 3
                .withBackoff(Duration.ofSeconds(2), Duration.ofMinutes(10))
                .withIdempotencyKey("report-2026-11", Duration.ofHours(24)));
        boolean added = r.created();     // false: the key named an existing job, whose id is r.id()

        List<EnqueueResult> many = q.enqueueAll(List.of(JobRequest.of("a"), JobRequest.of("b")));
        // --- end ---
        assertThat(added).isTrue();
        assertThat(q.enqueue(payload, EnqueueOptions.defaults()
                .withIdempotencyKey("report-2026-11", Duration.ofHours(24))))
                .isEqualTo(new EnqueueResult(r.id(), false));
        assertThat(many).hasSize(2).allMatch(EnqueueResult::created);
        QueueStats s = q.stats();
        assertThat(s.pending()).isEqualTo(4);
        assertThat(s.delayed()).isEqualTo(1);
        assertThat(q.claim(Duration.ofSeconds(5)).orElseThrow().id()).isEqualTo(id);
        assertThat(q.claim(Duration.ofSeconds(5)).orElseThrow().payload()).containsExactly(1, 2, 3);
        assertThat(raw).isNotEqualTo(id);
    }

    @Test
    void workers() {
        client.queue("reports").enqueue("r1");
        // --- docs/queue.md "Workers" ---
        Worker worker = client.worker("reports", job -> {
                    byte[] input = job.payload();
                    long attempt = job.attempt();          // the fence: 1, then 2 after a retry or a reap
                    render(input, attempt);
                })
                .concurrency(16)                            // handlers at once
                .lease(Duration.ofSeconds(30))              // renewed at a third of the lease
                .shutdownGrace(Duration.ofSeconds(20))      // close() waits this long for running jobs
                .listener(new WorkerListener() {
                    @Override
                    public void onSettled(Job job, AckOutcome outcome, Throwable error) {
                        metrics.count(outcome);
                    }
                })
                .start();
        // --- end ---
        try (worker) {
            await().atMost(Duration.ofSeconds(10)).until(() -> metrics.get(AckOutcome.COMPLETED) == 1);
        }
        assertThat(rendered).containsExactly(1L);
    }

    @Test
    void leaseLostLoop() {
        List<Row> rows = List.of(new Row(1), new Row(2), new Row(3));
        AtomicInteger seen = new AtomicInteger();
        JobHandler handler = job -> {
            // --- docs/queue.md "Lease loss" ---
            for (Row row : rows) {
                if (!job.isHeld()) {        // false once the lease is lost, or past its local deadline
                    return;                 // another worker may own the job now; stop before writing
                }
                process(row);
            }
            // --- end ---
            seen.incrementAndGet();
        };
        queue.enqueue("x");
        try (Worker w = client.worker("q", handler).start()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> queue.stats().completed() == 1);
        }
        assertThat(seen).hasValue(1);
    }

    @Test
    void claimingByHand() {
        Queue q = queue;
        q.enqueue("one");
        for (int i = 0; i < 3; i++) {
            q.enqueue("more-" + i);
        }
        AckOutcome[] seen = new AckOutcome[2];
        // --- docs/queue.md "Claiming by hand" ---
        Optional<Job> maybe = q.claim(Duration.ofSeconds(30));
        if (maybe.isPresent()) {
            Job job = maybe.get();
            try {
                process(job.payload());
                job.extend(Duration.ofSeconds(30));            // EXTENDED, or LEASE_LOST: stop
                AckOutcome done = job.complete();              // COMPLETED, or LEASE_LOST
                seen[0] = done;                                // test:
            } catch (Exception e) {
                AckOutcome failed = job.fail(e);               // RETRYING, DEAD, or LEASE_LOST
                seen[1] = failed;                              // test:
            }
        }
        List<Job> batch = q.claim(50, Duration.ofSeconds(30)); // up to 50 in one script
        // --- end ---
        assertThat(seen[0]).isEqualTo(AckOutcome.COMPLETED);
        assertThat(seen[1]).isNull();
        assertThat(batch).extracting(Job::payloadUtf8).containsExactly("more-0", "more-1", "more-2");
    }

    @Test
    void deadLetters() {
        Queue q = queue;
        q.enqueue("doomed".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults().withMaxAttempts(1));
        assertThat(q.claim(Duration.ofSeconds(5)).orElseThrow().fail("boom")).isEqualTo(AckOutcome.DEAD);
        List<String> reasons = new ArrayList<>();
        // --- docs/queue.md "Retries and dead letters" ---
        for (DeadJob d : q.dead(100)) {
            log.warn("{} died: {}\n{}", d.id(), d.reason(), d.lastError());
            reasons.add(d.reason());                    // test:
        }
        long again = q.redrive(100);              // back to pending with a fresh budget of attempts
        long gone  = q.purgeDead(100);            // delete for good
        // --- end ---
        assertThat(reasons).containsExactly("failed on attempt 1 of 1");
        assertThat(again).isEqualTo(1);
        assertThat(gone).isZero();
        assertThat(q.stats().pending()).isEqualTo(1);
    }

    @Test
    void operating() {
        Queue q = queue;
        String id = q.enqueue("held");
        Job held = q.claim(Duration.ofSeconds(30)).orElseThrow();
        // --- docs/queue.md "Operating a queue" ---
        QueueStats s = q.stats();          // pending, active, delayed, dead, completed, failed, overdue
        ReapResult r = q.reap(1000);       // returned / dead; workers do this by themselves
        RemoveOutcome o = q.remove(id, false);   // REMOVED, LOCKED (a worker holds it), MISSING
        Optional<JobInfo> info = q.inspect(id);  // every field of the job hash
        // --- end ---
        assertThat(s.active()).isEqualTo(1);
        assertThat(r).isEqualTo(new ReapResult(0, 0));
        assertThat(o).isEqualTo(RemoveOutcome.LOCKED);
        assertThat(info.orElseThrow().state()).isEqualTo("active");
        assertThat(held.id()).isEqualTo(id);
    }

    private void send(String payload) {
        sent.add(payload);
    }

    private void render(byte[] input, long attempt) {
        rendered.add(attempt);
    }

    private void process(byte[] payload) {
        processed.add(payload);
    }

    private void process(Row row) {
        processed.add(new byte[] {(byte) row.n()});
    }

    private record Row(int n) {
    }

    private static final class Metrics {
        private final ConcurrentHashMap<AckOutcome, AtomicInteger> counts = new ConcurrentHashMap<>();

        void count(AckOutcome outcome) {
            counts.computeIfAbsent(outcome, o -> new AtomicInteger()).incrementAndGet();
        }

        int get(AckOutcome outcome) {
            AtomicInteger n = counts.get(outcome);
            return n == null ? 0 : n.get();
        }
    }
}
