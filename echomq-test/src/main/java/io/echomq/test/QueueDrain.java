package io.echomq.test;

import io.echomq.queue.Job;
import io.echomq.queue.JobHandler;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.SettleOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Runs a queue's jobs inline, on the calling thread, with the handler a worker would run, until none is left: the
 * test's replacement for starting a worker and waiting for it.
 *
 * <pre>{@code
 * List<DrainedJob> ran = QueueDrain.drain(queues.queue("emails"), new EmailHandler(outbox));
 * }</pre>
 *
 * Each round promotes the delayed jobs that are due, then claims one job (in claim order) and runs the handler on
 * it. A handler that returns completes its job; one that settles the job itself keeps its own settle. A handler
 * that throws fails its job, as a worker would (the job's retries and backoff, {@code NonRetryableException} to
 * dead), and the drain stops at once with an {@link AssertionError} whose cause is the handler's exception. Jobs
 * the handler enqueues on the same queue run in the same drain. Delayed jobs not yet due, and retries waiting for
 * their backoff, are left where they are.
 *
 * <p>There is no worker: no lease renewal (each job is claimed for {@link #LEASE}), no timeout, no concurrency,
 * no retry policy but the job's own. The drain is for tests; its results are the queue's real state.
 */
public final class QueueDrain {
    /** The lease each job is claimed for; a handler that runs longer loses its job to the reaper. */
    public static final Duration LEASE = Duration.ofMinutes(5);
    /** The most jobs one drain runs before it gives up, so that a handler that re-enqueues forever ends. */
    public static final int MAX_JOBS = 10_000;

    private QueueDrain() {
    }

    /**
     * Runs the queue's pending (and due delayed) jobs with {@code handler} until none is left.
     *
     * @param queue   the queue
     * @param handler the handler its worker runs
     * @return the jobs that ran, in the order they ran; empty when none was pending
     * @throws AssertionError if the handler threw (its exception is the cause; the job was failed), or more than
     *     {@link #MAX_JOBS} jobs ran
     * @throws IllegalArgumentException if queue or handler is null
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public static List<DrainedJob> drain(QueueOperations queue, JobHandler handler) {
        if (queue == null || handler == null) {
            throw new IllegalArgumentException("queue and handler must not be null");
        }
        List<DrainedJob> ran = new ArrayList<>();
        while (true) {
            queue.promote(Queue.MAX_BATCH);
            Optional<Job> claimed = queue.claim(LEASE);
            if (claimed.isEmpty()) {
                return ran;
            }
            if (ran.size() == MAX_JOBS) {
                claimed.get().returnLease();
                throw new AssertionError("drain of queue '" + queue.name() + "' ran " + MAX_JOBS
                        + " jobs and more are pending: does a handler enqueue a job for every job it runs?");
            }
            ran.add(run(queue.name(), claimed.get(), handler));
        }
    }

    private static DrainedJob run(String queue, Job job, JobHandler handler) {
        try {
            handler.handle(job);
        } catch (VirtualMachineError e) {
            throw e;   // nothing can be trusted to run after it, a settle included
        } catch (Throwable e) {
            SettleOutcome outcome = job.isSettled() ? job.outcome().orElse(null) : job.fail(e);
            throw new AssertionError("drain of queue '" + queue + "': the handler threw on job " + job.id()
                    + " (attempt " + job.attempt() + "; the job is now " + outcome + "): " + e, e);
        }
        SettleOutcome outcome = job.isSettled() ? job.outcome().orElse(null) : job.complete();
        return new DrainedJob(job.id(), job.payloadUtf8(), job.attempt(), outcome);
    }
}
