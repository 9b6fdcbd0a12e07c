package io.echomq.queue;

import io.echomq.MonotonicClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import org.slf4j.Logger;

/**
 * Runs a worker's handler on one claimed job and settles the job; {@link Runs} decides on which
 * thread and when.
 *
 * <ol>
 *   <li>Runs the handler ({@link #handle}); a lost lease or the timeout asks it to stop ({@link Job#stopSignal()}).
 *       Only when the worker interrupts handlers is the job bound to its thread, so that the stop
 *       interrupts the right thread; an interrupt never leaks into the next job. A job whose lease
 *       is lost before its handler starts is not run.</li>
 *   <li>Settles it: a handler that returned completes its job through the group commit of the
 *       job's queue ({@link AckBatcher}), sent without waiting for the answer, with the claims of
 *       the run's next jobs in the same call when the run asks; {@link #conclude} takes the answer.
 *       A handler that threw fails
 *       it as the handler's signal, then the worker's {@link RetryPolicy}, then the job's own
 *       backoff decide (retry after a delay, or dead). A job the handler settled itself, or whose loss was seen,
 *       is not settled again: the latter is {@link SettleOutcome#LEASE_LOST}.</li>
 *   <li>Counts each outcome and tells the client's instrumentation (the handler's time to the
 *       server's answer; the trace calls around the handler and its settle) and the listener, on the
 *       handler's thread, never on a Redis connection's; a
 *       throwing listener is logged and ignored. A
 *       job that failed (to a retry or to dead) is logged once at WARN, unless switched off.</li>
 *   <li>With a timeout, ends a handler that runs past it ({@link JobTimeouts} watches): the job's
 *       own, else its queue's default (both carried by the claim, {@link Job#timeout()}), else the
 *       worker's; a job with none is not watched. At the timeout, asks the handler to stop (and
 *       interrupts it, when the worker does) and fails its job with a {@link JobTimeoutException}
 *       through the retry policy, unless the handler's own settle began first. A handler that
 *       ignores the request keeps its thread and its slot until it returns; its result is then not
 *       kept.</li>
 * </ol>
 *
 * <p>Each job's outcome is counted and told once ({@link JobSettlement#markTold}), by whichever of the
 * handler's thread and the timeout's thread saw the answer first.
 */
final class JobRunner {
    private final String name;
    private final Logger log;
    private final JobHandler handler;
    private final WorkerListener listener;
    private final boolean logFailures;
    private final RetryPolicy retryPolicy;
    private final WorkerState state;
    private final LeaseKeeper leases;
    private final long leaseMs;
    private final MonotonicClock clock;
    private final long timeoutMs;   // the worker's own, 0 for none
    private final boolean interruptHandlers;   // a stop also interrupts the handler's thread
    private final JobTimeouts timeouts;   // its thread starts with the first job that has a timeout
    private final Map<JobLine, AckBatcher> batchers = new ConcurrentHashMap<>();
    private final QueueObservations observations;   // the queue's, the same for each of its partitions
    private final LongAdder completed = new LongAdder();
    private final LongAdder retrying = new LongAdder();
    private final LongAdder dead = new LongAdder();
    private final LongAdder leaseLost = new LongAdder();
    private final LongAdder ackErrors = new LongAdder();

    JobRunner(String name, Logger log, JobHandler handler, WorkerListener listener, boolean logFailures, RetryPolicy retryPolicy,
              WorkerState state,
              LeaseKeeper leases, ClaimSource source, long leaseMs, MonotonicClock clock,
              long timeoutMs, boolean interruptHandlers) {
        this.name = name;
        this.log = log;
        this.handler = handler;
        this.listener = listener;
        this.logFailures = logFailures;
        this.retryPolicy = retryPolicy;
        this.state = state;
        this.leases = leases;
        this.leaseMs = leaseMs;
        this.clock = clock;
        this.timeoutMs = timeoutMs;
        this.interruptHandlers = interruptHandlers;
        this.timeouts = new JobTimeouts(name, clock, this::timedOut);
        for (Partition q : source.queues()) {
            batchers.put(q.line(), new AckBatcher(q.line(), leaseMs));
        }
        this.observations = source.queues().get(0).observations();
    }

    /** Stops the timeout's thread, if any; a handler still running is no longer timed. */
    void close() {
        timeouts.close();
    }

    /** Sends no more completes, as a killed process would. */
    void abandon() {
        batchers.values().forEach(AckBatcher::abandon);
    }

    /** @return the counts so far, with {@code returned} from shutdown */
    WorkerCounts counts(long returned) {
        return new WorkerCounts(completed.sum(), retrying.sum(), dead.sum(), leaseLost.sum(), returned, ackErrors.sum());
    }

