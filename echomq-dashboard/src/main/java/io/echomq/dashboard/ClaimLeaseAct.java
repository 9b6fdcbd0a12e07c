package io.echomq.dashboard;

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
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 * <p>The act works on the queue it is opened with ({@value #DEMO_QUEUE} for {@code emq demo}, a
 * scratch one for the dashboard): its keys, {@code emq:{<queue>}:*}, and the workers' maintenance
 * lock are deleted before the act and again by {@link #deleteKeys}. {@code emq demo} prints what
 * it tells its {@link ActLog} as it goes; the dashboard draws the {@link ClaimLeaseRun} it answers.
 */
public final class ClaimLeaseAct implements AutoCloseable {
    /** The queue of {@code emq demo}'s act. */
    public static final String DEMO_QUEUE = "demo-jobs";
    /** The jobs the act enqueues. */
    public static final int JOBS = 1000;

    private static final int WORKERS = 4;
    private static final int CONCURRENCY = 4;
    private static final Duration LEASE = Duration.ofMillis(400);
    private static final Duration MAINTENANCE = Duration.ofMillis(100);
    private static final Duration GRACE = Duration.ofSeconds(2);
    /** The whole act must end within this; past it the act prints FAIL instead of hanging. */
    private static final Duration BUDGET = Duration.ofSeconds(30);

    private final String url;
    private final Path trustedCertificates;
    private final String queueName;
    private final String prefix;
    /**
     * The lock the workers' maintenance takes once per interval ({@code SET NX PX}, never
     * released, in the default lock namespace; see {@link Worker}). It lapses by itself within one
     * interval, but the act deletes it too so that it leaves nothing behind.
     */
    private final String maintenanceLock;
    private final ActServer rawClient;
    private final ActServer.Connection rawConnection;
    private final RedisClusterCommands<String, String> raw;
    private final ActLog console;
    private final Map<String, AtomicLong> completedBy = new ConcurrentHashMap<>();

    // What the workers heard, filled in by their handlers and listeners.
    private final Map<String, AtomicInteger> completions = new ConcurrentHashMap<>();
    private final AtomicReference<Job> held = new AtomicReference<>();
    private final CountDownLatch midJob = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch rerun = new CountDownLatch(1);
    private final CountDownLatch allCompleted = new CountDownLatch(JOBS);
    private final AtomicReference<String> rerunBy = new AtomicReference<>();
    private final AtomicLong rerunAttempt = new AtomicLong();

    private ClaimLeaseAct(String url, Path trustedCertificates, String queue, ActServer rawClient,
                          ActServer.Connection rawConnection, ActLog console) {
        this.url = url;
        this.trustedCertificates = trustedCertificates;
        this.queueName = queue;
        this.prefix = prefixOf(queue);
        this.maintenanceLock = "emq:lock:{queue:" + queue + ":maintenance}:lock";
        this.rawClient = rawClient;
        this.rawConnection = rawConnection;
        this.raw = rawConnection.sync();
        this.console = console;
    }

    /**
     * Connects the act's own plain connection, for the raw reads it shows, trusting the JVM's CA
     * certificates for TLS.
     *
     * @param url   the server's URL, already checked
     * @param queue the queue the act works on; every key of it is deleted before the act
     * @param log   where the act tells what it does as it goes
     * @return the act, ready to {@link #run()}; close it
     * @throws NullPointerException if an argument is null
     * @throws RedisCommandException if the server cannot be reached
     */
    public static ClaimLeaseAct open(String url, String queue, ActLog log) {
        return open(url, null, queue, log);
    }

    /**
     * Connects the act's own plain connection, for the raw reads it shows; with a CA file, it and
     * the workers' clients trust exactly the certificates in it ({@code trustedCertificates}).
     *
     * @param url                 the server's URL ({@code redis://}, {@code rediss://},
     *                            {@code redis-cluster://} or {@code rediss-cluster://}), already checked
     * @param trustedCertificates a PEM file of the CA certificates to trust, or null for the JVM's
     * @param queue               the queue the act works on; every key of it is deleted before the act
     * @param log                 where the act tells what it does as it goes
     * @return the act, ready to {@link #run()}; close it
     * @throws NullPointerException if the URL, the queue or the log is null
     * @throws IllegalArgumentException if the URL is malformed
     * @throws RedisCommandException if the server cannot be reached
     */
    public static ClaimLeaseAct open(String url, Path trustedCertificates, String queue, ActLog log) {
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(log, "log");
        ActServer client = ActServer.create(Objects.requireNonNull(url, "url"), trustedCertificates);
        try {
            return new ClaimLeaseAct(url, trustedCertificates, queue, client, client.connect(), log);
        } catch (RuntimeException e) {
            client.close();
            throw new RedisCommandException("CONNECT (the claim lease act's connection)", queue, e);
        }
    }

    /**
     * @param queue a queue name
     * @return the prefix of every key of that queue, {@code emq:{<queue>}:}
     */
    public static String prefixOf(String queue) {
        return "emq:{" + queue + "}:";
    }

    /** Closes the act's connection; the queue's keys stay (see {@link #deleteKeys()}). */
    @Override
    public void close() {
        rawConnection.close();
        rawClient.close();
    }

    /**
     * Deletes every key of the act's queue (found with {@code SCAN MATCH emq:{<queue>}:*}, on
     * every master of a cluster) and its maintenance lock; the queue's keys share one hash slot.
     *
     * @return how many keys were deleted
     * @throws io.lettuce.core.RedisException if a command fails
     */
    public long deleteKeys() {
        long deleted = raw.del(maintenanceLock);
        ScanArgs match = ScanArgs.Builder.matches(prefix + "*").limit(1000);
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
     * @return what the workers heard and the server answered, and whether it behaved as the seed says
     * @throws io.echomq.RedisCommandException if the queue's Redis commands fail
     * @throws InterruptedException if interrupted while the workers run
     */
    public ClaimLeaseRun run() throws InterruptedException {
        console.note("", "1,000 jobs, four workers with a QueueClient each (as four processes); w4, running one job "
                + "at a time, is killed mid-job.");
        console.note("", "claim-8 moves a job from " + prefix + "wait to :active, scored on the server's TIME + "
                + LEASE.toMillis() + " ms, and bumps the job's attempts: the fence.");
        console.note("", "reap-5 (run by the workers' maintenance) returns an expired lease to pending: a crash loses "
                + "no job. A complete");
        console.note("", "must present the current attempts: a worker whose job has moved on cannot finish it.");
        long deadline = System.nanoTime() + BUDGET.toNanos();
        long leftovers = deleteKeys();
        console.command("P", "SCAN MATCH " + prefix + "* + DEL (an earlier run's keys)", leftovers + " deleted");

        List<QueueClient> clients = new ArrayList<>();
        try {
            return play(clients, deadline);
        } finally {
            release.countDown();   // a handler still blocked (only after a failure) returns at once
            closeAll(clients);
        }
    }

    private ClaimLeaseRun play(List<QueueClient> clients, long deadline) throws InterruptedException {
        QueueClient producer = connect(clients);
        Queue queue = producer.queue(queueName);
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
        String jobKey = prefix + "job:" + stale.id();
        console.command("w4", "claim-8 (lease " + LEASE.toMillis() + " ms)", "job " + stale.id() + " attempt "
                + stale.attempt() + "; its handler blocks mid-job");
        for (int i = 0; i < WORKERS - 1; i++) {
            workers[i] = start(workerClients[i], i + 1);
        }
        console.note("w1-3", "start, and work the backlog at 1-3 ms per job (concurrency " + CONCURRENCY
                + ", maintenance every " + MAINTENANCE.toMillis() + " ms)");
        String attemptsBefore = raw.hget(jobKey, "attempts");
        console.command("", "HGET " + jobKey + " attempts", quote(attemptsBefore));

        workers[WORKERS - 1].abandon();
        long killedAt = System.nanoTime();
        console.note("w4", "is killed mid-job: abandon(), as kill -9 — no further command; its leases run out");
        // the lease deadline is the job's score in active (the default layout writes no lock subkey)
        Double leaseEnd = raw.zscore(prefix + "active", stale.id());
        List<String> time = raw.time();
        long pttl = leaseEnd == null ? -1
                : leaseEnd.longValue() - (Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000);
        console.command("", "ZSCORE " + prefix + "active " + stale.id() + " − TIME", pttl > 0
                ? pttl + " ms left, and nobody renews it" : "no lease left");

        if (!await(rerun, deadline)) {
            return timedOut("job " + stale.id() + " was not run again", queue, Set.of(stale.id()));
        }
        long rerunMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        console.command(rerunBy.get(), "claim-8 → job " + stale.id() + " attempt " + rerunAttempt.get()
                + ", runs it, complete", "COMPLETED, " + rerunMs + " ms after the kill");
        List<KeyValue<String, String>> after = raw.hmget(jobKey, "attempts", "state", "last_error");
        String attemptsAfter = after.get(0).getValueOrElse(null);
        console.command("", "HMGET " + jobKey + " attempts state last_error", after.stream()
                .map(kv -> quote(kv.getValueOrElse(null))).reduce((a, b) -> a + " " + b).orElse(""));
        if (!await(allCompleted, deadline)) {
            return timedOut("only " + (JOBS - allCompleted.getCount()) + " of " + JOBS + " jobs were completed", queue,
                    ids);
        }

        SettleOutcome staleOutcome;
        try {
            staleOutcome = stale.complete();
        } catch (IllegalStateException settled) {
            String failure = "w4 settled job " + stale.id() + " before it was killed: " + settled.getMessage();
            console.verdict("FAIL: " + failure);
            return ClaimLeaseRun.failed(queueName, JOBS, failure);
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
        console.command("", "HGET " + prefix + "job:<id> attempts, for all " + ids.size() + " jobs", "Σ " + claims
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
        boolean passed = created == JOBS && ids.size() == JOBS && accepted == JOBS && exactlyOnce == JOBS
                && completions.keySet().equals(ids) && end.completed() == accepted && end.dead() == 0 && lost == 0
                && end.drained() && reaped >= 1 && fenced && movedOn;
        Map<String, Long> by = new java.util.TreeMap<>();
        completedBy.forEach((w, n) -> by.put(w, n.get()));
        return new ClaimLeaseRun(queueName, JOBS, created, stale.id(), stale.attempt(), attemptsBefore, pttl, rerunBy.get(),
                rerunAttempt.get(), rerunMs, attemptsAfter, staleOutcome.name(), reason, accepted, exactlyOnce, lost, reaped,
                end.drained(), by, passed, null);
    }

    /**
     * Starts worker {@code n}. Worker 4 runs one job at a time and its handler blocks on the first
     * job it gets, until killed: so at the kill exactly that job is in flight. (With more, a
     * complete-and-claim-next already sent when the kill lands is accepted by the server but
     * never heard by the killed worker's listener, just as with a real kill -9.)
     */
    private Worker start(QueueClient client, int n) {
        String who = "w" + n;
        return client.worker(queueName, job -> {
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
                        completedBy.computeIfAbsent(who, w -> new AtomicLong()).incrementAndGet();
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
            reads.add(rawConnection.async().hget(prefix + "job:" + id, "attempts"));
        }
        long sum = 0;
        for (RedisFuture<String> f : reads) {
            try {
                String v = f.get(10, TimeUnit.SECONDS);
                sum += v == null ? 0 : Long.parseLong(v);
            } catch (ExecutionException | TimeoutException e) {
                throw new RedisCommandException("HGET (the act's jobs' attempts)", queueName, e);
            }
        }
        return sum;
    }

    private QueueClient connect(List<QueueClient> clients) {
        // the verdicts read every job's hash after the run (its attempts, its state): keep completed ones
        QueueClient.Builder b = QueueClient.builder().redisUrl(url).retainCompleted(java.time.Duration.ofHours(1));
        if (trustedCertificates != null) {
            b.trustedCertificates(trustedCertificates);
        }
        QueueClient c = b.build();
        clients.add(c);
        return c;
    }

    private static boolean await(CountDownLatch latch, long deadline) throws InterruptedException {
        return latch.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** Prints the FAIL line, then what the server holds: the queue's counts and a few unheard jobs. */
    private ClaimLeaseRun timedOut(String what, Queue queue, Set<String> expected) {
        String failure = what + " within " + BUDGET.toSeconds() + " s";
        console.verdict("FAIL: " + failure + "; the act stops here");
        QueueStats s = queue.stats();
        console.note("", "stats-6 → pending " + s.pending() + ", active " + s.active() + ", delayed " + s.delayed()
                + ", dead " + s.dead() + ", completed " + s.completed() + ", failed " + s.failed());
        expected.stream().filter(id -> !completions.containsKey(id)).limit(5).forEach(id -> console.note("",
                "no completion heard for job " + id + ": HMGET state attempts → " + raw.hmget(prefix + "job:" + id,
                        "state", "attempts").stream().map(kv -> quote(kv.getValueOrElse(null)))
                        .reduce((a, b) -> a + " " + b).orElse("")));
        return ClaimLeaseRun.failed(queueName, JOBS, failure);
    }

    private static String quote(String value) {
        return value == null ? "(nil)" : '"' + value + '"';
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
