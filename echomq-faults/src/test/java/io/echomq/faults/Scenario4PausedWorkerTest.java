package io.echomq.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.SettleOutcome;
import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueRetention;
import io.echomq.queue.QueueClient;
import io.echomq.testkit.ChildJvm;
import io.echomq.testkit.QueueHistory;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario 4: a worker JVM is stopped with {@code SIGSTOP} while it runs three jobs; their leases run out, the
 * reaper returns them and another worker claims and completes them; then the stopped worker gets {@code SIGCONT}.
 * Its handlers return normally (they ignore interrupts), and every one of their jobs must settle {@code LEASE_LOST}:
 * the worker has counted the leases lost on its monotonic clock (so it does not send their completions), and a
 * completion that does reach the server is refused by the fence.
 */
class Scenario4PausedWorkerTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final int JOBS = 3;
    private static final String QUEUE = "s4";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    @Timeout(value = 120)
    void aWorkerPausedPastItsLeaseHasItsLateCompletionRefused() throws Exception {
        QueueHistory history = new QueueHistory();
        try (QueueClient client = QueueClient.create(REDIS.url());
             ChildJvm worker = ChildJvm.start(WorkerMain.class.getName(), Reliability.reports(history),
                     REDIS.url(), QUEUE, Integer.toString(JOBS), "600", "60000")) {
            Queue q = client.queue(QUEUE);
            q.setRetention(QueueRetention.defaults());   // the checks read every job's final hash: keep completed ones
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                ids.add(q.enqueue("hold:1500"));
            }
            history.enqueued(ids);
            await().atMost(WAIT).until(() -> history.claims() == JOBS);
            worker.pause();
            // Past the lease on the server's clock, then the reaper (here: this test) returns the jobs.
            await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> q.stats().overdue() == JOBS);
            assertThat(q.reap(100).returned()).isEqualTo(JOBS);
            List<Job> again = q.claim(JOBS, Duration.ofSeconds(30));
            assertThat(again).extracting(Job::attempt).containsOnly(2L);
            for (Job job : again) {
                history.claimed(job.id(), job.attempt());
                SettleOutcome outcome = job.complete();
                history.settled(job.id(), job.attempt(), outcome.name());
                assertThat(outcome).isEqualTo(SettleOutcome.COMPLETED);
            }
            worker.resume();
            for (String id : ids) {
                worker.awaitLine(l -> l.startsWith("SETTLED " + id + " 1 "), WAIT);
            }
            QueueHistory.Report report = history.check(Reliability.finals(REDIS.url(), QUEUE, ids));
            List<String> late = worker.lines().stream().filter(l -> l.startsWith("SETTLED ")).toList();
            Reliability.report(4, Reliability.figures("name", "paused-worker", "pauses", 1, "jobs", JOBS,
                    "lease_ms", 600, "reclaimed", again.size(), "completed_accepted", report.completed(),
                    "late_completions_refused", late.stream().filter(l -> l.endsWith(" LEASE_LOST")).count(),
                    "late_completions_accepted", late.stream().filter(l -> l.endsWith(" COMPLETED")).count(),
                    "lost", report.lost(), "violations", report.violations().size()));
            assertThat(late).hasSize(JOBS).allMatch(l -> l.endsWith(" 1 LEASE_LOST"));
            assertThat(report.violations()).isEmpty();
            assertThat(report.done()).isEqualTo(JOBS);
            assertThat(report.refused()).isEqualTo(JOBS);
            assertThat(q.stats().completed()).isEqualTo(JOBS);
        }
    }
}
