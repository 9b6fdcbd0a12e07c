package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.internal.Scripts;
import io.echomq.server.CommandTap;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The worker renews held leases in batches, and a lost lease stops its handler without stopping the worker. */
@Timeout(60)
class WorkerLeaseTest extends QueueTestBase {
    /** These tests read completed jobs' hashes: the test client keeps them for an hour. */
    @Override
    Duration retainCompleted() {
        return Duration.ofHours(1);
    }

    private static final Duration WAIT = Duration.ofSeconds(15);

    private Long activeScore(String id) {
        Object s = raw().call("ZSCORE", "emq:{q}:active", id);
        return s == null ? null : (long) Double.parseDouble(s.toString());
    }

    /** Whether the job's lease runs: its deadline in active is ahead of the server's clock. */
    private boolean leaseRuns(String id) {
        Long deadline = activeScore(id);
        return deadline != null && deadline > serverMillis();
    }

    private long serverMillis() {
        List<?> t = (List<?>) raw().call("TIME");
        return Long.parseLong(t.get(0).toString()) * 1000 + Long.parseLong(t.get(1).toString()) / 1000;
    }

    @Test
    void aJobRunningFiveTimesItsLeaseKeepsItByRenewal() throws Exception {
        RecordingListener events = new RecordingListener();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        String id = queue.enqueue("long job");
        try (Worker w = client.worker("q", job -> {
            started.countDown();
            try {
                release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                interrupted.set(true);
                throw e;
            }
        }).concurrency(1).lease(Duration.ofMillis(200)).maintenanceInterval(Duration.ofMillis(50))
                .listener(events).start()) {
            assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            long firstDeadline = activeScore(id);
            AtomicBoolean lockEverMissing = new AtomicBoolean();
            // Hold the job until the server's clock has moved 4 leases past the first deadline (so
            // the job has run ~5 leases); meanwhile the lease must run at every look.
            await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> {
                if (!leaseRuns(id)) {
                    lockEverMissing.set(true);
                }
                Long deadline = activeScore(id);
                return deadline == null || deadline >= firstDeadline + 800;
            });
            assertThat(activeScore(id)).as("still active, deadline moved on").isGreaterThanOrEqualTo(firstDeadline + 800);
            assertThat(lockEverMissing).as("lease ran out while the job ran").isFalse();
            long left = activeScore(id) - serverMillis();
            assertThat(left).isBetween(1L, 200L);
            assertThat(field(id, "attempts")).isEqualTo("1");
            assertThat(field(id, "state")).isEqualTo("active");

            release.countDown();
            await().atMost(WAIT).until(() -> events.settled(id).size() == 1);
            RecordingListener.Settled s = events.settled(id).get(0);
            assertThat(s.outcome()).isEqualTo(SettleOutcome.COMPLETED);
            assertThat(s.attempt()).isEqualTo(1);
            assertThat(s.job().leaseLost()).isFalse();
            assertThat(interrupted).isFalse();
            assertThat(events.lost()).isEmpty();
            assertThat(field(id, "state")).isEqualTo("done");
            assertThat(field(id, "attempts")).isEqualTo("1");
            assertThat(activeScore(id)).isNull();
            assertThat(w.counts().leaseLost()).isZero();
        }
    }

    @Test
    @Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
    void renewalOfManyHeldLeasesIsOneScriptCallPerTick() throws Exception {
        int jobs = 20;
        long leaseMs = 300;   // renewal tick every 50 ms, each lease renewed every 100 ms
        CountDownLatch started = new CountDownLatch(jobs);
        CountDownLatch release = new CountDownLatch(1);
        for (int i = 0; i < jobs; i++) {
            queue.enqueue("held-" + i);
        }
        RecordingListener events = new RecordingListener();
        try (Worker w = client.worker("q", job -> {
            started.countDown();
            release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
        }).concurrency(jobs).lease(Duration.ofMillis(leaseMs)).listener(events).start()) {
            assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            String sha = Scripts.EXTEND.sha();
            List<List<String>> extendCalls;
            long elapsedNanos;
            try (CommandTap tap = raw().monitor()) {
                long t0 = System.nanoTime();
                // Until every held job has been renewed in at least 5 extend calls.
                await().atMost(WAIT).until(() -> {
                    Map<String, Integer> perJob = renewalsPerJob(extendCalls(tap.commands(), sha));
                    return perJob.size() == jobs && perJob.values().stream().allMatch(n -> n >= 5);
                });
                elapsedNanos = System.nanoTime() - t0;
                extendCalls = extendCalls(tap.commands(), sha);
            }
            Map<String, Integer> perJob = renewalsPerJob(extendCalls);
            int renewals = perJob.values().stream().mapToInt(Integer::intValue).sum();
            int mostPerJob = perJob.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
            long ticks = TimeUnit.NANOSECONDS.toMillis(elapsedNanos) / (leaseMs / 6) + 1;
            System.out.printf("%d extend calls renewed %d leases of %d jobs in %d ms (%d ticks)%n",
                    extendCalls.size(), renewals, jobs, TimeUnit.NANOSECONDS.toMillis(elapsedNanos), ticks);
            assertThat(extendCalls.size()).as("at most one extend call per tick").isLessThanOrEqualTo((int) ticks);
            // Jobs claimed in one claim renew together; a tick falling between their claims can split
            // them into two groups at most. One call per job would be 20 calls per round.
            assertThat(extendCalls.size()).as("calls vs renewal rounds").isLessThanOrEqualTo(2 * mostPerJob);
            assertThat((double) renewals / extendCalls.size()).as("leases per call").isGreaterThanOrEqualTo(10.0);
            assertThat(events.lost()).isEmpty();
            assertThat(queue.stats().active()).isEqualTo(jobs);
            release.countDown();
            await().atMost(WAIT).until(() -> queue.stats().completed() == jobs);
            assertThat(w.counts().leaseLost()).isZero();
        }
    }

    private static List<List<String>> extendCalls(List<List<String>> commands, String sha) {
        return commands.stream()
                .filter(c -> c.size() > 4 && c.get(0).equalsIgnoreCase("EVALSHA") && c.get(1).equals(sha))
                .toList();
    }

    /** EVALSHA sha 1 active prefix lease (id attempt)... */
    private static Map<String, Integer> renewalsPerJob(List<List<String>> calls) {
        Map<String, Integer> perJob = new HashMap<>();
        for (List<String> c : calls) {
            for (int i = 6; i + 1 < c.size(); i += 2) {
                perJob.merge(c.get(i), 1, Integer::sum);
            }
        }
        return perJob;
    }

    @Test
    void withInterruptHandlersALeaseLostToANewerAttemptInterruptsTheHandlerAndTheWorkerCarriesOn() throws Exception {
        RecordingListener events = new RecordingListener();
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Throwable> seenByHandler = new AtomicReference<>();
        AtomicReference<Boolean> lostWhenInterrupted = new AtomicReference<>();
        Set<String> completedByHandler = ConcurrentHashMap.newKeySet();
        Map<String, Job> secondRun = new ConcurrentHashMap<>();
        String id = queue.enqueue("superseded");
        try (Worker w = client.worker("q", job -> {
            if (job.id().equals(id) && job.attempt() == 1) {
                started.countDown();
                try {
                    new CountDownLatch(1).await(WAIT.toSeconds(), TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    seenByHandler.set(e);
                    lostWhenInterrupted.set(job.leaseLost());
                    throw e;
                }
                return;
            }
            if (job.id().equals(id)) {
                secondRun.put(id, job);
            }
            completedByHandler.add(job.id());
        }).concurrency(2).lease(Duration.ofMillis(300)).maintenanceInterval(Duration.ofMillis(100))
                .interruptHandlers(true).listener(events).start()) {
            assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            // Another claimer's attempt moves the fence: the worker's next renewal is refused.
            raw().call("HINCRBY", "emq:{q}:job:" + id, "attempts", "1");

            await().atMost(WAIT).until(() -> seenByHandler.get() != null);
            assertThat(seenByHandler.get()).isInstanceOf(InterruptedException.class);
            assertThat(lostWhenInterrupted.get()).as("leaseLost() when the handler was interrupted").isTrue();
            await().atMost(WAIT).until(() -> events.settled(id).size() >= 1);
            RecordingListener.Settled first = events.settled(id).get(0);
            assertThat(first.attempt()).isEqualTo(1);
            assertThat(first.outcome()).isEqualTo(SettleOutcome.LEASE_LOST);
            assertThat(first.error()).isInstanceOf(InterruptedException.class);
            assertThat(first.job().leaseLost()).isTrue();
            assertThat(first.job().lossReason()).contains(LeaseLossReason.SUPERSEDED);
            assertThat(events.lost()).hasSize(1);
            assertThat(events.lost().get(0).id()).isEqualTo(id);
            assertThat(events.lost().get(0).attempt()).isEqualTo(1);
            assertThat(events.lost().get(0).reason()).isEqualTo(LeaseLossReason.SUPERSEDED);

            // The worker carries on: new work runs, and the stale job itself comes back by reaping
            // (its lease is no longer renewed) and is claimed again as attempt 3, spent 2.
            String other = queue.enqueue("next");
            await().atMost(WAIT).until(() -> completedByHandler.contains(other));
            await().atMost(WAIT).until(() -> "done".equals(field(id, "state")));
            assertThat(secondRun.get(id).attempt()).isEqualTo(3);
            assertThat(secondRun.get(id).spentAttempts()).isEqualTo(2);
            assertThat(events.outcomes(id)).containsExactly(SettleOutcome.LEASE_LOST, SettleOutcome.COMPLETED);
            assertThat(w.isRunning()).isTrue();
            WorkerCounts c = w.counts();
            assertThat(c.leaseLost()).isEqualTo(1);
            assertThat(c.completed()).isEqualTo(2);
            assertThat(c.retrying() + c.dead()).as("a lost lease is not failed").isZero();
            assertThat(queue.stats().failed()).isZero();
        }
    }

    @Test
    void aJobRemovedWhileRunningAsksItsHandlerToStopWithoutAnInterruptAndItsLateCompleteIsRefused() throws Exception {
        RecordingListener events = new RecordingListener();
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<SettleOutcome> lateComplete = new AtomicReference<>();
        AtomicBoolean interrupted = new AtomicBoolean();
        Set<String> completed = ConcurrentHashMap.newKeySet();
        String id = queue.enqueue("removed");
        try (Worker w = client.worker("q", job -> {
            if (job.id().equals(id)) {
                started.countDown();
                try {
                    job.stopSignal().get(WAIT.toSeconds(), TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    interrupted.set(true);
                }
                // a handler that insists on completing: the fence refuses it
                lateComplete.set(job.complete());
                return;
            }
            completed.add(job.id());
        }).concurrency(1).lease(Duration.ofMillis(300)).listener(events).start()) {
            assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(queue.remove(id, false)).as("held by the worker").isEqualTo(RemoveOutcome.LOCKED);
            assertThat(queue.remove(id, true)).isEqualTo(RemoveOutcome.REMOVED);

            await().atMost(WAIT).until(() -> lateComplete.get() != null);
            assertThat(lateComplete.get()).isEqualTo(SettleOutcome.LEASE_LOST);
            assertThat(interrupted).as("a loss does not interrupt by default").isFalse();
            await().atMost(WAIT).until(() -> events.settled(id).size() == 1);
            RecordingListener.Settled s = events.settled(id).get(0);
            assertThat(s.outcome()).isEqualTo(SettleOutcome.LEASE_LOST);
            assertThat(s.job().lossReason()).contains(LeaseLossReason.MISSING);
            assertThat(events.lost()).extracting(RecordingListener.Lost::reason).containsExactly(LeaseLossReason.MISSING);
            assertThat(queue.inspect(id)).isEmpty();
            assertThat(queue.stats().completed()).isZero();

            String other = queue.enqueue("after the removal");
            await().atMost(WAIT).until(() -> completed.contains(other));
            assertThat(w.counts().leaseLost()).isEqualTo(1);
            assertThat(w.counts().completed()).isEqualTo(1);
        }
    }

    /**
     * Regression: a renewal sent while a job's complete was on its way reached the server second,
     * was refused (NOT_ACTIVE), and the completed job was reported as a lost lease (about 2 % of
     * the jobs here). A server-side refusal can never precede an accepted completion, so any
     * such report for a completed job is spurious. On one server, MONITOR shows that the race
     * happened: some renewal of a job reached the server after the claim call that completed it.
     * On a cluster (no MONITOR) the test still checks that no spurious report is made.
     */
    @Test
    void renewalsRacingCompletionsNeverReportALostLease() {
        // The race is timing: a round of 1,000 jobs shows a few late renewals, now and then none.
        // Rounds repeat (each on a queue of its own) until one shows it, at most three; every
        // round must report no lost lease for a completed job.
        boolean watch = !io.echomq.testkit.RedisExtension.clusterMode();
        long late = 0;
        int rounds = watch ? 3 : 1;   // no MONITOR on a cluster: one round checks the reports
        for (int round = 0; round < rounds && late == 0; round++) {
            late += raceRound("race-" + round, watch);
        }
        if (watch) {
            assertThat(late).as("renewals that reached the server after their job's completion: the race")
                    .isPositive();
        }
    }

    /** @return the renewals that reached the server after their job's completion, from MONITOR (0 unwatched) */
    private long raceRound(String name, boolean watch) {
        int jobs = 1000;
        List<JobRequest> requests = new java.util.ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            requests.add(JobRequest.of("job-" + i));
        }
        Queue q = client.queue(name);
        q.enqueueAll(requests);
        RecordingListener events = new RecordingListener();
        List<List<String>> commands;
        // Each job works (simulated) for about one renewal interval (lease 300 ms: renewed every
        // 100 ms), so completions keep meeting renewals.
        try (CommandTap tap = watch ? raw().monitor() : null;
             Worker w = client.worker(name, job -> Thread.sleep(95 + (Long.parseLong(job.id()) % 15)))
                .concurrency(50).lease(Duration.ofMillis(300)).listener(events).start()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> q.stats().completed() == jobs);
            // Under a loaded machine a lease can really lapse (DEADLINE_PASSED) and its job run twice,
            // settling once as LEASE_LOST and once as COMPLETED: wait for the completions, not for
            // exactly one settle per job.
            await().atMost(WAIT).until(() -> events.count(SettleOutcome.COMPLETED) == jobs && w.runningJobs() == 0);
            commands = watch ? tap.commands() : List.of();
        }
        List<RecordingListener.Lost> spurious = events.lost().stream()
                .filter(l -> l.reason() != LeaseLossReason.DEADLINE_PASSED)
                .filter(l -> l.job().outcome().orElse(null) == SettleOutcome.COMPLETED)
                .toList();
        long late = renewalsAfterCompletion(commands);
        System.out.printf("%s: %d jobs completed, %d renewals reached the server after their job's completion, "
                + "%d lost-lease reports, %d of them for completed jobs%n", name, events.count(SettleOutcome.COMPLETED),
                late, events.lost().size(), spurious.size());
        assertThat(spurious).as("lost-lease reports for jobs whose completion was accepted").isEmpty();
        assertThat(events.count(SettleOutcome.COMPLETED)).isEqualTo(jobs);
        return late;
    }

    /**
     * Counts jobs renewed after the claim call that completed them, from MONITOR's record. The claim script's
     * layout is {@code EVALSHA sha 8 <8 keys> ARGV[1..7] (id attempt)...}, ARGV[7] the number of completions; the
     * extend script's is {@code EVALSHA sha 1 <active> prefix lease (id attempt)...}.
     */
    private static long renewalsAfterCompletion(List<List<String>> commands) {
        Map<String, Integer> completedAt = new HashMap<>();
        java.util.Set<String> late = new java.util.HashSet<>();
        for (int n = 0; n < commands.size(); n++) {
            List<String> c = commands.get(n);
            if (c.size() < 3 || !c.get(0).equalsIgnoreCase("EVALSHA")) {
                continue;
            }
            if (c.get(1).equals(Scripts.CLAIM.sha()) && c.size() > 17) {
                int completes = Integer.parseInt(c.get(17));
                for (int i = 0; i < completes; i++) {
                    completedAt.putIfAbsent(c.get(18 + 2 * i), n);
                }
            } else if (c.get(1).equals(Scripts.EXTEND.sha())) {
                for (int i = 6; i + 1 < c.size(); i += 2) {
                    Integer done = completedAt.get(c.get(i));
                    if (done != null && done < n) {
                        late.add(c.get(i));
                    }
                }
            }
        }
        return late.size();
    }

    /**
     * Regression: every renewal answered after a lease was lost told the listener again. The
     * server holds every command for three leases (CLIENT PAUSE), so the renewals sent meanwhile
     * wait there while the local deadline counts the lease lost; when the pause ends they are
     * answered EXPIRED, each one more loss of the same lease. The handler ignores the stop
     * and has not settled yet, so nothing else absorbs those answers. The listener hears it once.
     */
    @Test
    @Tag("standalone-only")   // CLIENT PAUSE of one server (docs/scaling.md)
    void aLeaseLostWhileRenewalsAreInFlightIsReportedOnce() throws Exception {
        RecordingListener events = new RecordingListener();
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean go = new AtomicBoolean();
        String id = queue.enqueue("held past its lease");
        try (Worker w = client.worker("q", job -> {
            if (job.attempt() > 1) {
                return;   // the reaper gave the job back after the pause: this run just completes
            }
            started.countDown();
            while (!go.get()) {   // a handler that does not stop when asked, nor when interrupted
                Thread.interrupted();
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
        }).concurrency(1).lease(Duration.ofMillis(300)).listener(events).start()) {
            assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            await().atMost(WAIT).until(() -> activeScore(id) != null);
            raw().call("CLIENT", "PAUSE", "900", "ALL");
            await().atMost(WAIT).until(() -> !events.lost().isEmpty());
            // this PING is answered once the pause is over, after the renewals it held
            assertThat(raw().call("PING")).isEqualTo("PONG");
            await("one lost-lease report, for 500 ms after the held renewals were answered")
                    .during(Duration.ofMillis(500)).atMost(WAIT).until(() -> events.lost().size() == 1);
            go.set(true);
            await().atMost(WAIT).until(() -> !events.settled(id).isEmpty());
        }
        assertThat(events.outcomes(id).get(0)).as("attempt 1's settle").isEqualTo(SettleOutcome.LEASE_LOST);
        assertThat(events.lost()).as("lost-lease reports for the one lost lease").hasSize(1);
        assertThat(events.lost().get(0).reason()).isEqualTo(LeaseLossReason.DEADLINE_PASSED);
    }
    /**
     * onLeaseLost fires once for every claimed job whose lease is lost, whichever path sees the
     * loss first, and so exactly as often as jobs settle LEASE_LOST: a renewal refused (the fence
     * moved while the handler waited), a settle refused (the fence moved just before the handler
     * returned: no renewal had run yet), and the local deadline seen by the handler's own check (the
     * clock is moved past it; the server would still accept a complete). Jobs that complete cleanly
     * are never reported.
     */
    @Test
    void onLeaseLostFiresOncePerLostJobWhicheverPathSawItFirst() throws Exception {
        java.util.concurrent.atomic.AtomicLong offset = new java.util.concurrent.atomic.AtomicLong();
        QueueClient timed = client(b -> b.clock(() -> System.nanoTime() + offset.get()).retainCompleted(retainCompleted()));
        Queue q = timed.queue("q");
        long leaseMs = 1500;   // renewed every 500 ms
        int perPath = 3;
        RecordingListener events = new RecordingListener();
        Map<String, Boolean> guardAnswered = new ConcurrentHashMap<>();
        try (Worker w = timed.worker("q", job -> {
            String p = job.payloadUtf8();
            if (job.attempt() > 1 || p.startsWith("plain")) {
                return;
            }
            if (p.startsWith("renewal")) {   // blocks until the refused renewal asks it to stop
                raw().call("HINCRBY", "emq:{q}:job:" + job.id(), "attempts", "1");
                job.stopSignal().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            } else if (p.startsWith("settle")) {   // returns before any renewal: its complete is refused
                raw().call("HINCRBY", "emq:{q}:job:" + job.id(), "attempts", "1");
            } else if (p.startsWith("deadline")) {   // a pause past the lease, as the clock sees it
                offset.addAndGet(TimeUnit.MILLISECONDS.toNanos(2 * leaseMs));
                guardAnswered.put(job.id(), job.leaseLost());
            }
        }).concurrency(1).lease(Duration.ofMillis(leaseMs)).maintenanceInterval(Duration.ofMillis(100))
                .listener(events).start()) {
            List<String> ids = new java.util.ArrayList<>();
            for (String path : List.of("plain", "renewal", "settle", "deadline", "plain")) {
                for (int i = 0; i < perPath; i++) {
                    ids.add(q.enqueue(path + "-" + i));
                }
            }
            // every job ends done: the lost ones are reaped and run again as a later attempt
            await().atMost(Duration.ofSeconds(45)).until(() -> ids.stream().allMatch(id -> "done".equals(field(id, "state"))));
            await().atMost(WAIT).until(() -> w.runningJobs() == 0);
            List<String> settledLost = events.settled().stream().filter(s -> s.outcome() == SettleOutcome.LEASE_LOST)
                    .map(s -> s.id() + "/" + s.attempt()).sorted().toList();
            List<String> reported = events.lost().stream().map(l -> l.id() + "/" + l.attempt()).sorted().toList();
            System.out.printf("%d LEASE_LOST settlements, %d onLeaseLost calls%n", settledLost.size(), reported.size());
            assertThat(reported).as("one report per LEASE_LOST settlement, and no other").isEqualTo(settledLost);
            assertThat(reported).hasSize(3 * perPath).doesNotHaveDuplicates();
            assertThat(w.counts().leaseLost()).isEqualTo(reported.size());
            Map<String, LeaseLossReason> reasons = new HashMap<>();
            events.lost().forEach(l -> reasons.put(l.job().payloadUtf8().replaceAll("-.*", ""), l.reason()));
            assertThat(reasons).containsEntry("renewal", LeaseLossReason.SUPERSEDED)
                    .containsEntry("settle", LeaseLossReason.SUPERSEDED)
                    .containsEntry("deadline", LeaseLossReason.DEADLINE_PASSED)
                    .doesNotContainKey("plain");
            assertThat(guardAnswered).hasSize(perPath).doesNotContainValue(false);
        }
    }
}
