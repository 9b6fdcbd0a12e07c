package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.server.RawRedis;
import io.echomq.server.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The load test: 8 workers, each with its own client as separate processes would have, 8
 * handlers each, work 20,000 jobs with seeded random failures (~10 %) and a few handlers (~0.2 %)
 * that stall past their lease, so that leases are lost, reaped and claimed again, and the stalled
 * handlers then try a stale completion. A history of every handler run and every settle is then
 * checked by code: every job ends done or dead exactly once, no completion of a superseded
 * attempt is ever accepted, and the server's counters agree with the history.
 */
@Timeout(120)
class WorkerConcurrencyTest extends QueueTestBase {
    private static final int WORKERS = 8;
    private static final int CONCURRENCY = 8;
    private static final int JOBS = 20_000;
    private static final long SEED = 0x5EEDL;
    private static final int FAIL_PER_10K = 1000;   // 10 %
    private static final int STALL_PER_10K = 20;    // 0.2 %
    private static final Duration LEASE = Duration.ofMillis(500);
    private static final EnqueueOptions OPTIONS = EnqueueOptions.defaults().withMaxAttempts(3)
            .withBackoff(Duration.ofMillis(1), Duration.ofMillis(5));

    private enum Kind { ENTER, EXIT, SETTLED, LOST, STALE }

    /** One line of the history; seq orders the lines as this process saw them. */
    private record Event(long seq, Kind kind, int worker, String id, long attempt, SettleOutcome outcome,
                         LeaseLossReason reason) {
    }

    private final AtomicLong seq = new AtomicLong();
    private final ConcurrentLinkedQueue<Event> history = new ConcurrentLinkedQueue<>();
    private final Map<String, CountDownLatch> claimedAgain = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    /** The longest a handler that does nothing took: how long a thread may wait for a CPU here. */
    private final AtomicLong longestTrivialHandler = new AtomicLong();

    private void record(Kind kind, int worker, Job job, SettleOutcome outcome, LeaseLossReason reason) {
        history.add(new Event(seq.incrementAndGet(), kind, worker, job.id(), job.attempt(), outcome, reason));
    }

    /** What the handler does with one attempt: a pure function of the seed, the id and the attempt. */
    private static int roll(String id, long attempt) {
        long h = mix(SEED ^ mix(Long.parseLong(id) * 1_000_003L + attempt));
        return (int) Math.floorMod(h, 10_000L);
    }

    private static long mix(long x) {
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        x ^= x >>> 33;
        x *= 0xc4ceb9fe1a85ec53L;
        x ^= x >>> 33;
        return x;
    }

    @Test
    void eightWorkersDrainTwentyThousandJobsWithFailuresAndLostLeases() throws Exception {
        RedisServer owner = REDIS.serverFor("emq:{q}:active");   // WATCH/MULTI must reach the queue's master
        try (RawRedis stallConnection = RawRedis.connect(owner.host(), owner.port())) {
            run(stallConnection);
        }
    }

    private void run(RawRedis stallConnection) throws Exception {
        List<Worker> workers = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
            int worker = w;
            QueueClient c = client(b -> b.retainCompleted(Duration.ofMinutes(10)));
            workers.add(c.worker("q", job -> handle(worker, job, stallConnection))
                    .concurrency(CONCURRENCY)
                    .lease(LEASE)
                    .maintenanceInterval(Duration.ofMillis(50))
                    .shutdownGrace(Duration.ofSeconds(5))
                    .listener(new WorkerListener() {
                        @Override
                        public void onSettled(Job job, SettleOutcome outcome, Throwable error) {
                            record(Kind.SETTLED, worker, job, outcome, null);
                        }

                        @Override
                        public void onLeaseLost(Job job, LeaseLossReason reason) {
                            record(Kind.LOST, worker, job, null, reason);
                        }
                    })
                    .start());
        }

