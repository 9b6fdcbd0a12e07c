package io.echomq.spring.lock;

import io.echomq.lock.LossReason;

/**
 * The lease of a {@link Locked} method was lost while the method ran (a renewal found the lock
 * gone or taken, or its local deadline passed), so what it did after that was not protected by
 * the lock. Thrown by {@link LockedContext#checkHeld()} inside the method, and by the method's
 * proxy when the method returns or throws after the loss; the method's own exception, if any, is
 * then the cause. The lock may meanwhile be held by another caller.
 */
public class LockLostException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String resource;
    private final transient LossReason reason;

    /**
     * @param resource the lock's resource
     * @param reason why the lease was lost
     * @param cause the method's own exception, or {@code null}
     */
    public LockLostException(String resource, LossReason reason, Throwable cause) {
        super("lost the lock on '" + resource + "' (" + reason + ") while the method ran", cause);
        this.resource = resource;
        this.reason = reason;
    }

    /** @return the lock's resource */
    public String resource() {
        return resource;
    }

    /** @return why the lease was lost */
    public LossReason reason() {
        return reason;
    }
}
