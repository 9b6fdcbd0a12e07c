package io.echomq.queue;

import java.time.Duration;

/**
 * The error a {@link Worker} fails a job with when its handler runs past the job's timeout,
 * measured on the client's monotonic clock from the handler's start. That timeout is the job's own
 * ({@link EnqueueOptions#withTimeout}), else its queue's default
 * ({@link QueueOperations#setDefaultTimeout}), else the worker's
 * ({@link Worker.Builder#timeout(Duration)}); a job with none of them is never timed out. The lease, renewed while the handler runs, is not the limit. Its message starts
 * with {@code TIMEOUT}, and its stack trace is what the job's {@code last_error} keeps, so an
 * operator reads the reason there.
 *
 * <p>At the timeout the worker asks the handler to stop ({@link Job#timedOut()} and
 * {@link Job#stopRequested()} read true, {@link Job#stopSignal()} completes; its thread is
 * interrupted only when the worker was built with {@link Worker.Builder#interruptHandlers(boolean)})
 * and fails the job from a thread of its own, unless the handler's own settle began first: each
 * attempt ends once, completed or timed out. A handler that ignores the request keeps running
 * and holds its worker slot until it returns; what it returns or settles then is not kept.
 *
 * <p>It is a failure like any other: the worker's {@link RetryPolicy} decides whether the job is
 * retried or goes to dead (a rule may name this class), and the job's {@code max_attempts}
 * bounds the retries. Its cause, when present, is what the stopped handler threw.
 */
public final class JobTimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The word that starts the message, and so the job's {@code last_error}. */
    public static final String REASON = "TIMEOUT";

    private final transient Duration timeout;

    /**
     * @param jobId   the job that ran too long
     * @param attempt its attempt
     * @param timeout the timeout it ran past
     * @param cause   what the handler threw after it was asked to stop, or null
     */
    public JobTimeoutException(String jobId, long attempt, Duration timeout, Throwable cause) {
        super(REASON + ": job " + jobId + " attempt " + attempt + " ran past its timeout of " + timeout.toMillis()
                +  " ms; its handler was asked to stop", cause);
        this.timeout = timeout;
    }

    /** @return the timeout the job ran past */
    public Duration timeout() {
        return timeout;
    }
}
