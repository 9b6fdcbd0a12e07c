package io.echomq.lock;

import io.echomq.EchoMQException;
import java.time.Duration;

/**
 * {@link LockClient#acquire} waited its whole {@code maxWait} and the lock was still held.
 * Nothing was acquired and nothing needs releasing.
 */
public final class LockWaitTimeoutException extends EchoMQException {
    private static final long serialVersionUID = 1L;

    private final String resource;
    private final Duration maxWait;

    /**
     * @param resource the resource that stayed held
     * @param maxWait how long the caller waited
     */
    public LockWaitTimeoutException(String resource, Duration maxWait) {
        super("Timed out after " + maxWait.toMillis() + " ms waiting for lock '" + resource + "': still held");
        this.resource = resource;
        this.maxWait = maxWait;
    }

    /** @return the resource that stayed held */
    public String resource() {
        return resource;
    }

    /** @return how long the caller waited */
    public Duration maxWait() {
        return maxWait;
    }
}
