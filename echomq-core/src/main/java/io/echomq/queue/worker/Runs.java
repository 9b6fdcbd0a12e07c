package io.echomq.queue;

import io.echomq.MonotonicClock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;

/**
 * Where a worker's claimed jobs run: back to back on a few handler threads, so that a short handler
 * costs no thread wake-up of its own, while a handler that blocks or runs long holds no other job up
 * for more than a slice.
 *
 * <ol>
 *   <li>Hands each claimed batch out in runs ({@link #hand}): a run is one task on the worker's
 *       executor, which runs its jobs one after the other. Once handlers are seen to take a
 *       {@link #SLICE_NANOS slice} or more (their mean over the recent jobs), each job is a run of
 *       its own, so a handler that waits on I/O has a thread to itself as soon as it is claimed;
 *       otherwise the batch is cut in {@link #MIN_RUNS} runs, each smaller if its jobs would take
 *       more than a slice together.</li>
 *   <li>A run sends each job's complete without waiting for the answer, and takes the answers,
 *       in order, between its jobs. Only its last job waits: that complete claims the run's next
 *       jobs in the same call (as many as the run holds slots), while the worker runs, the last
 *       claim found work and the source lets claims chain. So a busy run wakes once per round of
 *       its jobs, not once per job.</li>
 *   <li>A watch hands the jobs a run has not started on, each as a run of its own, when the run's
 *       handler has been running for more than a slice (it looks every slice, only while some run
 *       has jobs waiting).</li>
 *   <li>Holds the worker's slots for its jobs: a run gives back those it no longer uses when a
 *       chained claim gives it fewer jobs than it asked for and when it ends. Counts the jobs held
 *       ({@link #busy}) and lets shutdown wait for them ({@link #awaitIdle}).</li>
 *   <li>Starts no job once the worker stops or is abandoned: such a job stays held by the lease
 *       keeper, for shutdown to give back unspent.</li>
 * </ol>
 *
 * <p>Every job is tracked by the {@link LeaseKeeper} from the moment it is handed out, so a job
 * waiting in a run keeps its lease. Thread-safe.
 */
final class Runs {
    /** How long a handler may hold the jobs behind it in its run, and the mean past which each job runs alone. */
    static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** Runs a batch of short jobs is cut in: enough that completes and claims overlap the handlers' work. */
    static final int MIN_RUNS = 4;

    private final String name;
    private final Logger log;
    private final WorkerState state;
    private final LeaseKeeper leases;
    private final JobRunner runner;
    private final ClaimSource source;
    private final ExecutorService executor;
    private final MonotonicClock clock;
    private final RunWatch watch;
    private final Set<Run> runs = ConcurrentHashMap.newKeySet();
    private final AtomicInteger busy = new AtomicInteger();
    private final Object idleMonitor = new Object();
    private volatile long meanHandlerNanos;   // a moving mean over the recent handlers, racy by design

    Runs(String name, Logger log, WorkerState state, LeaseKeeper leases, JobRunner runner, ClaimSource source,
         ExecutorService executor, MonotonicClock clock) {
        this.name = name;
        this.log = log;
        this.state = state;
        this.leases = leases;
        this.runner = runner;
        this.source = source;
        this.executor = executor;
        this.clock = clock;
        this.watch = new RunWatch(name, SLICE_NANOS, this::handOnStuck);
    }

    /** Runs {@code batch}, each job holding one slot taken already; from the dispatcher's thread. */
    void hand(List<Job> batch) {
        busy.addAndGet(batch.size());
        for (Job job : batch) {
            leases.track(job);
        }
        int perRun = perRun(batch.size());
        for (int i = 0; i < batch.size(); i += perRun) {
            start(new Run(batch.subList(i, Math.min(batch.size(), i + perRun))));
        }
    }

    /** @return how many of {@code n} jobs one run takes, by the handlers' recent mean */
    private int perRun(int n) {
        long mean = meanHandlerNanos;
        if (mean >= SLICE_NANOS) {
            return 1;
        }
        int even = (n + MIN_RUNS - 1) / MIN_RUNS;
        return mean <= 0 ? even : (int) Math.max(1, Math.min(even, SLICE_NANOS / mean));
    }

    private void start(Run run) {
        runs.add(run);
        if (run.waiting()) {
            watch.arm();
        }
        try {
            executor.execute(run);
        } catch (RejectedExecutionException e) {
            runs.remove(run);
            List<Job> refused = run.takeAll();
            for (Job job : refused) {
                leases.untrack(job);
            }
            release(refused.size());
            log.warn("{}: executor refused {} job(s); their leases run out and the reaper returns them", name,
                    refused.size());
        }
    }

    /** @return how many jobs the runs hold now: waiting, running or settling */
    int busy() {
        return busy.get();
    }

    /** Waits until no job is held, or {@code deadlineNanos} (on the clock) passes, or this thread is interrupted. */
    void awaitIdle(long deadlineNanos) {
        awaitIdle(deadlineNanos, () -> false);
    }

