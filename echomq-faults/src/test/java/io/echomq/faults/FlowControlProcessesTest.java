package io.echomq.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.EnqueueResult;
import io.echomq.queue.JobRequest;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueRetention;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueStats;
import io.echomq.testkit.ChildJvm;
import io.echomq.testkit.QueueHistory;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Flow control across worker processes: 4 worker JVMs ({@link WorkerMain}, concurrency 8) share one queue.
 *
 * <ol>
 *   <li>Rate limit 50 per second: the claims of all four, by their {@code claimed_at} on the server's clock,
 *       never put more than 50 in any second over 10 s, and reach at least 90% of the limit.</li>
 *   <li>Cap 3: {@code ZCARD active}, sampled all along, never exceeds 3; then every worker is killed with
 *       {@code kill -9} while three places are held, and the restarted workers get the places back once the
 *       dead leases are reaped. The history checker finds no job lost and no fence reused.</li>
 * </ol>
 */
class FlowControlProcessesTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final String QUEUE = "flow";
    private static final int WORKERS = 4;

    @Test
    @Timeout(value = 120)
    void theRateLimitAndTheCapHoldAcrossProcessesAndAKilledHoldersPlacesFree() throws Exception {
        QueueHistory history = new QueueHistory();
        List<ChildJvm> workers = new ArrayList<>();
        try (QueueClient client = QueueClient.create(REDIS.url())) {
            Queue q = client.queue(QUEUE);
            q.setRetention(QueueRetention.defaults());   // the checks read every job's final hash: keep completed ones
            int max = 50;
            long window = 1000;
            long measured = 10_000;                 // the 10 s the limit must hold over
            q.flowControl().setRateLimit(max, Duration.ofMillis(window));
            List<String> rated = enqueue(q, history, 700, "sleep:1");   // more than 10 s of work at the limit
            for (int i = 0; i < WORKERS; i++) {
                workers.add(ChildJvm.start(WorkerMain.class.getName(), Reliability.reports(history),
                        REDIS.url(), QUEUE, "8", "1000", "300"));
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> claimedAt(rated.get(0)) > 0);
            long t0 = claimedAt(rated.get(0));
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> serverMillis() >= t0 + measured + 50);
            q.flowControl().clearRateLimit();

            List<Long> starts = new ArrayList<>();
            for (String id : rated) {
                long at = claimedAt(id);
                if (at > 0 && at < t0 + measured) {
                    starts.add(at);
                }
            }
            starts.sort(null);
            int worst = 0;
            for (int i = 0; i < starts.size(); i++) {
                int in = 0;
                for (int j = i; j < starts.size() && starts.get(j) < starts.get(i) + window; j++) {
                    in++;
                }
                worst = Math.max(worst, in);
            }
            System.out.printf("rate %d/%d ms over %d processes: %d started in %d ms, worst window %d%n", max, window,
                    WORKERS, starts.size(), measured, worst);
            assertThat(worst).as("starts in any %d ms, over every process", window).isLessThanOrEqualTo(max);
            assertThat((long) starts.size()).as("within 10%% of the limit").isGreaterThanOrEqualTo(max * measured / window * 9 / 10);
            await().atMost(Duration.ofSeconds(30)).until(() -> q.stats().drained());

            // the cap, sampled on the server while 4 processes of 8 slots each want more
            q.flowControl().setConcurrencyCap(3);
            AtomicLong most = new AtomicLong();
            AtomicBoolean sampling = new AtomicBoolean(true);
            Thread sampler = new Thread(() -> {
                while (sampling.get()) {
                    most.accumulateAndGet((Long) REDIS.raw().call("ZCARD", "emq:{" + QUEUE + "}:active"), Math::max);
                    Thread.onSpinWait();
                }
            });
            sampler.start();
            enqueue(q, history, 60, "sleep:20");
            await().atMost(Duration.ofSeconds(60)).until(() -> q.stats().drained());
            // three long jobs hold every place; then every worker dies with them
            List<String> held = enqueue(q, history, 3, "sleep:1500");
            List<String> after = enqueue(q, history, 6, "sleep:1");
            await().atMost(Duration.ofSeconds(30)).until(() -> q.stats().active() == 3);
            for (ChildJvm w : workers) {
                w.restart();   // kill -9, then start again
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                QueueStats s = q.stats();
                return s.drained() && s.completed() >= history.enqueuedIds().size();
            });
            sampling.set(false);
            sampler.join();
            System.out.printf("cap 3 over %d processes: at most %d active%n", WORKERS, most.get());
            assertThat(most.get()).as("active jobs, sampled on the server").isEqualTo(3);
            assertThat(held).as("the dead holders' jobs were reaped and run again")
                    .allSatisfy(id -> assertThat(Long.parseLong(field(id, "attempts"))).isGreaterThanOrEqualTo(2));
            Reliability.awaitReportsRead(workers);
            QueueHistory.Report report = history.check(Reliability.finals(REDIS.url(), QUEUE, history.enqueuedIds()));
            assertThat(report.violations()).isEmpty();
            assertThat(report.lost()).isZero();
            assertThat(report.dead()).as("no handler fails").isZero();
            assertThat(after).allSatisfy(id -> assertThat(state(id)).isEqualTo("done"));
        } finally {
            workers.forEach(ChildJvm::close);
        }
    }

    private static List<String> enqueue(Queue q, QueueHistory history, int n, String payload) {
        List<JobRequest> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(JobRequest.of(payload));
        }
        List<String> ids = q.enqueueAll(batch).stream().map(EnqueueResult::id).toList();
        history.enqueued(ids);
        return ids;
    }

    private static String field(String id, String name) {
        Object v = REDIS.raw().call("HGET", "emq:{" + QUEUE + "}:job:" + id, name);
        return v == null ? null : v instanceof byte[] b ? new String(b) : v.toString();
    }

    private static String state(String id) {
        return field(id, "state");
    }

    private static long claimedAt(String id) {
        String v = field(id, "claimed_at");
        return v == null ? -1 : Long.parseLong(v);
    }

    private static long serverMillis() {
        List<?> t = (List<?>) REDIS.raw().call("TIME");
        return Long.parseLong(text(t.get(0))) * 1000 + Long.parseLong(text(t.get(1))) / 1000;
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b) : String.valueOf(o);
    }
}
