package io.echomq.cli;

import io.echomq.RedisCommandException;
import io.echomq.queue.SettleOutcome;
import io.echomq.queue.EnqueueResult;
import io.echomq.queue.Job;
import io.echomq.queue.JobRequest;
import io.echomq.queue.LeaseLossReason;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueStats;
import io.echomq.queue.ShutdownReport;
import io.echomq.queue.Worker;
import io.echomq.queue.WorkerListener;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

/**
 * Act 6 of the demo, the claim lease: 1,000 jobs, four workers each with its own
 * {@link QueueClient} (as four processes would have), and worker 4 killed mid-job. The reaper of
 * the others returns its expired lease, another worker runs the job again, and the killed
 * worker's stale handle is then refused by the fence ({@code attempts}). Every number printed is
 * computed from what the workers heard and what the server holds.
 *
 * <p>The act works on the queue {@value #QUEUE}: its keys, {@code emq:{demo-jobs}:*}, and the
 * workers' maintenance lock are deleted before the act and again by {@link #deleteKeys}.
 */
final class ClaimLeaseAct {
    /** The demo's queue. */
    static final String QUEUE = "demo-jobs";
    /** The prefix of every key of the demo's queue. */
    static final String PREFIX = "emq:{" + QUEUE + "}:";
    /**
     * The lock the workers' maintenance takes once per interval ({@code SET NX PX}, never
     * released, in the default lock namespace; see {@link Worker}). It lapses by itself within one
     * interval, but the demo deletes it too so that it leaves nothing behind.
     */
    static final String MAINTENANCE_LOCK = "emq:lock:{queue:" + QUEUE + ":maintenance}:lock";

    private static final int JOBS = 1000;
    private static final int WORKERS = 4;
    private static final int CONCURRENCY = 4;
    private static final Duration LEASE = Duration.ofMillis(400);
    private static final Duration MAINTENANCE = Duration.ofMillis(100);
    private static final Duration GRACE = Duration.ofSeconds(2);
    /** The whole act must end within this; past it the act prints FAIL instead of hanging. */
    private static final Duration BUDGET = Duration.ofSeconds(30);

    private final String url;
    private final StatefulRedisConnection<String, String> rawConnection;
    private final RedisCommands<String, String> raw;
    private final DemoConsole console;

    // What the workers heard, filled in by their handlers and listeners.
    private final Map<String, AtomicInteger> completions = new ConcurrentHashMap<>();
    private final AtomicReference<Job> held = new AtomicReference<>();
    private final CountDownLatch midJob = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch rerun = new CountDownLatch(1);
    private final CountDownLatch allCompleted = new CountDownLatch(JOBS);
    private final AtomicReference<String> rerunBy = new AtomicReference<>();
    private final AtomicLong rerunAttempt = new AtomicLong();

    /**
     * @param url the server's URL, already checked
     * @param rawConnection a plain connection to the same server, for the raw reads shown
     */
    ClaimLeaseAct(String url, StatefulRedisConnection<String, String> rawConnection, DemoConsole console) {
        this.url = url;
        this.rawConnection = rawConnection;
        this.raw = rawConnection.sync();
        this.console = console;
    }

