package io.echomq.lock;

/**
 * {@link LeaseLock#unlock()} found that the lease under the lock had been lost while the calling
 * thread held the lock: it expired, was taken by someone else, or its local deadline passed. The
 * work done under the lock may have overlapped with another holder's; writes fenced with
 * {@link LeaseLock#currentFence()} were refused once a newer holder wrote.
 *
 * <p>It is an {@link IllegalMonitorStateException}, the exception the {@link java.util.concurrent.locks.Lock}
 * contract names for "the calling thread did not hold this lock", because for part of the critical
 * section it did not. By the time it is thrown the thread no longer holds the lock locally either,
 * and nothing is left to release.
 */
public final class LockLostException extends IllegalMonitorStateException {
    private static final long serialVersionUID = 1L;

    private final String resource;
    private final LossReason reason;

    /**
     * @param resource the locked resource
     * @param reason   why the lease was lost
     */
    public LockLostException(String resource, LossReason reason) {
        super("The lease of lock '" + resource + "' was lost while it was held (" + reason
                + "): the work under the lock may have overlapped with another holder's");
        this.resource = resource;
        this.reason = reason;
    }

    /** @return the locked resource */
    public String resource() {
        return resource;
    }

    /** @return why the lease was lost */
    public LossReason reason() {
        return reason;
    }
}
