package io.echomq.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.testkit.ChildJvm;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario 8: a worker JVM running 16 handlers is stopped with {@code SIGSTOP} past its lease, then
 * continued. Each handler checks its lease the moment it resumes, before it writes
 * ({@link GuardCheckMain}): every {@code job.leaseLost()} must answer true and every
 * {@code job.isHeld()} false, so no stale handler writes. The checks are decided on the monotonic
 * clock at the call; they must not wait for a renewal tick or answer to get round to it.
 */
class Scenario8PausedGuardTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final int JOBS = 16;
    private static final String QUEUE = "s8";
    private static final long LEASE_MS = 1000;
    private static final long GAP_MS = 1500;      // a handler that sees this gap in its own progress was paused
    private static final long PAUSE_MS = 3000;    // three leases
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    @Timeout(value = 120)
    void everyHandlerResumedPastItsLeaseSeesItLostBeforeItWrites() throws Exception {
        try (QueueClient client = QueueClient.create(REDIS.url());
             ChildJvm worker = ChildJvm.start(GuardCheckMain.class.getName(), line -> { },
                     REDIS.url(), QUEUE, Integer.toString(JOBS), Long.toString(LEASE_MS), Long.toString(GAP_MS))) {
            Queue q = client.queue(QUEUE);
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                ids.add(q.enqueue("guarded write " + i));
            }
            for (String id : ids) {
                worker.awaitLine(l -> l.equals("CLAIMED " + id + " 1"), WAIT);
            }
            worker.pause();
            long pausedAt = System.nanoTime();
            // Past every lease on the server's clock, and past the handlers' gap, before the resume.
            await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> q.stats().overdue() == JOBS
                    && System.nanoTime() - pausedAt >= TimeUnit.MILLISECONDS.toNanos(PAUSE_MS));
            worker.resume();
            for (String id : ids) {
                worker.awaitLine(l -> l.startsWith("CHECK " + id + " 1 "), WAIT);
            }
            List<String> checks = worker.lines().stream().filter(l -> l.startsWith("CHECK ")).toList();
            long passedLeaseLost = checks.stream().filter(l -> l.contains("leaseLost=false")).count();
            long passedIsHeld = checks.stream().filter(l -> l.contains("isHeld=true")).count();
            List<String> writes = worker.lines().stream().filter(l -> l.startsWith("WROTE ")).toList();
            Reliability.report(8, Reliability.figures("name", "paused-guard", "handlers", JOBS, "lease_ms", LEASE_MS,
                    "pause_ms", PAUSE_MS, "passed_leaseLost", passedLeaseLost, "passed_isHeld", passedIsHeld,
                    "stale_writes", writes.size()));
            assertThat(checks).hasSize(JOBS);
            assertThat(checks).as("every check on resume answers lost")
                    .allMatch(l -> l.endsWith(" leaseLost=true isHeld=false"));
            assertThat(writes).as("stale writes").isEmpty();
            worker.send("stop");
            assertThat(worker.awaitExit(WAIT)).contains(0);
        }
    }
}
