package io.echomq.queue;

/**
 * The code a {@link Worker} runs for each job.
 *
 * <p>Returning normally completes the job. Throwing fails it with the exception's stack trace as
 * the error: it is retried after its backoff, or goes to dead once it has spent its attempts.
 * Throwing {@link NonRetryableException} sends it to dead at once. A handler may also settle the
 * job itself ({@link Job#complete()}, {@link Job#fail}); the worker then leaves it alone.
 *
 * <p>When the job's lease is lost (a cancel and a shutdown past its grace included) or its timeout
 * fires, the worker asks the handler to stop: {@link Job#stopRequested()} turns true and
 * {@link Job#stopSignal()} completes. It does not interrupt the handler's thread unless built with
 * {@link Worker.Builder#interruptHandlers(boolean)}: on a virtual thread an interrupt closes the
 * socket under a blocking call, breaking a pooled connection the handler borrowed. A handler that
 * blocks should check {@link Job#stopRequested()} between steps and attach what ends its blocking
 * call cleanly (a JDBC {@code Statement.cancel()}) to {@link Job#stopSignal()}; whatever it does
 * after the stop is not kept, and the fence refuses its late settles.
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