        List<JobRequest> requests = new ArrayList<>(JOBS);
        for (int i = 0; i < JOBS; i++) {
            requests.add(new JobRequest(("job " + i).getBytes(StandardCharsets.UTF_8), OPTIONS));
        }
        long t0 = System.nanoTime();
        List<EnqueueResult> enqueued = queue.enqueueAll(requests);
        List<String> ids = enqueued.stream().map(EnqueueResult::id).toList();
        assertThat(new HashSet<>(ids)).hasSize(JOBS);

        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).until(() -> {
            QueueStats s = queue.stats();
            return s.drained() && s.completed() + s.dead() == JOBS;
        });
        long drainedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        // Let every worker finish its bookkeeping (listeners, stalled handlers) before reading the history.
        await().atMost(Duration.ofSeconds(20)).until(() -> workers.stream().allMatch(w -> w.runningJobs() == 0));
        List<ShutdownReport> reports = workers.stream().map(w -> w.shutdown(Duration.ofSeconds(5))).toList();
        assertThat(reports).allSatisfy(r -> assertThat(r.returned() + r.notReturned()).isZero());
        assertThat(problems).isEmpty();

        check(ids, workers, drainedMs);
    }

    private void handle(int worker, Job job, RawRedis stallConnection) throws Exception {
        long entered = System.nanoTime();
        record(Kind.ENTER, worker, job, null, null);
        CountDownLatch later = claimedAgain.get(job.id() + "/" + (job.attempt() - 1));
        if (later != null) {
            later.countDown();
        }
        int roll = roll(job.id(), job.attempt());
        if (roll < STALL_PER_10K) {
            stall(worker, job, stallConnection);
            return;
        }
        record(Kind.EXIT, worker, job, null, null);
        longestTrivialHandler.accumulateAndGet(System.nanoTime() - entered, Math::max);
        if (roll < STALL_PER_10K + FAIL_PER_10K) {
            throw new IllegalStateException("seeded failure of " + job);
        }
    }

    /**
     * Simulates a handler whose process stalls past its lease (a GC pause, a stopped VM): its lease
     * runs out on the server, it is reaped and claimed again, and the handler, waking up, still
     * tries to complete. A real pause would also stop the renewals; here the renewals go on, so the
     * lease is made to run out by moving its deadline into the past, only while this attempt still
     * holds it. The handler then waits for the stop its worker requests when it learns of the
     * loss, goes on waiting (as a paused process would) until the job was claimed again, and tries
     * its stale completion.
     */
    private void stall(int worker, Job job, RawRedis redis) throws Exception {
        String jobKey = "emq:{q}:job:" + job.id();
        CountDownLatch reclaimed = claimedAgain.computeIfAbsent(job.id() + "/" + job.attempt(),
                k -> new CountDownLatch(1));
        synchronized (redis) {
            redis.call("WATCH", jobKey);
            Object attempts = redis.call("HGET", jobKey, "attempts");
            if (String.valueOf(job.attempt()).equals(attempts)) {
                redis.call("MULTI");
                redis.call("ZADD", "emq:{q}:active", "XX", "0", job.id());
                redis.call("EXEC");
            } else {
                redis.call("UNWATCH");
            }
        }
        // The worker asks the handler to stop once it learns that the lease is lost.
        try {
            job.stopSignal().get(10, TimeUnit.SECONDS);
            if (!job.leaseLost()) {
                problems.add(job + ": asked to stop, but leaseLost() is false");
            }
        } catch (java.util.concurrent.TimeoutException e) {
            problems.add(job + ": handler not asked to stop 10 s after its lease deadline was moved into the past");
        } catch (InterruptedException e) {
            problems.add(job + ": interrupted, though the worker does not interrupt handlers");
        }
        // On its last attempt the job is reaped to dead and never claimed again: do not wait long.
        long waitMs = job.spentAttempts() < job.maxAttempts() ? 5000 : 300;
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        while (System.nanoTime() < until) {
            try {
                if (reclaimed.await(until - System.nanoTime(), TimeUnit.NANOSECONDS)) {
                    break;
                }
            } catch (InterruptedException e) {
                problems.add(job + ": interrupted twice");
            }
        }
        record(Kind.EXIT, worker, job, null, null);
        try {
            record(Kind.STALE, worker, job, job.complete(), null);
        } catch (RuntimeException e) {
            problems.add(job + ": stale complete threw " + e);
        }
    }

    private void check(List<String> ids, List<Worker> workers, long drainedMs) {
        List<Event> events = history.stream().sorted(Comparator.comparingLong(Event::seq)).toList();
        Map<String, List<Event>> byId = events.stream().collect(Collectors.groupingBy(Event::id));
        Set<String> deadSet = new HashSet<>();
        for (Object o : (List<?>) raw().call("ZRANGE", "emq:{q}:dead", "0", "-1")) {
            deadSet.add(o.toString());
        }
        QueueStats stats = queue.stats();
        assertThat(stats.drained()).isTrue();
        assertThat(stats.completed() + stats.dead()).as("none lost").isEqualTo(JOBS);
        assertThat(byId.keySet()).as("every job ran").containsExactlyInAnyOrderElementsOf(ids);

        List<String> violations = new ArrayList<>();
        long completed = 0;
        long dead = 0;
        long retries = 0;
        long failedAccepted = 0;
        long staleRefused = 0;
        long lost = 0;
        long reapedToDead = 0;
        for (String id : ids) {
            List<?> h = (List<?>) raw().call("HMGET", "emq:{q}:job:" + id, "state", "attempts", "dead_reason");
            String state = (String) h.get(0);
            long finalAttempts = Long.parseLong((String) h.get(1));
            String deadReason = (String) h.get(2);
            List<Event> mine = byId.get(id);

            Map<Long, Long> exitSeq = new HashMap<>();
            Set<Long> entered = new HashSet<>();
            List<Event> enters = new ArrayList<>();
            List<Event> accepted = new ArrayList<>();
            Set<Long> lostOnServer = new HashSet<>();
            for (Event e : mine) {
                switch (e.kind()) {
                    case ENTER -> {
                        if (!entered.add(e.attempt())) {
                            violations.add(id + ": attempt " + e.attempt() + " ran twice");
                        }
                        if (e.attempt() > finalAttempts) {
                            violations.add(id + ": attempt " + e.attempt() + " ran, above the final " + finalAttempts);
                        }
                        enters.add(e);
                    }
                    case EXIT -> exitSeq.put(e.attempt(), e.seq());
                    case SETTLED -> {
                        if (e.outcome() == SettleOutcome.LEASE_LOST) {
                            break;
                        }
                        accepted.add(e);
                    }
                    case LOST -> {
                        lost++;
                        if (e.reason() != LeaseLossReason.DEADLINE_PASSED) {
                            lostOnServer.add(e.attempt());
                        }
                    }
                    case STALE -> {
                        if (e.outcome() == SettleOutcome.LEASE_LOST) {
                            staleRefused++;
                        } else {
                            violations.add(id + ": stale completion of attempt " + e.attempt() + " was " + e.outcome());
                        }
                    }
                    default -> throw new AssertionError(e);
                }
            }

            Set<Long> settledAttempts = new HashSet<>();
            long lastAttempt = 0;
            List<Event> completions = new ArrayList<>();
            for (Event s : accepted) {
                if (!settledAttempts.add(s.attempt())) {
                    violations.add(id + ": two accepted settles of attempt " + s.attempt());
                }
                if (s.attempt() <= lastAttempt) {
                    violations.add(id + ": accepted settle of attempt " + s.attempt() + " after one of " + lastAttempt);
                }
                lastAttempt = s.attempt();
                if (lostOnServer.contains(s.attempt())) {
                    violations.add(id + ": attempt " + s.attempt() + " was reported lost by the server yet settled as "
                            + s.outcome());
                }
                // No settle sent after a later attempt was claimed may be accepted: its handler ended
                // (EXIT) after that claim had already happened on the server (ENTER follows the claim).
                Long exit = exitSeq.get(s.attempt());
                for (Event later : enters) {
                    if (later.attempt() > s.attempt() && exit != null && later.seq() < exit) {
                        violations.add(id + ": " + s.outcome() + " of attempt " + s.attempt()
                                + " accepted though attempt " + later.attempt() + " was claimed before it was sent");
                    }
                }
                switch (s.outcome()) {
                    case COMPLETED -> completions.add(s);
                    case RETRYING -> {
                        retries++;
                        failedAccepted++;
                    }
                    case DEAD -> failedAccepted++;
                    default -> violations.add(id + ": unexpected outcome " + s.outcome());
                }
            }

            if ("done".equals(state)) {
                completed++;
                if (completions.size() != 1) {
                    violations.add(id + ": done with " + completions.size() + " accepted completions");
                } else if (completions.get(0).attempt() != finalAttempts) {
                    violations.add(id + ": completion of attempt " + completions.get(0).attempt()
                            + " accepted, but the final attempt is " + finalAttempts);
                }
                if (deadSet.contains(id)) {
                    violations.add(id + ": done and in the dead set");
                }
            } else if ("dead".equals(state)) {
                dead++;
                if (!completions.isEmpty()) {
                    violations.add(id + ": dead with an accepted completion");
                }
                if (!deadSet.contains(id)) {
                    violations.add(id + ": dead but not in the dead set");
                }
                Event last = accepted.isEmpty() ? null : accepted.get(accepted.size() - 1);
                boolean failedToDead = last != null && last.outcome() == SettleOutcome.DEAD
                        && last.attempt() == finalAttempts;
                boolean reaped = deadReason != null && deadReason.startsWith("lease expired on");
                if (reaped) {
                    reapedToDead++;
                }
                if (failedToDead == reaped) {
                    violations.add(id + ": dead (" + deadReason + ") but the history ends with " + last);
                }
            } else {
                violations.add(id + ": final state " + state);
            }
        }

        long acceptedCompletions = events.stream()
                .filter(e -> e.kind() == Kind.SETTLED && e.outcome() == SettleOutcome.COMPLETED).count();
        long settledLost = events.stream()
                .filter(e -> e.kind() == Kind.SETTLED && e.outcome() == SettleOutcome.LEASE_LOST).count();
        long stalls = events.stream().filter(e -> e.kind() == Kind.STALE).count();
        WorkerCounts sum = workers.stream().map(Worker::counts).reduce(new WorkerCounts(0, 0, 0, 0, 0, 0),
                (a, b) -> new WorkerCounts(a.completed() + b.completed(), a.retrying() + b.retrying(),
                        a.dead() + b.dead(), a.leaseLost() + b.leaseLost(), a.returned() + b.returned(),
                        a.ackErrors() + b.ackErrors()));
        System.out.printf("%d jobs, %d workers x %d handlers, drained in %d ms (%.0f jobs/s)%n", JOBS, WORKERS,
                CONCURRENCY, drainedMs, JOBS * 1000.0 / drainedMs);
        System.out.printf("completed %d, dead %d (%d reaped on their last attempt), retries %d, leases lost %d "
                        + "(settles refused %d), stalled handlers %d, stale completions refused %d%n",
                completed, dead, reapedToDead, retries, lost, settledLost, stalls, staleRefused);
        System.out.println("worker counts summed: " + sum);
        Set<String> stalled = events.stream().filter(e -> e.kind() == Kind.STALE)
                .map(e -> e.id() + "/" + e.attempt()).collect(Collectors.toSet());
        System.out.printf("longest run of a handler that does nothing: %d ms (how long a thread waited for a CPU)%n",
                TimeUnit.NANOSECONDS.toMillis(longestTrivialHandler.get()));
        System.out.println("lease losses (stalled handlers or not, by reason): " + events.stream()
                .filter(e -> e.kind() == Kind.LOST)
                .collect(Collectors.groupingBy(e -> (stalled.contains(e.id() + "/" + e.attempt()) ? "stalled " : "other ")
                        + e.reason(), java.util.TreeMap::new, Collectors.counting())));
        if (!violations.isEmpty()) {
            violations.stream().limit(30).forEach(v -> System.out.println("VIOLATION " + v));
        }
        assertThat(violations).as("history violations").isEmpty();

        assertThat(completed).isEqualTo(stats.completed());
        assertThat(dead).isEqualTo(stats.dead());
        assertThat(acceptedCompletions).as("server's completed counter").isEqualTo(stats.completed());
        assertThat(failedAccepted).as("server's failed counter").isEqualTo(stats.failed());
        assertThat(sum.completed()).isEqualTo(acceptedCompletions);
        assertThat(sum.retrying()).isEqualTo(retries);
        assertThat(sum.ackErrors()).isZero();
        // The scenario really happened: failures retried, leases lost and stale completions refused.
        assertThat(retries).isGreaterThan(JOBS / 20);
        assertThat(stalls).isGreaterThan(0);
        assertThat(staleRefused).isEqualTo(stalls);
        assertThat(lost).isGreaterThanOrEqualTo(stalls);
    }
}