    /**
     * Deletes every key of the demo's queue (found with {@code SCAN MATCH emq:{demo-jobs}:*}) and
     * its maintenance lock.
     *
     * @return how many keys were deleted
     * @throws io.lettuce.core.RedisException if a command fails
     */
    static long deleteKeys(RedisCommands<String, String> raw) {
        long deleted = raw.del(MAINTENANCE_LOCK);
        ScanArgs match = ScanArgs.Builder.matches(PREFIX + "*").limit(1000);
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = raw.scan(cursor, match);
            if (!page.getKeys().isEmpty()) {
                deleted += raw.del(page.getKeys().toArray(String[]::new));
            }
            cursor = page;
        } while (!cursor.isFinished());
        return deleted;
    }

    /**
     * Plays the act.
     *
     * @return whether it behaved as the seed says
     * @throws io.echomq.RedisCommandException if the queue's Redis commands fail
     */
    boolean run() throws InterruptedException {
        console.act(6, "The claim lease: a job queue that no crash can lose and no stale worker can finish",
                "@claim pops the oldest pending id (LPOP of emq:{q}:wait here: priority 0) and leases it into "
                        + "emq:{q}:active scored now + lease_ms; a later reap returns any expired score to pending.");
        console.note("", "1,000 jobs, four workers with a QueueClient each (as four processes); w4, running one job "
                + "at a time, is killed mid-job.");
        console.note("", "claim-8 moves a job from " + PREFIX + "wait to :active, scored on the server's TIME + "
                + LEASE.toMillis() + " ms, and bumps the job's attempts: the fence.");
        console.note("", "reap-5 (run by the workers' maintenance) returns an expired lease to pending: a crash loses "
                + "no job. A complete");
        console.note("", "must present the current attempts: a worker whose job has moved on cannot finish it.");
        long deadline = System.nanoTime() + BUDGET.toNanos();
        long leftovers = deleteKeys(raw);
        console.command("P", "SCAN MATCH " + PREFIX + "* + DEL (an earlier run's keys)", leftovers + " deleted");

        List<QueueClient> clients = new ArrayList<>();
        try {
            return play(clients, deadline);
        } finally {
            release.countDown();   // a handler still blocked (only after a failure) returns at once
            closeAll(clients);
        }
    }

    private boolean play(List<QueueClient> clients, long deadline) throws InterruptedException {
        QueueClient producer = connect(clients);
        Queue queue = producer.queue(QUEUE);
        List<JobRequest> requests = IntStream.rangeClosed(1, JOBS).mapToObj(i -> JobRequest.of("job " + i)).toList();
        List<EnqueueResult> enqueued = queue.enqueueAll(requests);
        Set<String> ids = new LinkedHashSet<>();
        long created = 0;
        for (EnqueueResult r : enqueued) {
            ids.add(r.id());
            created += r.created() ? 1 : 0;
        }
        console.command("P", "enqueueAll: EVALSHA enqueue-compact-5 with " + JOBS + " jobs in one call",
                created + " created, ids " + enqueued.get(0).id() + ".." + enqueued.get(enqueued.size() - 1).id());
        QueueStats start = queue.stats();
        console.command("P", "EVALSHA stats-6", "pending " + start.pending() + ", active " + start.active());

        QueueClient[] workerClients = new QueueClient[WORKERS];
        for (int i = 0; i < WORKERS; i++) {
            workerClients[i] = connect(clients);
        }
        Worker[] workers = new Worker[WORKERS];
        // w4 starts first, so that it surely claims jobs before the others drain the queue.
        workers[WORKERS - 1] = start(workerClients[WORKERS - 1], WORKERS);
        if (!await(midJob, deadline)) {
            return timedOut("w4 did not claim a job", queue, Set.of());
        }
        Job stale = held.get();
        String jobKey = PREFIX + "job:" + stale.id();
        console.command("w4", "claim-8 (lease " + LEASE.toMillis() + " ms)", "job " + stale.id() + " attempt "
                + stale.attempt() + "; its handler blocks mid-job");
        for (int i = 0; i < WORKERS - 1; i++) {
            workers[i] = start(workerClients[i], i + 1);
        }
        console.note("w1-3", "start, and work the backlog at 1-3 ms per job (concurrency " + CONCURRENCY
                + ", maintenance every " + MAINTENANCE.toMillis() + " ms)");
        String attemptsBefore = raw.hget(jobKey, "attempts");
        console.command("", "HGET " + jobKey + " attempts", DemoScenarios.quote(attemptsBefore));

        workers[WORKERS - 1].abandon();
        long killedAt = System.nanoTime();
        console.note("w4", "is killed mid-job: abandon(), as kill -9 — no further command; its leases run out");
        long pttl = raw.pttl(jobKey + ":lock");
        console.command("", "PTTL " + jobKey + ":lock", pttl + (pttl > 0 ? " ms left, and nobody renews it" : ""));

        if (!await(rerun, deadline)) {
            return timedOut("job " + stale.id() + " was not run again", queue, Set.of(stale.id()));
        }
        long rerunMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        console.command(rerunBy.get(), "claim-8 → job " + stale.id() + " attempt " + rerunAttempt.get()
                + ", runs it, complete", "COMPLETED, " + rerunMs + " ms after the kill");
        List<KeyValue<String, String>> after = raw.hmget(jobKey, "attempts", "state", "last_error");
        String attemptsAfter = after.get(0).getValueOrElse(null);
        console.command("", "HMGET " + jobKey + " attempts state last_error", after.stream()
                .map(kv -> DemoScenarios.quote(kv.getValueOrElse(null))).reduce((a, b) -> a + " " + b).orElse(""));
        if (!await(allCompleted, deadline)) {
            return timedOut("only " + (JOBS - allCompleted.getCount()) + " of " + JOBS + " jobs were completed", queue,
                    ids);
        }

        SettleOutcome staleOutcome;
        try {
            staleOutcome = stale.complete();
        } catch (IllegalStateException settled) {
            console.verdict("FAIL: w4 settled job " + stale.id() + " before it was killed: " + settled.getMessage());
            return false;
        }
        String reason = stale.lossReason().map(LeaseLossReason::toString).orElse("none");
        console.command("w4", "complete job " + stale.id() + " with attempt " + stale.attempt()
                + " (the stale handle; complete-2's fence check)", staleOutcome
                + (staleOutcome == SettleOutcome.LEASE_LOST ? " (" + reason + ")" : ""));

        long returned = 0;
        for (int i = 0; i < WORKERS - 1; i++) {
            ShutdownReport report = workers[i].shutdown(GRACE);
            returned += report.returned();
        }
        QueueStats end = queue.stats();
        console.command("P", "EVALSHA stats-6", "pending " + end.pending() + ", active " + end.active() + ", delayed "
                + end.delayed() + ", dead " + end.dead() + ", completed " + end.completed() + ", failed " + end.failed());
        long claims = sumAttempts(ids);
        console.command("", "HGET " + PREFIX + "job:<id> attempts, for all " + ids.size() + " jobs", "Σ " + claims
                + " claims");

        long accepted = completions.values().stream().mapToLong(AtomicInteger::get).sum();
        long exactlyOnce = ids.stream().filter(id -> {
            AtomicInteger n = completions.get(id);
            return n != null && n.get() == 1;
        }).count();
        long lost = ids.size() - end.completed() - end.dead();
        // Every claim ends in one of: an accepted complete, an accepted fail, a returned lease, or a
        // reap. The queue is drained and the workers are stopped, so no claim is still open.
        long reaped = claims - end.completed() - end.failed() - returned;
        boolean fenced = staleOutcome == SettleOutcome.LEASE_LOST
                && stale.lossReason().orElse(null) == LeaseLossReason.SUPERSEDED;
        boolean movedOn = String.valueOf(stale.attempt()).equals(attemptsBefore)
                && String.valueOf(rerunAttempt.get()).equals(attemptsAfter) && rerunAttempt.get() > stale.attempt();

        console.verdict("Jobs enqueued: " + created);
        console.verdict("Accepted completions: " + accepted);
        console.verdict("Jobs completed exactly once: " + exactlyOnce);
        console.verdict("Jobs lost: " + lost + " (enqueued " + ids.size() + " − completed " + end.completed()
                + " − dead " + end.dead() + ")");
        console.verdict("Reaped leases: " + reaped + " (claims " + claims + " − completed " + end.completed()
                + " − failed " + end.failed() + " − returned " + returned + ")");
        console.verdict("Stale completion of job " + stale.id() + " (attempt " + stale.attempt() + ") → "
                + staleOutcome + (staleOutcome == SettleOutcome.LEASE_LOST ? " (" + reason + ")" : "")
                + "; its attempts: " + attemptsBefore + " before the kill, " + attemptsAfter + " after the rerun");
        console.verdict("Queue drained: " + (end.drained() ? "yes" : "no"));
        return created == JOBS && ids.size() == JOBS && accepted == JOBS && exactlyOnce == JOBS
                && completions.keySet().equals(ids) && end.completed() == accepted && end.dead() == 0 && lost == 0
                && end.drained() && reaped >= 1 && fenced && movedOn;
    }

    /**
     * Starts worker {@code n}. Worker 4 runs one job at a time and its handler blocks on the first
     * job it gets, until killed: so at the kill exactly that job is in flight. (With more, a
     * complete-and-claim-next already sent when the kill lands is accepted by the server but
     * never heard by the killed worker's listener, just as with a real kill -9.)
     */
    private Worker start(QueueClient client, int n) {
        String who = "w" + n;
        return client.worker(QUEUE, job -> {
            if (n == WORKERS && held.compareAndSet(null, job)) {
                midJob.countDown();
                release.await();   // interrupted by abandon(); the worker then sends nothing more
                return;
            }
            Thread.sleep(1 + ThreadLocalRandom.current().nextInt(3));   // the job's "work"
        }).concurrency(n == WORKERS ? 1 : CONCURRENCY).lease(LEASE).maintenanceInterval(MAINTENANCE).shutdownGrace(GRACE)
                .interruptHandlers(true)   // so that abandon() ends the blocked handler, as kill -9 would
                .listener(new WorkerListener() {
                    @Override
                    public void onSettled(Job job, SettleOutcome outcome, Throwable error) {
                        if (outcome != SettleOutcome.COMPLETED) {
                            return;
                        }
                        if (completions.computeIfAbsent(job.id(), id -> new AtomicInteger()).incrementAndGet() == 1) {
                            allCompleted.countDown();
                        }
                        Job h = held.get();
                        if (h != null && h.id().equals(job.id()) && job.attempt() > h.attempt()) {
                            rerunBy.set(who);
                            rerunAttempt.set(job.attempt());
                            rerun.countDown();
                        }
                    }
                }).start();
    }

    /**
     * Reads every job's attempts in one pipeline and sums them: the number of claims granted.
     *
     * @throws RedisCommandException if a read fails or takes over 10 s
     */
    private long sumAttempts(Set<String> ids) throws InterruptedException {
        List<RedisFuture<String>> reads = new ArrayList<>(ids.size());
        for (String id : ids) {
            reads.add(rawConnection.async().hget(PREFIX + "job:" + id, "attempts"));
        }
        long sum = 0;
        for (RedisFuture<String> f : reads) {
            try {
                String v = f.get(10, TimeUnit.SECONDS);
                sum += v == null ? 0 : Long.parseLong(v);
            } catch (ExecutionException | TimeoutException e) {
                throw new RedisCommandException("HGET (the demo jobs' attempts)", QUEUE, e);
            }
        }
        return sum;
    }

    private QueueClient connect(List<QueueClient> clients) {
        QueueClient c = QueueClient.builder().redisUrl(url).build();
        clients.add(c);
        return c;
    }

    private static boolean await(CountDownLatch latch, long deadline) throws InterruptedException {
        return latch.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** Prints the FAIL line, then what the server holds: the queue's counts and a few unheard jobs. */
    private boolean timedOut(String what, Queue queue, Set<String> expected) {
        console.verdict("FAIL: " + what + " within " + BUDGET.toSeconds() + " s; the act stops here");
        QueueStats s = queue.stats();
        console.note("", "stats-6 → pending " + s.pending() + ", active " + s.active() + ", delayed " + s.delayed()
                + ", dead " + s.dead() + ", completed " + s.completed() + ", failed " + s.failed());
        expected.stream().filter(id -> !completions.containsKey(id)).limit(5).forEach(id -> console.note("",
                "no completion heard for job " + id + ": HMGET state attempts → " + raw.hmget(PREFIX + "job:" + id,
                        "state", "attempts").stream().map(kv -> DemoScenarios.quote(kv.getValueOrElse(null)))
                        .reduce((a, b) -> a + " " + b).orElse("")));
        return false;
    }

    /** Closes the clients, newest first; each stops its workers within the grace. */
    private void closeAll(List<QueueClient> clients) {
        for (int i = clients.size() - 1; i >= 0; i--) {
            try {
                clients.get(i).close();
            } catch (RuntimeException e) {
                console.note("", "closing a queue client failed: " + e.getMessage());
            }
        }
        clients.clear();
    }
}
