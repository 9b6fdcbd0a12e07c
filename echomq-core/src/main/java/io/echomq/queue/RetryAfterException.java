package io.echomq.queue;

import java.time.Duration;

/**
 * Thrown by a {@link JobHandler} to fail this attempt and ask for a retry after exactly
 * {@link #delay()}, counted from the server's now. It wins over the worker's {@link RetryPolicy}
 * and over the backoff the producer stored; it adds no attempt: once the job has spent its
 * {@code max_attempts}, it goes to dead like any other failure.
 */
public class RetryAfterException extends Exception {
    private static final long serialVersionUID = 1L;

    private final Duration delay;

    /**
     * @param delay   the wait before the retry, 0..{@link EnqueueOptions#MAX_DELAY}
     * @param message why this attempt failed
     * @throws IllegalArgumentException if {@code delay} is null, negative or over {@link EnqueueOptions#MAX_DELAY}
     */
    public RetryAfterException(Duration delay, String message) {
        this(delay, message, null);
    }

    /**
     * @param delay   the wait before the retry, 0..{@link EnqueueOptions#MAX_DELAY}
     * @param message why this attempt failed
     * @param cause   the underlying failure, or null
     * @throws IllegalArgumentException if {@code delay} is null, negative or over {@link EnqueueOptions#MAX_DELAY}
     */
    public RetryAfterException(Duration delay, String message, Throwable cause) {
        super(message, cause);
        RetryAction.delayMillis(delay, "RetryAfterException delay");
        this.delay = delay;
    }

    /** @return the wait before the retry */
    public Duration delay() {
        return delay;
    }
}
