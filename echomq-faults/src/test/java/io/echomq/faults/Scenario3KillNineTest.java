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
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario 3: worker JVMs process 50,000 jobs while they are killed with {@code kill -9} at random moments, at
 * least 20 times, each killed JVM started again at once. Nothing may be lost: every job ends done, no completion of
 * a stale attempt is accepted, and no done job is claimed again. No handler fails and a job is killed mid-flight far
 * fewer times than its three attempts, so a dead job here is a fault too (a reaped job dead-lettered instead of
 * returned to pending), and none may end dead.
 */
class Scenario3KillNineTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final int JOBS = 50_000;
    private static final int WORKERS = 4;
    private static final int KILLS = 24;   // spread over the run: one per JOBS / KILLS completions, at a random point
    private static final String QUEUE = "s3";

    @Test
    @Timeout(value = 240)
    void nothingIsLostWhenWorkersAreKilledMidJob() throws Exception {
        QueueHistory history = new QueueHistory();
        List<ChildJvm> workers = new ArrayList<>();
        try (QueueClient client = QueueClient.create(REDIS.url())) {
            Queue q = client.queue(QUEUE);
            q.setRetention(QueueRetention.defaults());   // the checks read every job's final hash: keep completed ones
            List<JobRequest> batch = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                batch.add(JobRequest.of(i % 10 == 0 ? "sleep:5" : "sleep:1"));
                if (batch.size() == 5_000) {
                    history.enqueued(q.enqueueAll(batch).stream().map(EnqueueResult::id).toList());
                    batch.clear();
                }
            }
            for (int i = 0; i < WORKERS; i++) {
                workers.add(ChildJvm.start(WorkerMain.class.getName(), Reliability.reports(history),
                        REDIS.url(), QUEUE, "8", "1000", "300"));
            }
            ThreadLocalRandom random = ThreadLocalRandom.current();
            int kills = 0;
            long step = JOBS / KILLS;
            long nextKillAt = random.nextLong(step / 2, step);
            while (kills < KILLS) {
                long at = nextKillAt;
                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20))
                        .until(() -> q.stats().completed() >= at);
                workers.get(random.nextInt(WORKERS)).restart();  // kill -9, then start again
                kills++;
                nextKillAt = kills * step + random.nextLong(step);
            }
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100)).until(() -> {
                QueueStats s = q.stats();
                return s.drained() && s.completed() + s.dead() >= JOBS;
            });
            QueueStats stats = q.stats();
            Reliability.awaitReportsRead(workers);
            QueueHistory.Report report = history.check(Reliability.finals(REDIS.url(), QUEUE, history.enqueuedIds()));
            Reliability.report(3, Reliability.figures("name", "kill-9-workers", "jobs", JOBS, "workers", WORKERS,
                    "kills", kills, "restarts", kills, "claims", report.claims(), "reclaimed",
                    report.claims() - JOBS, "completed_accepted", stats.completed(), "refused", report.refused(),
                    "done", report.done(), "dead", report.dead(), "lost", report.lost(),
                    "violations", report.violations().size()));
            assertThat(report.violations()).isEmpty();
            assertThat(report.lost()).isZero();
            assertThat(report.dead()).as("dead jobs, where no handler fails").isZero();
            assertThat(report.done()).isEqualTo(JOBS);
            assertThat(stats.completed()).isEqualTo(report.done());
            assertThat(kills).isGreaterThanOrEqualTo(20);
            // The kills hit jobs mid-flight: some jobs were claimed more than once and reaped back.
            assertThat(report.claims()).isGreaterThan(JOBS);
        } finally {
            workers.forEach(ChildJvm::close);
        }
    }
}