    /**
     * One job whose handler returned and whose complete was sent: its answer may still be on its way. The run
     * gives it to {@link #conclude}.
     */
    record Ran(Job job, Object traced, long started, CompletableFuture<AckBatcher.Answer> sent) {
        /** @return whether the complete's answer is in, so that concluding it does not wait */
        boolean answered() {
            return sent.isDone();
        }
    }

    /**
     * Runs the handler on {@code job} and begins its settle: a complete is sent through the group commit,
     * its answer left for {@link #conclude}; any other settle (a fail, a return, a loss seen) is done here, with
     * its count and its report.
     *
     * @param claims how many jobs the complete also claims for the run (0 for none), asked once the handler
     *     returned, since the worker may have begun to stop meanwhile
     * @return the job with its complete on its way, or null when nothing is left to conclude
     */
    Ran handle(Job job, IntSupplier claims) {
        Throwable error = null;
        Object traced = observations.jobStarting(job);   // null when nobody listens
        job.settlement().observation(traced);
        long started = observations.start();
        if (interruptHandlers) {
            job.leaseState().bindHandlerThread(Thread.currentThread());
        }
        long timeout = timeoutMillis(job);
        if (timeout > 0) {
            timeouts.watch(job, started, timeout);
        }
        try {
            if (!job.leaseLost()) {   // its deadline may have passed while it waited for a thread
                handler.handle(job);
            }
        } catch (Throwable t) {
            error = t;
        } finally {
            if (timeout > 0) {
                timeouts.unwatch(job);
            }
            if (interruptHandlers) {
                job.leaseState().bindHandlerThread(null);
            }
            Thread.interrupted();   // an interrupt must not leak into the next job
            observations.handlerReturned(traced, error);
        }
        if (state.abandoned()) {
            return null;
        }
        SettleOutcome outcome = null;
        try {
            if (job.isSettled()) {
                outcome = job.outcome().orElse(null);
            } else if (job.leaseLost()) {
                // never complete (or fail) a job whose loss was seen: its handler may have stopped
                // early on seeing it, and the server may still accept within the drift allowance
                outcome = job.cancelled() ? SettleOutcome.CANCELLED : SettleOutcome.LEASE_LOST;
            } else if (job.timedOut()) {
                // the timeout fired but its fail was not sent (or failed): whatever the handler
                // returned late, the attempt fails as timed out
                error = timeoutError(job, error);
                outcome = job.fail(error, retryPolicy);
            } else if (error instanceof RateLimitedException limited) {
                // the remote refused, not the job: back to pending unspent, the whole queue held
                outcome = job.settlement().settleWith("return", code -> SettleOutcome.RETURNED,
                        () -> job.line().attempts().returnLease(job.granted(), limited.backOffMillis()),
                        SettleReadBack::returned);
            } else if (error == null) {
                return new Ran(job, traced, started, job.settlement().completeSent(batcher(job.line()), claims.getAsInt()));
            } else {
                outcome = job.fail(error, retryPolicy);
            }
        } catch (IllegalStateException settledConcurrently) {
            outcome = job.outcome().orElse(null);
        } catch (RuntimeException e) {
            settleFailed(job, traced, e);
            return null;
        }
        leases.untrack(job);
        finish(job, outcome, error, started);
        return null;
    }

    /**
     * Takes the answer of a complete {@link #handle} sent (waiting for it if it is not in), settles the job by it,
     * and counts and reports the outcome.
     *
     * @return the answer, with the attempts claimed for the run; null when the call failed for good (the job's
     *     lease then runs out and the reaper returns it)
     */
    AckBatcher.Answer conclude(Ran ran) {
        Job job = ran.job();
        AckBatcher.Answer answer;
        try {
            answer = job.settlement().completed(ran.sent(), batcher(job.line()));
        } catch (RuntimeException e) {
            settleFailed(job, ran.traced(), e);
            return null;
        }
        SettleOutcome outcome;
        try {
            job.line().attempts().checkClaimCompleteCode(job.granted(), answer.code());
            outcome = job.outcome().orElse(null);
        } catch (RuntimeException e) {
            settleFailed(job, ran.traced(), e);
            return answer;
        }
        leases.untrack(job);
        finish(job, outcome, null, ran.started());
        return answer;
    }

    /** A settle that got no answer: counted, logged, told to the instrumentation; the job is no longer held. */
    private void settleFailed(Job job, Object traced, RuntimeException e) {
        leases.untrack(job);
        ackErrors.increment();
        log.warn("{}: could not settle {}; its lease runs out and the reaper returns it: {}", name, job, e.toString());
        observations.jobEnded(traced, null, e);
    }

