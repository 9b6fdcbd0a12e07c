package io.echomq.queue;

/**
 * The code a {@link Worker} runs for each job.
 *
 * <p>Returning normally completes the job. Throwing fails it with the exception's stack trace as
 * the error: it is retried after its backoff, or goes to dead once it has spent its attempts.
 * Throwing {@link NonRetryableException} sends it to dead at once. A handler may also settle the
 * job itself ({@link Job#complete()}, {@link Job#fail}); the worker then leaves it alone.
 *
 * <p>When the job's lease is lost, the worker interrupts the handler's thread. A handler that
 * does not block interruptibly should check {@link Job#leaseLost()} and stop: its result would be
 * refused anyway.
 */
@FunctionalInterface
public interface JobHandler {
    /**
     * Runs one job.
     *
     * @param job the claimed job, with its payload and attempt
     * @throws Exception to fail the job
     */
    void handle(Job job) throws Exception;
}