    /**
     * As {@link #awaitIdle(long)}, and also returns once {@code cut} is true. Whoever makes {@code cut} true must
     * then call {@link #wakeIdleWaiters()}: {@code cut} is read under the same monitor, so that wake-up is not lost.
     */
    void awaitIdle(long deadlineNanos, BooleanSupplier cut) {
        synchronized (idleMonitor) {
            while (busy.get() > 0 && !cut.getAsBoolean()) {
                long left = deadlineNanos - clock.nanoTime();
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

    /** Wakes {@link #awaitIdle(long, BooleanSupplier)} so that it reads its condition again. */
    void wakeIdleWaiters() {
        synchronized (idleMonitor) {
            idleMonitor.notifyAll();
        }
    }

    /** Stops the watch; runs still going finish their jobs. */
    void close() {
        watch.close();
    }

    /** Gives back {@code n} slots: the dispatcher may claim for them. */
    private void release(int n) {
        if (n == 0) {
            return;
        }
        state.slots().release(n);
        state.placeFreed();
        if (busy.addAndGet(-n) == 0) {
            wakeIdleWaiters();
        }
    }

    private void observe(long handlerNanos) {
        long mean = meanHandlerNanos;
        meanHandlerNanos = mean + (handlerNanos - mean) / 8;
    }

    /**
     * Told by the watch each slice: hands on the waiting jobs of every run whose handler passed the slice.
     *
     * @return whether some run still has jobs waiting, so the watch looks again
     */
    private boolean handOnStuck() {
        long now = clock.nanoTime();
        boolean waiting = false;
        for (Run run : runs) {
            List<Job> rest = run.restIfStuck(now);
            if (rest != null) {
                for (Job job : rest) {
                    start(new Run(List.of(job)));
                }
            } else if (run.waiting()) {
                waiting = true;
            }
        }
        return waiting;
    }

    /** One task on the executor: its jobs, run back to back, and the slots they hold. */
    private final class Run implements Runnable {
        private final ArrayDeque<Job> jobs;   // guarded by this: the jobs not started
        private int slots;                    // guarded by this: the worker's slots this run holds
        private volatile long handlerSince;   // when the running handler started, 0 between handlers

        Run(List<Job> batch) {
            this.jobs = new ArrayDeque<>(batch);
            this.slots = batch.size();
        }

        synchronized boolean waiting() {
            return !jobs.isEmpty();
        }

        /** @return the jobs not started and their slots, taken from this run; for a run that never starts */
        synchronized List<Job> takeAll() {
            List<Job> all = new ArrayList<>(jobs);
            jobs.clear();
            slots = 0;
            return all;
        }

        /** @return the jobs not started, taken with their slots, if the running handler passed the slice; else null */
        synchronized List<Job> restIfStuck(long now) {
            long since = handlerSince;
            if (jobs.isEmpty() || since == 0 || now - since <= SLICE_NANOS) {
                return null;
            }
            List<Job> rest = new ArrayList<>(jobs);
            jobs.clear();
            slots -= rest.size();
            observe(now - since);   // a lower bound of that handler's time, so the next batches adapt
            return rest;
        }

        @Override
        public void run() {
            ArrayDeque<JobRunner.Ran> settling = new ArrayDeque<>();
            try {
                while (true) {
                    Job job;
                    boolean last;
                    synchronized (this) {
                        job = jobs.poll();
                        if (job == null) {
                            break;
                        }
                        last = jobs.isEmpty();   // only this thread adds to an empty run
                    }
                    if (!state.running() || state.abandoned()) {
                        continue;   // not started: the lease keeper still holds it, for shutdown to give back
                    }
                    int[] asked = new int[1];
                    long since = clock.nanoTime();
                    handlerSince = since;
                    JobRunner.Ran ran = runner.handle(job, () -> asked[0] = last ? chainClaims() : 0);
                    handlerSince = 0;
                    observe(clock.nanoTime() - since);
                    if (ran != null) {
                        settling.add(ran);
                    }
                    if (asked[0] > 0) {
                        chain(concludeAll(settling), ran);   // the last answer is this job's, with the claims
                    } else {
                        concludeAnswered(settling);
                    }
                }
                concludeAll(settling);
            } finally {
                int left;
                synchronized (this) {
                    left = slots;
                    slots = 0;
                }
                runs.remove(this);
                release(left);
            }
        }

        /** @return the jobs the last job's complete claims: as many as the run holds slots, when claims chain now */
        private synchronized int chainClaims() {
            return state.running() && !state.queueDry() && source.chainsClaims() ? slots : 0;
        }

        /** Takes the jobs claimed with the last complete as this run's next round, giving back unused slots. */
        private void chain(AckBatcher.Answer answer, JobRunner.Ran last) {
            List<Job> next = new ArrayList<>();
            if (answer != null && last != null) {
                for (Attempt a : answer.next()) {
                    Job job = Job.of(last.job().line(), a);
                    leases.track(job);
                    next.add(job);
                }
                if (next.size() < answer.asked()) {
                    state.queueDry(true);
                }
            }
            int unused;
            synchronized (this) {
                jobs.addAll(next);
                unused = slots - next.size();
                slots = next.size();
            }
            release(unused);
            if (next.size() > 1) {
                watch.arm();
            }
        }

        /** Concludes the settling jobs whose answers are in, oldest first, without waiting. */
        private void concludeAnswered(ArrayDeque<JobRunner.Ran> settling) {
            while (!settling.isEmpty() && settling.peek().answered()) {
                runner.conclude(settling.poll());
            }
        }

        /** @return the answer of the last settling job, having concluded every one (waiting for their answers) */
        private AckBatcher.Answer concludeAll(ArrayDeque<JobRunner.Ran> settling) {
            AckBatcher.Answer last = null;
            while (!settling.isEmpty()) {
                last = runner.conclude(settling.poll());
            }
            return last;
        }
    }
}