    /**
     * Told by {@link JobTimeouts} on its thread when {@code job}'s handler ran past the timeout:
     * unless the job's settle began (the handler's own, or a loss), marks it timed out, asks its
     * handler to stop (interrupting it, when the worker does), and fails it with a
     * {@link JobTimeoutException}. A fail that Redis refuses to
     * answer leaves the job to its handler's return or, failing that, to its lease: it is no longer
     * renewed, so the reaper returns it.
     */
    private void timedOut(Job job, long observed) {
        if (job.settlement().started() || job.leaseState().isLost() || !job.settlement().markTimedOut()) {
            return;
        }
        job.leaseState().requestStop();
        if (state.abandoned()) {
            return;
        }
        JobTimeoutException error = timeoutError(job, null);
        SettleOutcome outcome;
        try {
            outcome = job.fail(error, retryPolicy);
        } catch (IllegalStateException settledConcurrently) {
            return;   // the handler's settle began first: its thread counts and tells it
        } catch (RuntimeException e) {
            ackErrors.increment();
            leases.untrack(job);
            log.warn("{}: could not fail {} after its timeout; its lease runs out and the reaper returns it: {}", name,
                    job, e.toString());
            return;
        }
        leases.untrack(job);
        finish(job, outcome, error, observed);
    }

    private JobTimeoutException timeoutError(Job job, Throwable handlerError) {
        return handlerError instanceof JobTimeoutException t ? t
                : new JobTimeoutException(job.id(), job.attempt(), Duration.ofMillis(timeoutMillis(job)), handlerError);
    }

    /** @return the timeout that applies to {@code job}: its own or its queue's (the claim's), else the worker's; 0 for none */
    private long timeoutMillis(Job job) {
        return job.timeout().map(Duration::toMillis).orElse(timeoutMs);
    }

    /** Counts {@code outcome} and tells the instrumentation, the log and the listener, once per job. */
    private void finish(Job job, SettleOutcome outcome, Throwable error, long started) {
        if (outcome == null || !job.settlement().markTold()) {
            return;
        }
        if (job.timedOut() && (outcome == SettleOutcome.RETRYING || outcome == SettleOutcome.DEAD)) {
            error = timeoutError(job, error);   // the handler's thread may tell a fail the timeout made
            observations.timedOut(outcome);
        }
        if (outcome == SettleOutcome.RETRYING) {
            state.retryScheduled();
        }
        count(outcome);
        observations.settled(outcome, started);
        observations.jobEnded(job.settlement().observation(), outcome, error);
        if (logFailures && (outcome == SettleOutcome.RETRYING || outcome == SettleOutcome.DEAD)) {
            log.warn("{}: job {} attempt {} failed, {}: {}", name, job.id(), job.attempt(),
                    outcome == SettleOutcome.DEAD ? "dead" : "will retry", summary(error, job.settlement().failText()));
        }
        try {
            listener.onSettled(job, outcome, error);
        } catch (RuntimeException e) {
            log.warn("{}: listener failed on {}", name, job, e);
        }
    }

    /** Longest error summary in a failure's log line; the whole trace is kept in the job's {@code last_error}. */
    static final int SUMMARY_CHARS = 300;

    /**
     * @return for a thrown error, its class and the first line of its message; for a job the handler
     *     failed itself, the first and the last line of the text it gave (a command's stderr and its
     *     exit status, say); each cut to {@link #SUMMARY_CHARS}
     */
    static String summary(Throwable error, String failText) {
        String text;
        if (error != null) {
            String message = error.getMessage();
            String line = message == null ? "" : message.strip().lines().findFirst().orElse("");
            text = line.isEmpty() ? error.getClass().getName() : error.getClass().getName() + ": " + line;
        } else if (failText != null && !failText.isBlank()) {
            List<String> lines = failText.strip().lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
            String first = lines.get(0);
            String last = lines.get(lines.size() - 1);
            // a stack trace's last line is a frame: its first line says what went wrong
            boolean frame = last.startsWith("at ") || last.startsWith("...");
            text = lines.size() == 1 || frame ? first : first + " … " + last;
        } else {
            text = "failed by its handler";
        }
        return text.length() <= SUMMARY_CHARS ? text : text.substring(0, SUMMARY_CHARS) + "…";
    }

    /** @return the group commit of this worker's completes on {@code q} */
    private AckBatcher batcher(JobLine line) {
        AckBatcher b = batchers.get(line);
        return b != null ? b : batchers.computeIfAbsent(line, l -> new AckBatcher(l, leaseMs));
    }

    private void count(SettleOutcome outcome) {
        switch (outcome) {
            case COMPLETED -> completed.increment();
            case RETRYING -> retrying.increment();
            case DEAD -> dead.increment();
            case LEASE_LOST, CANCELLED -> leaseLost.increment();
            default -> {
                // RETURNED is counted by shutdown
            }
        }
    }
}
