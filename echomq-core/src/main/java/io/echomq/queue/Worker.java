package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.RedisEngine;
import io.lettuce.core.SetArgs;
import java.lang.reflect.Method;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link JobHandler} for the jobs of one queue, with N handlers at once.
 *
 * <ul>
 *   <li><b>Claiming.</b> One dispatcher thread claims as many jobs as there are free handlers, in
 *       one script. A handler that finishes completes its job and claims the next one in the same
 *       round trip while the queue has work.</li>
 *   <li><b>Group commit.</b> A complete that finds no call of this worker in flight is sent at
 *       once. Completes that finish while one is in flight wait for it, and the next call carries
 *       all of them (at most 256), with a claim for each handler that wants its next job. Each
 *       job is still fenced by its own attempt and gets its own outcome, listener call and count.</li>
 *   <li><b>Idle.</b> When the queue is empty the dispatcher waits on the queue's wake channel
 *       (enqueue publishes on it), so a new job starts within milliseconds. Without a message it
 *       looks again after the idle poll (5 s by default) or when the earliest delayed job is due,
 *       whichever is first. With the maintenance below, an idle worker makes the server run about
 *       three commands per second, those inside scripts included.</li>
 *   <li><b>Leases.</b> One scheduler renews every held lease at about a third of the lease, in
 *       one batched script call per tick, never from a handler's thread. A lease that is lost
 *       (renewal refused, or not renewed before the local deadline) interrupts its handler and
 *       marks the {@link Job}.</li>
 *   <li><b>Maintenance.</b> Every worker tries, once per maintenance interval, to take the
 *       queue's maintenance lock ({@code SET NX PX}, our lock's plain acquire, never released so
 *       it runs out after one interval); the holder reaps expired leases and promotes due delayed
 *       jobs. So maintenance runs at most once per interval across all processes, and a crashed
 *       worker's job is back in pending at most one interval (2 s by default) after its lease
 *       ran out. An idle holder does not promote: its own claim does, at the earliest due time.</li>
 *   <li><b>Failures.</b> A handler that throws fails its job with the stack trace (retry with
 *       backoff, or dead); a poison job never stops the loop. A malformed job hash never reaches
 *       a handler: the claim script moves it to dead with a reason.</li>
 *   <li><b>Shutdown.</b> {@link #shutdown(Duration)}: stop claiming, wait up to the grace for
 *       running jobs, then give unfinished leases back without spending their attempt and
 *       interrupt their handlers.</li>
 * </ul>
 *
 * <p>A worker built for a {@link ShardedQueue} ({@link QueueClient#worker(ShardedQueue, JobHandler)})
 * claims from every partition: each claim round asks the partitions in turn, starting one
 * partition further on each round, so none starves; a handler does not chain to the next job
 * (that would stay on one partition). It waits on every partition's wake channel, maintains each
 * partition under its own lock, and spans partitions other clients add (see the mark in
 * {@code docs/scaling.md}).
 *
 * <p>Handlers run on virtual threads when the JVM has them (Java 21+), otherwise on a fixed pool
 * of {@code concurrency} threads, unless an executor is given. The dispatcher thread is not a
 * daemon: a started worker keeps the JVM alive until it is shut down.
 */
public final class Worker implements AutoCloseable {
    /** Most handlers one worker may run at once. */
    public static final int MAX_CONCURRENCY = 10_000;
    /** Default lease of each claimed job. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    /** Default time {@link #close()} waits for running jobs. */
    public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(30);
    /** Default interval between maintenance runs (reap and promote) across all workers. */
    public static final Duration DEFAULT_MAINTENANCE_INTERVAL = Duration.ofSeconds(2);
    /** Default longest idle wait without a wake message before looking at the queue again. */
    public static final Duration DEFAULT_IDLE_POLL = Duration.ofSeconds(5);
    /** How long shutdown waits for handlers it interrupted to return, after the grace. */
    static final Duration INTERRUPTED_HANDLER_WAIT = Duration.ofSeconds(2);
    /** Expired leases reaped, and due jobs promoted, per maintenance run. */
    static final int MAINTENANCE_BATCH = 1000;
    /** Jobs per extend script call. */
    static final int EXTEND_CHUNK = 500;

    private static final Logger LOG = LoggerFactory.getLogger(Worker.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final QueueClient client;
    private final Queue queue;
    private final JobHandler handler;
    private final WorkerListener listener;
    private final int concurrency;
    private final long leaseMs;
    private final long renewEveryNanos;
    private final Duration defaultGrace;
    private final long maintenanceMs;
    private final long idlePollMs;
    private final ExecutorService executor;
    private final boolean ownExecutor;
    private final ScheduledExecutorService scheduler;
    private final Thread dispatcher;
    private final Semaphore slots;
    private final Map<Job, Long> held = new ConcurrentHashMap<>();   // job -> next renewal (nanos)
    private final AckBatcher ownBatcher;                               // group commit on `queue`
    private final Map<Queue, AckBatcher> batchers = new ConcurrentHashMap<>();   // on other partitions
    private final AtomicInteger busy = new AtomicInteger();
    private final Object idleMonitor = new Object();
    private final CompletableFuture<Void> stopping = new CompletableFuture<>();
    // completed (and replaced) when a handler sends a job to a retry backoff: the wake channel is
    // not told about it, so an idle dispatcher must look again to learn the retry's due time
    private final AtomicReference<CompletableFuture<Void>> retryScheduled =
            new AtomicReference<>(new CompletableFuture<>());
    private final ShardedQueue sharded;   // null when the worker works one plain queue
    private volatile WorkSpan span;       // what the worker claims from; grows with a sharded queue's mark
    private final String maintenanceToken;
    private final String name;
    private final LongAdder completed = new LongAdder();
    private final LongAdder retrying = new LongAdder();
    private final LongAdder dead = new LongAdder();
    private final LongAdder leaseLost = new LongAdder();
    private final LongAdder returned = new LongAdder();
    private final LongAdder ackErrors = new LongAdder();
    private volatile boolean running = true;
    private volatile boolean abandoned;
    private volatile boolean queueDry;
    private ShutdownReport report;   // guarded by this

    private Worker(Builder b) {
        this.client = b.client;
        this.queue = b.queue;
        this.handler = b.handler;
        this.listener = b.listener;
        this.concurrency = b.concurrency;
        this.leaseMs = b.leaseMs;
        this.renewEveryNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, leaseMs / 3));
        this.defaultGrace = b.shutdownGrace;
        this.maintenanceMs = b.maintenanceInterval.toMillis();
        this.idlePollMs = b.idlePoll.toMillis();
        this.sharded = b.sharded;
        this.name = "emq-worker-" + queueName() + "-" + SEQUENCE.incrementAndGet();
        this.slots = new Semaphore(concurrency);
        this.ownBatcher = new AckBatcher(queue, leaseMs);
        this.ownExecutor = b.executor == null;
        this.executor = ownExecutor ? defaultExecutor(name, concurrency) : b.executor;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name + "-leases");
            t.setDaemon(true);
            return t;
        });
        byte[] token = new byte[16];
        RANDOM.nextBytes(token);
        this.maintenanceToken = HexFormat.of().formatHex(token);
        this.span = new WorkSpan(List.of(), List.of(), List.of())
                .with(client, sharded == null ? List.of(queue) : sharded.partitionQueues());
        this.dispatcher = new Thread(this::dispatchLoop, name + "-dispatch");
    }

    private void begin() {
        try {
            span.awaitSubscribed(0, queueName());
        } catch (RuntimeException e) {
            span.close();
            scheduler.shutdownNow();
            if (ownExecutor) {
                executor.shutdownNow();
            }
            throw e;
        }
        long tick = Math.max(5, leaseMs / 6);
        scheduler.scheduleAtFixedRate(this::renewTick, tick, tick, TimeUnit.MILLISECONDS);
        long firstMaintenance = ThreadLocalRandom.current().nextLong(1, maintenanceMs + 1);
        scheduler.scheduleAtFixedRate(this::maintenanceTick, firstMaintenance, maintenanceMs, TimeUnit.MILLISECONDS);
        client.register(this);
        dispatcher.start();
        LOG.info("{} started: concurrency {}, lease {} ms", name, concurrency, leaseMs);
    }

    /** @return the queue this worker works (for a sharded queue, its name) */
    public String queueName() {
        return sharded == null ? queue.name() : sharded.name();
    }

    /** @return true until shutdown (or abandon) begins */
    public boolean isRunning() {
        return running;
    }

    /** @return true when no handler is running and the last claim found the queue empty */
    public boolean isIdle() {
        return running && busy.get() == 0 && queueDry;
    }

    /** @return how many handlers are running now */
    public int runningJobs() {
        return busy.get();
    }

    /** @return what this worker has done so far */
    public WorkerCounts counts() {
        return new WorkerCounts(completed.sum(), retrying.sum(), dead.sum(), leaseLost.sum(), returned.sum(),
                ackErrors.sum());
    }

    /** Graceful shutdown with the builder's grace (30 s by default); see {@link #shutdown(Duration)}. */
    @Override
    public void close() {
        shutdown(defaultGrace);
    }

    /**
     * Graceful shutdown: stops claiming, waits up to {@code grace} for running jobs to finish,
     * then gives every unfinished lease back to pending <em>without</em> spending its attempt (the
     * newest claim first, so that priority-0 jobs, each pushed to the front of the wait LIST, end
     * up there in the order they were claimed) and
     * interrupts its handler (whose late result the fence will refuse), and waits up to 2 s more
     * for those handlers to return. A handler that ignores the interrupt may still be running when
     * this method returns. Idempotent: a second call returns the first report.
     *
     * @throws IllegalArgumentException if grace is null or negative
     */
    public synchronized ShutdownReport shutdown(Duration grace) {
        long graceNanos = Checks.waitNanos(grace, "grace");
        if (report != null) {
            return report;
        }
        int atStart = busy.get();
        stopDispatcher();
        awaitHandlers(System.nanoTime() + graceNanos);
        long back = 0;
        long notBack = 0;
        List<Job> unfinished = new ArrayList<>(held.keySet());
        unfinished.sort(Comparator.comparingLong(Job::handleSeq).reversed());
        for (Job job : unfinished) {
            try {
                if (job.returnLease() == AckOutcome.RETURNED) {
                    back++;
                    returned.increment();
                } else {
                    notBack++;
                }
            } catch (IllegalStateException settledMeanwhile) {
                // the handler settled it between the snapshot and now
            } catch (RuntimeException e) {
                notBack++;
                LOG.warn("{}: could not return the lease of {}: {}", name, job, e.toString());
            }
            job.markLost(LeaseLossReason.NOT_ACTIVE);
        }
        awaitHandlers(System.nanoTime() + INTERRUPTED_HANDLER_WAIT.toNanos());
        finish(true);
        long finished = Math.max(0, atStart - (back + notBack));
        report = new ShutdownReport(finished, back, notBack);
        LOG.info("{} stopped: {}", name, report);
        return report;
    }

    /**
     * Stops at once, as a process killed with {@code kill -9} would: no further command is sent,
     * nothing is completed or returned, handlers are interrupted. The leases run out and the
     * reaper returns the jobs, each having spent an attempt. For tests and demonstrations of
     * crash recovery.
     */
    public synchronized void abandon() {
        if (report != null) {
            return;
        }
        abandoned = true;
        ownBatcher.abandon();
        batchers.values().forEach(AckBatcher::abandon);
        scheduler.shutdownNow();
        stopDispatcher();
        finish(false);   // not even an UNSUBSCRIBE: a killed process sends nothing
        report = new ShutdownReport(0, 0, held.size());
    }

    /** Waits until no handler runs, or the deadline passes, or this thread is interrupted. */
    private void awaitHandlers(long deadlineNanos) {
        synchronized (idleMonitor) {
            while (busy.get() > 0) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(idleMonitor, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void stopDispatcher() {
        running = false;
        stopping.complete(null);
        slots.release(concurrency + 1);   // wakes a dispatcher blocked on a free slot
        try {
            dispatcher.join(client.engine().main().getTimeout().toMillis() + 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void finish(boolean unsubscribe) {
        scheduler.shutdownNow();
        if (ownExecutor) {
            executor.shutdownNow();
        }
        if (unsubscribe) {
            span.close();
        }
        client.unregister(this);
    }

    // ------------------------------------------------------------------ dispatcher

    private void dispatchLoop() {
        while (running) {
            try {
                slots.acquire();
            } catch (InterruptedException e) {
                return;
            }
            int n = 1 + slots.drainPermits();
            if (!running) {
                return;
            }
            if (n > Queue.MAX_CLAIM) {
                slots.release(n - Queue.MAX_CLAIM);
                n = Queue.MAX_CLAIM;
            }
            if (sharded != null && sharded.partitions() > span.queues().size()) {
                spanNewPartitions();
            }
            CompletableFuture<?> signal = span.signal();
            CompletableFuture<Void> retry = retryScheduled.get();
            Queue.Claimed claimed;
            try {
                claimed = (sharded == null ? queue.claimAsync(n, leaseMs, null) : sharded.claimAsync(n, leaseMs)).get();
            } catch (InterruptedException e) {
                slots.release(n);
                return;
            } catch (ExecutionException e) {
                slots.release(n);
                LOG.warn("{}: claim failed, retrying in 1 s: {}", name, RedisEngine.unwrap(e).toString());
                await(CompletableFuture.anyOf(stopping), 1000);
                continue;
            }
            int got = claimed.jobs().size();
            slots.release(n - got);
            queueDry = got < n;
            for (Job job : claimed.jobs()) {
                start(job);
            }
            if (claimed.deadCount() > 0) {
                LOG.warn("{}: {} malformed job(s) moved to dead", name, claimed.deadCount());
            }
            if (queueDry) {
                long wait = idlePollMs;
                if (claimed.nextDueMs() >= 0) {
                    wait = Math.max(1, Math.min(wait, claimed.nextDueMs()));
                }
                await(CompletableFuture.anyOf(signal, retry, stopping), wait);
            }
        }
    }

    /** Subscribes to the wake channels of partitions another client added to the sharded queue. */
    private void spanNewPartitions() {
        WorkSpan before = span;
        WorkSpan after = before.with(client, sharded.partitionQueues());
        span = after;
        try {
            after.awaitSubscribed(before.queues().size(), queueName());
            LOG.info("{}: now works {} partitions", name, after.queues().size());
        } catch (RuntimeException e) {
            LOG.warn("{}: could not subscribe to new partitions' wake channels; they are polled: {}", name,
                    e.toString());
        }
    }

    private static void await(CompletableFuture<?> f, long ms) {
        try {
            f.get(ms, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // a timeout is the idle poll; a failed signal only means "look again"
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void start(Job job) {
        track(job);
        busy.incrementAndGet();
        try {
            executor.execute(() -> runChain(job));
        } catch (RejectedExecutionException e) {
            busy.decrementAndGet();
            held.remove(job);
            slots.release();
            LOG.warn("{}: executor refused {}; its lease runs out and the reaper returns it", name, job);
        }
    }

    /** @return the group commit of this worker's completes on {@code q} */
    private AckBatcher batcher(Queue q) {
        return q == queue ? ownBatcher : batchers.computeIfAbsent(q, p -> new AckBatcher(p, leaseMs));
    }

    private void track(Job job) {
        held.put(job, queue.clockNanos() + renewEveryNanos);
        job.reportLossTo(this::leaseLostHeard);
    }

    // ------------------------------------------------------------------ handlers

    private void runChain(Job first) {
        try {
            Job job = first;
            while (job != null) {
                job = runOne(job);
                if (job != null) {
                    track(job);
                }
            }
        } finally {
            slots.release();
            if (busy.decrementAndGet() == 0) {
                synchronized (idleMonitor) {
                    idleMonitor.notifyAll();
                }
            }
        }
    }

    private Job runOne(Job job) {
        Throwable error = null;
        job.bindHandlerThread(Thread.currentThread());
        try {
            if (!job.leaseLost()) {   // its deadline may have passed while it waited for a thread
                handler.handle(job);
            }
        } catch (Throwable t) {
            error = t;
        } finally {
            job.bindHandlerThread(null);
            Thread.interrupted();   // a loss interrupt must not leak into the next job
        }
        if (abandoned) {
            return null;
        }
        Job next = null;
        AckOutcome outcome = null;
        try {
            if (job.isSettled()) {
                outcome = job.outcome().orElse(null);
            } else if (job.leaseLost()) {
                // never complete (or fail) a job whose loss was seen: its handler may have stopped
                // early on seeing it, and the server may still accept within the drift allowance
                outcome = AckOutcome.LEASE_LOST;
            } else if (error == null) {
                // a chain stays on the job's own partition, so a sharded worker goes back to the
                // dispatcher instead, whose rotating claim rounds keep every partition served
                boolean chain = running && !queueDry && sharded == null;
                AckBatcher.Answer answer = job.completeInBatch(batcher(job.queue()), chain);
                next = answer.next();
                if (chain && next == null) {
                    queueDry = true;
                }
                job.queue().checkAck(job, answer.code());
                outcome = job.outcome().orElse(null);
            } else {
                outcome = job.fail(error);
            }
        } catch (IllegalStateException settledConcurrently) {
            outcome = job.outcome().orElse(null);
        } catch (RuntimeException e) {
            ackErrors.increment();
            LOG.warn("{}: could not settle {}; its lease runs out and the reaper returns it: {}", name, job,
                    e.toString());
        } finally {
            held.remove(job);
        }
        if (outcome == AckOutcome.RETRYING) {
            retryScheduled.getAndSet(new CompletableFuture<>()).complete(null);
        }
        if (outcome != null) {
            count(outcome);
            try {
                listener.onSettled(job, outcome, error);
            } catch (RuntimeException e) {
                LOG.warn("{}: listener failed on {}", name, job, e);
            }
        }
        return next;
    }

    private void count(AckOutcome outcome) {
        switch (outcome) {
            case COMPLETED -> completed.increment();
            case RETRYING -> retrying.increment();
            case DEAD -> dead.increment();
            case LEASE_LOST -> leaseLost.increment();
            default -> {
                // RETURNED is counted by shutdown
            }
        }
    }

    // ------------------------------------------------------------------ lease renewal

    private void renewTick() {
        try {
            long now = queue.clockNanos();
            List<Job> due = new ArrayList<>();
            for (Map.Entry<Job, Long> e : held.entrySet()) {
                Job job = e.getKey();
                if (job.leaseLost() || job.isSettled()) {
                    continue;
                }
                if (job.checkDeadline(now)) {
                    continue;   // the deadline passed: marked lost, and reported by the job
                } else if (now - e.getValue() >= 0) {
                    due.add(job);
                    e.setValue(now + renewEveryNanos);
                }
            }
            for (List<Job> chunk : chunksByQueue(due)) {
                chunk.get(0).queue().extendAsync(leaseMs, chunk).whenComplete((codes, failure) -> {
                    if (failure != null) {
                        LOG.warn("{}: lease renewal failed, retrying next tick: {}", name,
                                RedisEngine.unwrap(failure).toString());
                        long retry = queue.clockNanos();
                        for (Job job : chunk) {
                            held.computeIfPresent(job, (j, at) -> retry);
                        }
                        return;
                    }
                    for (int i = 0; i < chunk.size(); i++) {
                        Job job = chunk.get(i);
                        if (codes.get(i) != 1 && job.settleStarted()) {
                            // the handler's settling call reached the server before this renewal
                            // (same connection): that call's own answer tells what happened
                            continue;
                        }
                        job.onExtended(codes.get(i), now, leaseMs);   // a refusal is reported by the job
                    }
                });
            }
        } catch (RuntimeException e) {
            LOG.warn("{}: renewal tick failed", name, e);
        }
    }

    /**
     * @return the jobs in chunks of at most {@link #EXTEND_CHUNK}, each chunk of one queue: the
     *     jobs of a sharded queue are renewed on their own partitions
     */
    private static List<List<Job>> chunksByQueue(List<Job> due) {
        Map<Queue, List<Job>> byQueue = new java.util.LinkedHashMap<>();
        for (Job job : due) {
            byQueue.computeIfAbsent(job.queue(), q -> new ArrayList<>()).add(job);
        }
        List<List<Job>> chunks = new ArrayList<>();
        for (List<Job> jobs : byQueue.values()) {
            for (int from = 0; from < jobs.size(); from += EXTEND_CHUNK) {
                chunks.add(jobs.subList(from, Math.min(jobs.size(), from + EXTEND_CHUNK)));
            }
        }
        return chunks;
    }

    /** Told by a tracked job, once, when its loss is first seen (see {@link Job#reportLossTo}). */
    private void leaseLostHeard(Job job) {
        LOG.warn("{}: lease of {} lost: {}", name, job, job.lossReason().orElse(null));
        try {
            listener.onLeaseLost(job, job.lossReason().orElse(LeaseLossReason.LOCAL_DEADLINE));
        } catch (RuntimeException e) {
            LOG.warn("{}: listener failed on {}", name, job, e);
        }
    }

    // ------------------------------------------------------------------ maintenance

    private void maintenanceTick() {
        if (!running) {
            return;
        }
        if (sharded != null) {
            // another client may have declared more partitions: span them from the next claim round
            sharded.refreshAsync().whenComplete((n, failure) -> {
                if (failure != null) {
                    LOG.warn("{}: could not read the partition mark: {}", name, RedisEngine.unwrap(failure).toString());
                }
            });
        }
        WorkSpan s = span;
        for (int i = 0; i < s.queues().size(); i++) {
            maintain(s.queues().get(i), s.maintenanceKeys().get(i));
        }
    }

    /** Reaps and promotes one queue (or partition) if this worker takes its maintenance lock. */
    private void maintain(Queue queue, String maintenanceKey) {
        try {
            client.engine().commands()
                    .set(maintenanceKey, maintenanceToken, SetArgs.Builder.nx().px(maintenanceMs))
                    .toCompletableFuture()
                    .thenCompose(ok -> {
                        if (!"OK".equals(ok)) {
                            return CompletableFuture.<List<Object>>completedFuture(null);
                        }
                        return queue.reapAsync(MAINTENANCE_BATCH).thenCompose(reaped -> {
                            long back = (Long) reaped.get(0);
                            long died = (Long) reaped.get(1);
                            if (back + died > 0) {
                                LOG.info("{}: reaped {} expired lease(s): {} back to pending, {} to dead", name,
                                        back + died, back, died);
                            }
                            if (isIdle()) {
                                // the idle dispatcher's own claim promotes: it wakes at the earliest
                                // due time it knows of (enqueue tells it of new ones), so this call
                                // would only repeat it (issue 4: an idle worker's commands)
                                return CompletableFuture.<List<Object>>completedFuture(null);
                            }
                            return queue.promoteAsync(MAINTENANCE_BATCH);
                        });
                    })
                    .whenComplete((ignored, failure) -> {
                        if (failure != null) {
                            LOG.warn("{}: maintenance failed: {}", name, RedisEngine.unwrap(failure).toString());
                        }
                    });
        } catch (RuntimeException e) {
            LOG.warn("{}: maintenance failed: {}", name, e.toString());
        }
    }

    // ------------------------------------------------------------------ threads

    private static ExecutorService defaultExecutor(String name, int concurrency) {
        try {
            Method m = Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
            return (ExecutorService) m.invoke(null);
        } catch (ReflectiveOperationException | RuntimeException noVirtualThreads) {
            AtomicInteger n = new AtomicInteger();
            return Executors.newFixedThreadPool(concurrency, r -> {
                Thread t = new Thread(r, name + "-handler-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
    }

    @Override
    public String toString() {
        return name;
    }

    /**
     * Configures a {@link Worker}; from {@link QueueClient#worker(String, JobHandler)}. Each setter
     * checks its value and throws {@link IllegalArgumentException} for a bad one.
     */
    public static final class Builder {
        private final QueueClient client;
        private final Queue queue;
        private final ShardedQueue sharded;
        private final JobHandler handler;
        private int concurrency = Runtime.getRuntime().availableProcessors() * 4;
        private long leaseMs = DEFAULT_LEASE.toMillis();
        private Duration shutdownGrace = DEFAULT_SHUTDOWN_GRACE;
        private Duration maintenanceInterval = DEFAULT_MAINTENANCE_INTERVAL;
        private Duration idlePoll = DEFAULT_IDLE_POLL;
        private ExecutorService executor;
        private WorkerListener listener = new WorkerListener() { };

        Builder(QueueClient client, Queue queue, JobHandler handler) {
            this.client = client;
            this.queue = queue;
            this.sharded = null;
            this.handler = handler;
        }

        Builder(QueueClient client, ShardedQueue sharded, JobHandler handler) {
            this.client = client;
            this.queue = sharded.partitionQueues().get(0);
            this.sharded = sharded;
            this.handler = handler;
        }

        /** @param n handlers at once, 1..{@link #MAX_CONCURRENCY}; default 4 per CPU */
        public Builder concurrency(int n) {
            if (n < 1 || n > MAX_CONCURRENCY) {
                throw new IllegalArgumentException("concurrency must be in 1.." + MAX_CONCURRENCY + ", was " + n);
            }
            this.concurrency = n;
            return this;
        }

        /** @param lease each job's lease, {@link Queue#MIN_LEASE}..{@link Queue#MAX_LEASE}; renewed at a third */
        public Builder lease(Duration lease) {
            this.leaseMs = Queue.checkLease(lease);
            return this;
        }

        /** @param grace how long {@link Worker#close()} waits for running jobs; zero or more */
        public Builder shutdownGrace(Duration grace) {
            Checks.waitNanos(grace, "shutdownGrace");
            this.shutdownGrace = grace;
            return this;
        }

        /** @param interval how often reaping and promotion run across all workers, 10 ms..1 hour */
        public Builder maintenanceInterval(Duration interval) {
            Checks.ttlMillis(interval, Duration.ofHours(1), "maintenanceInterval");
            if (interval.toMillis() < 10) {
                throw new IllegalArgumentException("maintenanceInterval must be at least 10 ms, was " + interval);
            }
            this.maintenanceInterval = interval;
            return this;
        }

        /** @param poll longest idle wait without a wake message, 10 ms..1 hour */
        public Builder idlePoll(Duration poll) {
            Checks.ttlMillis(poll, Duration.ofHours(1), "idlePoll");
            if (poll.toMillis() < 10) {
                throw new IllegalArgumentException("idlePoll must be at least 10 ms, was " + poll);
            }
            this.idlePoll = poll;
            return this;
        }

        /** @param executor runs the handlers; the worker does not shut it down. Default: see {@link Worker}. */
        public Builder executor(ExecutorService executor) {
            this.executor = Checks.notNull(executor, "executor");
            return this;
        }

        /** @param listener hears every settled job and every lost lease */
        public Builder listener(WorkerListener listener) {
            this.listener = Checks.notNull(listener, "listener");
            return this;
        }

        /**
         * Subscribes to the wake channel and starts claiming.
         *
         * @return the running worker
         * @throws io.echomq.RedisCommandException if the connection or the subscription fails
         */
        public Worker start() {
            Worker w = new Worker(this);
            w.begin();
            return w;
        }
    }
}
