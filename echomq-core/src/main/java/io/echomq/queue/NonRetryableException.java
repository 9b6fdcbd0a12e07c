package io.echomq.queue;

/**
 * Thrown by a {@link JobHandler} to fail a job without a retry: it goes to the dead set at once,
 * whatever attempts it has left.
 */
public class NonRetryableException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param message why the job cannot succeed */
    public NonRetryableException(String message) {
        super(message);
    }

    /**
     * @param message why the job cannot succeed
     * @param cause   the underlying failure
     */
    public NonRetryableException(String message, Throwable cause) {
        super(message, cause);
    }
}
