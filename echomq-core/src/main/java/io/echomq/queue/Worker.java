package io.echomq.queue;

import io.echomq.MonotonicClock;
import io.echomq.internal.Checks;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 *       four commands per second (inside scripts included), besides its heartbeat (eight every 10 s).</li>
 *   <li><b>Leases.</b> A renewal thread of its own (given nothing else, not the maintenance
 *       below) renews every held lease at about a third of the lease, earlier after it has seen
 *       itself late, in one batched script call per tick, never from a handler's thread. A lease that is lost
 *       (a renewal or settle refused, or its local deadline passed, seen by a tick or by the
 *       handler's own {@link Job#leaseLost()}) asks its handler to stop, marks the {@link Job}, and
 *       is reported to {@link WorkerListener#onLeaseLost} once; the worker then settles the job
 *       {@link SettleOutcome#LEASE_LOST} without completing it.</li>
 *   <li><b>Pause and cancel.</b> A paused queue's claim answers "paused": the dispatcher waits as
 *       on an empty queue, and a resume's wake message starts it again. A cancel message makes the
 *       lease keeper renew at once; the cancelled attempt's refusal asks its handler to stop
 *       ({@link Job#cancelled()}), settled as {@link SettleOutcome#CANCELLED}.</li>
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
 *       ask their handlers to stop.</li>
 *   <li><b>Stopping a handler.</b> A lost lease (a cancel and a shutdown past its grace included)
 *       or a timeout asks the handler to stop, cooperatively: {@link Job#stopRequested()} turns
 *       true and {@link Job#stopSignal()} completes, and the handler ends its work (a JDBC
 *       {@code Statement.cancel()} attached to the signal ends a blocking query on the server).
 *       The handler's thread is not interrupted, because on a virtual thread an interrupt closes
 *       the socket under a blocking call (and on any thread, an NIO channel's), which breaks a
 *       connection the handler borrowed from a pool, and the pool hands it to the next jobs.
 *       {@link Builder#interruptHandlers(boolean)} opts in to the interrupt, for handlers whose
 *       blocking calls own what they use. Either way the job is settled as before (lost, or failed
 *       at its timeout), the handler keeps its slot until it returns, and whatever it settles
 *       late is refused by the fence.</li>
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
 *
 * <p>This class is the facade and owns the lifecycle (start, shutdown, abandon), the scheduler
 * thread of maintenance and the renewal thread of leases; the work is done by package-private parts, each with one role: the
 * {@code Dispatcher} claims through a {@code ClaimSource} (one queue, or a sharded queue's
 * partitions), {@code Runs} runs the claimed jobs back to back on a few handler threads (a job whose
 * handler passes a slice hands the others on), the {@code JobRunner} runs each handler and settles its job, the
 * {@code LeaseKeeper} renews leases and reports their loss ({@code CancelWatch} makes it renew at
 * once on a cancel message), {@code Maintenance} schedules
 * reaping and promotion, and {@code LeaseReturns} gives unfinished leases back at shutdown. {@code docs/architecture.md} maps them. Time is read from the
 * client's {@link io.echomq.MonotonicClock} only.
 */
public final class Worker implements AutoCloseable {
    /** Most handlers one worker may run at once. */
    public static final int MAX_CONCURRENCY = 10_000;
    /** Longest name a worker may be given ({@link Builder#name(String)}). */
    public static final int MAX_NAME_LENGTH = 100;
    /** Default lease of each claimed job. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    /** Default time {@link #close()} waits for running jobs. */
    public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(30);
    /** Default interval between maintenance runs (reap and promote) across all workers. */
    public static final Duration DEFAULT_MAINTENANCE_INTERVAL = Duration.ofSeconds(2);
    /** Default longest idle wait without a wake message before looking at the queue again. */
    public static final Duration DEFAULT_IDLE_POLL = Duration.ofSeconds(5);
    /** How long shutdown waits for handlers it asked to stop to return, after the grace. */
    static final Duration INTERRUPTED_HANDLER_WAIT = Duration.ofSeconds(2);

    private static final Logger LOG = LoggerFactory.getLogger(Worker.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final List<Worker> registry;
    private final QueueContext context;
    private final ClaimSource source;
    private final String name;
    private final int concurrency;
    private final long leaseMs;
    private final long maintenanceMs;
    private final Duration defaultGrace;
    private final MonotonicClock clock;
    private final ExecutorService executor;
    private final boolean ownExecutor;
    private final ScheduledExecutorService scheduler;
    private final WorkerState state;
    private final LeaseKeeper leases;
    private final JobRunner runner;
    private final Runs runs;
    private final Dispatcher dispatcher;
    private final Heartbeat heartbeat;
    private final Maintenance maintenance;
    private final CancelWatch cancels;
    private final boolean interruptHandlers;
    private final LongAdder returned = new LongAdder();
    private ShutdownReport report;   // guarded by this
    private volatile boolean graceCut;

    private Worker(Builder b) {
        this.registry = b.registry;
        this.context = b.context;
        this.source = b.source;
        this.concurrency = b.concurrency;
        this.leaseMs = b.leaseMs;
        this.maintenanceMs = b.maintenanceInterval.toMillis();
        this.defaultGrace = b.shutdownGrace;
        this.interruptHandlers = b.interruptHandlers;
        this.clock = context.clock();
        int n = SEQUENCE.incrementAndGet();
        this.name = b.name != null ? b.name : "emq-worker-" + source.name() + "-" + n;
        this.ownExecutor = b.executor == null;
        this.executor = ownExecutor ? HandlerThreads.create(name, concurrency) : b.executor;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name + "-leases");
            t.setDaemon(true);
            return t;
        });
        this.state = new WorkerState(concurrency);
        this.leases = new LeaseKeeper(name, LOG, leaseMs, clock, b.listener);
        this.runner = new JobRunner(name, LOG, b.handler, b.listener, b.logFailures, b.retryPolicy, state, leases, source, leaseMs,
                clock, b.timeoutMs, b.interruptHandlers);
        this.runs = new Runs(name, LOG, state, leases, runner, source, executor, clock);
        this.dispatcher = new Dispatcher(name, LOG, context.wakeSignals(), source, state, leaseMs, b.idlePoll.toMillis(), runs::hand);
        this.heartbeat = new Heartbeat(name, context, concurrency, runs::busy, leases::held, state::paused, maintenanceMs);
        this.maintenance = new Maintenance(name, LOG, context, source, dispatcher::span, this::isIdle, state::running,
                maintenanceMs, heartbeat);
        this.cancels = new CancelWatch(name, LOG, context.wakeSignals(), source::queues, leases);
    }

    private void begin() {
        try {
            dispatcher.subscribe();
            cancels.cover(true);
        } catch (RuntimeException e) {
            finish(true);   // nothing was scheduled or registered yet; unregister is a no-op
            throw e;
        }
        leases.start();
        long firstMaintenance = ThreadLocalRandom.current().nextLong(1, maintenanceMs + 1);
        scheduler.scheduleAtFixedRate(maintenance::tick, firstMaintenance, maintenanceMs, TimeUnit.MILLISECONDS);
        scheduler.scheduleAtFixedRate(cancels::refresh, maintenanceMs, maintenanceMs, TimeUnit.MILLISECONDS);
        registry.add(this);
        dispatcher.start();
        LOG.info("{} started as {}: concurrency {}, lease {} ms", name, heartbeat.id(), concurrency, leaseMs);
    }

    /** @return the queue this worker works (for a sharded queue, its name) */
    public String queueName() {
        return source.name();
    }

    /**
     * Checks a worker's name as {@link Builder#name(String)} does, for a tool that judges its input before it connects.
     *
     * @param name 1..{@value #MAX_NAME_LENGTH} characters, not blank, none of them a control character
     * @return name
     * @throws IllegalArgumentException if it is not such a name (the message shows control characters as {@code ?})
     * @throws NullPointerException if name is null
     */
    public static String checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank() || name.length() > MAX_NAME_LENGTH || name.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("a worker's name must be 1.." + MAX_NAME_LENGTH
                    + " characters, not blank, with no control character; was \"" + name.replaceAll("\\p{Cntrl}", "?") + '"');
        }
        return name;
    }

    /** @return the worker's name, as its log lines, threads and heartbeat show it: the builder's, or {@code emq-worker-<queue>-<n>} */
    public String name() {
        return name;
    }

    /**
     * @return the worker's unique id in its heartbeat ({@link WorkerDirectory}): {@code <host>-<pid>-<n>}, which
     *     tells apart workers of one name in different processes, on different machines or in one process
     */
    public String id() {
        return heartbeat.id();
    }

    /** @return whether the worker's last claim found its queue paused (it claims nothing until a resume) */
    public boolean sawPaused() {
        return state.paused();
    }

    /** @return true until shutdown (or abandon) begins */
    public boolean isRunning() {
        return state.running();
    }

    /** @return true when the worker holds no job and the last claim found the queue empty */
    public boolean isIdle() {
        return state.running() && runs.busy() == 0 && state.queueDry();
    }

    /**
     * @return how many jobs the worker holds now: running, settling, or claimed and about to run (a run of short
     *     jobs holds its next ones while it runs the first)
     */
    public int runningJobs() {
        return runs.busy();
    }

    /** @return what this worker has done so far */
    public WorkerCounts counts() {
        return runner.counts(returned.sum());
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
     * asks its handler to stop ({@link Job#stopSignal()}; interrupted too only with
     * {@link Builder#interruptHandlers(boolean)}), whose late result the fence will refuse, and
     * waits up to 2 s more for those handlers to return. A handler that ignores the request may
     * still be running when this method returns; the worker's own executor is then shut down
     * without interrupting it (unless the worker interrupts handlers), so it runs to its end.
     * Idempotent: a second call returns the first report.
     *
     * @throws IllegalArgumentException if grace is null or negative
     */
    public synchronized ShutdownReport shutdown(Duration grace) {
        long graceNanos = Checks.waitNanos(grace, "grace");
        if (report != null) {
            return report;
        }
        int atStart = runs.busy();
        stopDispatcher();
        runs.awaitIdle(clock.nanoTime() + graceNanos, () -> graceCut);
        LeaseReturns.Count back = LeaseReturns.giveBack(LOG, name, leases.held(), returned);
        runs.awaitIdle(clock.nanoTime() + INTERRUPTED_HANDLER_WAIT.toNanos());
        finish(true);
        long finished = Math.max(0, atStart - (back.back() + back.notBack()));
        report = new ShutdownReport(finished, back.back(), back.notBack());
        LOG.info("{} stopped: {}", name, report);
        return report;
    }

    /**
     * Ends the grace of a {@link #shutdown(Duration)} now, whether that shutdown is waiting already or begins later:
     * it stops waiting for running jobs and goes on at once as with a zero grace, returning their leases unspent
     * and asking their handlers to stop. For a second Ctrl-C during a graceful stop. Does not itself begin a
     * shutdown; never blocks; may be called from any thread (a signal handler, for example), any number of times.
     */
    public void cutGrace() {
        graceCut = true;
        runs.wakeIdleWaiters();
    }

    /**
     * Stops at once, as a process killed with {@code kill -9} would: no further command is sent,
     * nothing is completed or returned; handlers are interrupted if the worker interrupts handlers
     * ({@link Builder#interruptHandlers(boolean)}), otherwise left to run to their end, their
     * results not settled. The leases run out and the
     * reaper returns the jobs, each having spent an attempt. For tests and demonstrations of
     * crash recovery.
     */
    public synchronized void abandon() {
        if (report != null) {
            return;
        }
        state.abandon();
        runner.abandon();
        scheduler.shutdownNow();
        leases.stop();
        stopDispatcher();
        finish(false);   // not even an UNSUBSCRIBE: a killed process sends nothing
        report = new ShutdownReport(0, 0, leases.heldCount());
    }

    private void stopDispatcher() {
        state.stop();
        dispatcher.join(context.engine().main().getTimeout().toMillis() + 1000);
    }

    private void finish(boolean unsubscribe) {
        scheduler.shutdownNow();
        leases.stop();
        runner.close();
        runs.close();
        if (ownExecutor && interruptHandlers) {
            executor.shutdownNow();
        } else if (ownExecutor) {
            executor.shutdown();   // a handler still running keeps its thread, and what it borrowed stays whole
        }
        if (unsubscribe) {
            dispatcher.span().close();
            cancels.close();
            maintenance.close();   // a clean close removes the heartbeat; an abandoned worker's expires
        }
        registry.remove(this);
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
        private final QueueContext context;
        private final List<Worker> registry;
        private final ClaimSource source;
        private final JobHandler handler;
        private int concurrency = Runtime.getRuntime().availableProcessors() * 4;
        private long leaseMs = DEFAULT_LEASE.toMillis();
        private Duration shutdownGrace = DEFAULT_SHUTDOWN_GRACE;
        private Duration maintenanceInterval = DEFAULT_MAINTENANCE_INTERVAL;
        private Duration idlePoll = DEFAULT_IDLE_POLL;
        private ExecutorService executor;
        private WorkerListener listener = new WorkerListener() { };
        private boolean logFailures = true;
        private RetryPolicy retryPolicy = RetryPolicy.defaults();
        private long timeoutMs;   // 0: none
        private boolean interruptHandlers;
        private String name;   // null: emq-worker-<queue>-<n>

        /**
         * @param context  what the client built its queues with
         * @param registry the client's started workers, which it closes at its own close; a started
         *     worker adds itself and removes itself when it ends
         */
        Builder(QueueContext context, List<Worker> registry, ClaimSource source, JobHandler handler) {
            this.context = context;
            this.registry = registry;
            this.source = source;
            this.handler = handler;
        }

        /**
         * Names the worker, as its log lines, its threads and its heartbeat ({@link WorkerDirectory}) show it, so that
         * an operator can tell which worker runs a job. The name need not be unique: the heartbeat's id
         * ({@link Worker#id()}: host, pid and a count) tells apart workers of one name.
         *
         * @param name 1..{@value #MAX_NAME_LENGTH} characters, none of them a control character; default
         *     {@code emq-worker-<queue>-<n>}
         * @throws IllegalArgumentException if the name is blank, longer, or holds a control character
         * @throws NullPointerException if name is null
         */
        public Builder name(String name) {
            this.name = checkName(name);
            return this;
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
            this.leaseMs = QueueLimits.leaseMillis(lease);
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
         * @param logFailures whether each job that fails (to a retry or to dead) is logged once at
         *     WARN, with its id, attempt, outcome and a one-line summary of the error. On by
         *     default, so that a failing handler is seen without a listener; switch it off when a
         *     listener reports failures its own way.
         */
        public Builder logFailures(boolean logFailures) {
            this.logFailures = logFailures;
            return this;
        }

        /**
         * @param policy what a handler's exception does to its job (retry with which delay, or dead
         *     now); a {@link NonRetryableException} or {@link RetryAfterException} from the handler
         *     wins over it, and it never adds attempts past the job's {@code max_attempts}. The
         *     default retries every exception with the job's own backoff.
         * @throws IllegalArgumentException if {@code policy} is null
         */
        public Builder retryPolicy(RetryPolicy policy) {
            this.retryPolicy = Checks.notNull(policy, "retryPolicy");
            return this;
        }

        /** @param timeout how long a handler may run, 1 ms..1 day, on a job with no timeout of its own or its queue's; none by default ({@link JobTimeoutException}) */
        public Builder timeout(Duration timeout) {
            this.timeoutMs = Checks.ttlMillis(timeout, Duration.ofDays(1), "timeout");
            return this;
        }

        /**
         * Whether a stop also interrupts the handler's thread. A stop is a lost lease (a refused
         * renewal or call, the local deadline passed, an operator's cancel, a shutdown that gave
         * the lease back after its grace) or the job's timeout; it always sets
         * {@link Job#stopRequested()} and completes {@link Job#stopSignal()}. Off by default:
         * on a virtual thread (the default executor's, on Java 21+) an interrupt closes the socket
         * under a blocking call, and on any thread an NIO channel's, so a handler blocked in a
         * JDBC call through a pool would hand the pool a broken connection, and the next jobs that
         * borrow it fail. Switch it on only for handlers whose blocking calls own what they use
         * (a sleep, a lock wait, a connection they open and close themselves). With it on, an
         * interrupt caused by a stop is cleared before the thread runs the next job, and
         * shutdown and {@link Worker#abandon()} interrupt the handlers of the worker's own executor.
         *
         * @param interruptHandlers true to interrupt the handler's thread on every stop
         */
        public Builder interruptHandlers(boolean interruptHandlers) {
            this.interruptHandlers = interruptHandlers;
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
