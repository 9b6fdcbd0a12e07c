package io.echomq.spring.lock;

/**
 * A {@link Locked} method did not run because its lock was held by someone else: at once with
 * {@link WhenBusy#THROW}, or after {@link Locked#maxWait()} with {@link WhenBusy#WAIT} (the cause is
 * then the core's {@code LockWaitTimeoutException}, or an {@code InterruptedException} whose
 * interrupt status is kept on the thread).
 */
public class LockBusyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String resource;

    /**
     * @param resource the lock's resource
     * @param message what happened
     * @param cause the core's exception, or {@code null}
     */
    public LockBusyException(String resource, String message, Throwable cause) {
        super(message, cause);
        this.resource = resource;
    }

    /** @return the lock's resource */
    public String resource() {
        return resource;
    }
}
