package io.echomq.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.queue.EnqueueResult;
import io.echomq.queue.JobRequest;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueRetention;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueStats;
import io.echomq.testkit.ChildJvm;
import io.echomq.testkit.QueueHistory;
import io.echomq.server.RawRedis;
import io.echomq.server.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Scenario 5: Redis is killed ({@code SIGKILL}) and restarted in the middle of a run of two {@code emq worker}
 * JVMs (the real CLI, running a shell command per job). Clients reconnect and the workers carry on by themselves.
 *
 * <ul>
 *   <li>With AOF and {@code appendfsync always}: nothing is lost, through two restarts; the lock's fence carries
 *       on above its value before the restart.</li>
 *   <li>Without persistence: exactly the loss docs/reliability.md states. The restarted server is empty: every
 *       job enqueued before it (done or not) is gone with the queue's counters, and the lock with its fence key;
 *       yet the next fence is still above the one before the restart (it is the server's clock). Jobs enqueued
 *       after the restart are all done by the same workers.</li>
 * </ul>
 */
class Scenario5RedisRestartTest {
    private static final int JOBS = 1_500;
    private static final int AFTER = 300;
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String QUEUE = "s5";
    private static final long LEASE_MS = 2_000;
    /**
     * Prints a claim report the history understands, through emq worker's stdout pass-through; the worker's
     * {@code --print-settled} adds the settle reports, once the server has answered them.
     */
    private static final String EXEC = "cat >/dev/null; echo \"CLAIMED $EMQ_JOB_ID $EMQ_JOB_ATTEMPT\"";

    private static ChildJvm startWorker(RedisServer redis, java.util.function.Consumer<String> onLine) {
        return ChildJvm.start("io.echomq.cli.Emq", onLine, "worker", QUEUE, "--redis", redis.url(), "--exec", EXEC,
                "--concurrency", "4", "--lease", Long.toString(LEASE_MS), "--print-settled");
    }

    private static List<ChildJvm> startWorkers(RedisServer redis, QueueHistory history) {
        List<ChildJvm> workers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            workers.add(startWorker(redis, history::record));
        }
        return workers;
    }

    private static List<String> enqueue(Queue q, int n) {
        List<JobRequest> jobs = new ArrayList<>(Collections.nCopies(n, JobRequest.of("payload")));
        return q.enqueueAll(jobs).stream().map(EnqueueResult::id).toList();
    }

    private static void awaitCompleted(Queue q, long atLeast) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                .until(() -> q.stats().completed() >= atLeast);
    }

    @Test
    @Timeout(value = 300)
    void withAofAlwaysNothingIsLostAcrossRestarts() throws Exception {
        QueueHistory history = new QueueHistory();
        List<ChildJvm> workers = List.of();
        try (RedisServer redis = RedisServer.builder().config("appendonly", "yes").config("appendfsync", "always")
                .start(); QueueClient client = QueueClient.create(redis.url());
             LockClient locks = LockClient.create(redis.url())) {
            Queue q = client.queue(QUEUE);
            q.setRetention(QueueRetention.defaults());   // the checks read every job's final hash: keep completed ones
            Lease before = locks.tryAcquire("s5-lock", Duration.ofMinutes(5)).orElseThrow();
            history.enqueued(enqueue(q, JOBS));
            workers = startWorkers(redis, history);
            awaitCompleted(q, JOBS / 3);
            redis.restart();
            awaitCompleted(q, 2 * JOBS / 3);
            redis.restart();
            await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(() -> {
                QueueStats s = q.stats();
                return s.drained() && s.completed() + s.dead() >= JOBS;
            });
            Reliability.awaitReportsRead(workers);
            QueueHistory.Report report = history.check(Reliability.finals(redis.url(), QUEUE, history.enqueuedIds()));
            // The lock survived both restarts: still held, and the next grant's fence is higher.
            boolean lockKept = locks.tryAcquire("s5-lock", Duration.ofSeconds(5)).isEmpty();
            before.release();
            long fenceAfter = locks.tryAcquire("s5-lock", Duration.ofSeconds(5)).orElseThrow().fence();
            Reliability.report(5, Reliability.figures("name", "redis-restart-aof-always", "restarts",
                    redis.restarts(), "workers", "emq-worker-x2", "jobs", JOBS, "claims", report.claims(),
                    "completions_reported", report.completed(), "completions_unanswered", report.unreported(),
                    "done", report.done(), "dead", report.dead(),
                    "lost", report.lost(), "lock_kept", lockKept,
                    "fence_before", before.fence(), "fence_after", fenceAfter,
                    "violations", report.violations().size()));
            assertThat(redis.restarts()).isEqualTo(2);
            assertThat(report.violations()).isEmpty();
            assertThat(report.lost()).isZero();
            assertThat(report.dead()).as("dead jobs, where no command fails").isZero();
            assertThat(report.done()).isEqualTo(JOBS);
            // The checks above ran on every reported completion. A completion the server applied (and the AOF kept)
            // whose answer died with the server is reported by nobody; at most every settle in flight at a restart
            // can be one: restarts × 2 workers × 4 commands.
            assertThat(report.completed() + report.unreported()).isEqualTo(report.done());
            assertThat(report.unreported()).as("completions whose answer died with the server")
                    .isLessThanOrEqualTo(redis.restarts() * 2L * 4);
            assertThat(lockKept).isTrue();
            assertThat(fenceAfter).isGreaterThan(before.fence());
            assertThat(workers).allMatch(ChildJvm::isAlive);   // they rode it out, nobody restarted them
        } finally {
            workers.forEach(ChildJvm::close);
        }
    }

    @Test
    @Timeout(value = 300)
    void withoutPersistenceARestartLosesExactlyWhatTheDocsSay() throws Exception {
        QueueHistory before = new QueueHistory();
        QueueHistory after = new QueueHistory();
        List<ChildJvm> workers = List.of();
        try (RedisServer redis = RedisServer.start(); QueueClient client = QueueClient.create(redis.url());
             LockClient locks = LockClient.create(redis.url())) {
            Queue q = client.queue(QUEUE);
            q.setRetention(QueueRetention.defaults());   // the checks read every job's final hash: keep completed ones
            locks.tryAcquire("s5-lock", Duration.ofMinutes(5)).orElseThrow().release();
            long fenceBefore = locks.tryAcquire("s5-lock", Duration.ofMinutes(5)).orElseThrow().fence();
            before.enqueued(enqueue(q, JOBS));
            QueueHistory[] current = {before};
            workers = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                workers.add(startWorker(redis, line -> current[0].record(line)));
            }
            awaitCompleted(q, JOBS / 3);
            redis.restart();
            QueueStats empty = await().atMost(WAIT).ignoreExceptions().until(q::stats, s -> s != null);
            Map<String, QueueHistory.Final> gone = Reliability.finals(redis.url(), QUEUE, before.enqueuedIds());
            long hashesLeft = gone.values().stream().filter(f -> f.state() != null).count();
            boolean lockForgotten = locks.tryAcquire("s5-lock", Duration.ofMinutes(5)).isPresent();
            long fenceAfter;
            try (RawRedis raw = RawRedis.connect(redis.host(), redis.port())) {
                fenceAfter = Long.parseLong((String) raw.call("GET", locks.fenceKey("s5-lock")));
            }

            // Workers resume on their own: jobs enqueued after the restart are all done. A settle in flight at the
            // restart is sent again until its job's lease runs out, and a complete that finds the hash gone is
            // reported COMPLETED; the emptied server numbers jobs and attempts from 1 again, so such a late report
            // could not be told from one of the jobs after. They are enqueued once every lease of before is over.
            Thread.sleep(LEASE_MS + 1_000);
            current[0] = after;
            q.setRetention(QueueRetention.defaults());   // the restart emptied the server, stored retention too
            after.enqueued(enqueue(q, AFTER));
            await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(() -> {
                QueueStats s = q.stats();
                return s.drained() && s.completed() + s.dead() >= AFTER;
            });
            Reliability.awaitReportsRead(workers);
            QueueHistory.Report resumed = after.check(Reliability.finals(redis.url(), QUEUE, after.enqueuedIds()));
            Reliability.report(5, Reliability.figures("name", "redis-restart-no-persistence", "restarts",
                    redis.restarts(), "workers", "emq-worker-x2", "jobs_before", JOBS, "claims_before",
                    before.claims(), "job_hashes_left", hashesLeft, "lost_before", JOBS - hashesLeft,
                    "counters_after", empty.pending() + "/" + empty.active() + "/" + empty.delayed() + "/"
                            + empty.dead() + "/" + empty.completed(),
                    "lock_forgotten", lockForgotten, "fence_before", fenceBefore, "fence_after", fenceAfter,
                    "jobs_after", AFTER, "done_after", resumed.done(), "completions_reported_after",
                    resumed.completed(), "dead_after", resumed.dead(), "lost_after", resumed.lost(),
                    "violations", resumed.violations().size()));
            // The documented loss, exactly: an empty server.
            assertThat(hashesLeft).isZero();
            assertThat(empty).isEqualTo(new QueueStats(0, 0, 0, 0, 0, 0, 0));
            assertThat(lockForgotten).isTrue();
            assertThat(fenceAfter).as("the fence survives the data loss").isGreaterThan(fenceBefore);
            // And nothing more: work enqueued afterwards is done by the same worker processes.
            assertThat(resumed.violations()).isEmpty();
            assertThat(resumed.dead()).isZero();
            assertThat(resumed.done()).isEqualTo(AFTER);
            assertThat(resumed.completed()).as("no restart after these: every completion was answered")
                    .isEqualTo(resumed.done());
            assertThat(resumed.unreported()).isZero();
            assertThat(workers).allMatch(ChildJvm::isAlive);
        } finally {
            workers.forEach(ChildJvm::close);
        }
    }
}
