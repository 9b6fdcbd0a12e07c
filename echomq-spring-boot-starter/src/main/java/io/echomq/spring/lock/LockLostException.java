package io.echomq.spring.lock;

import io.echomq.lock.LossReason;

/**
 * The lease of a {@link Locked} method was lost while the method ran (a renewal found the lock
 * gone or taken, or its local deadline passed), so what it did after that was not protected by
 * the lock. Thrown by {@link LockedContext#checkHeld()} inside the method, and by the method's
 * proxy when the method returns or throws after the loss; the method's own exception, if any, is
 * then the cause. The lock may meanwhile be held by another caller.
 *
 * <p><b>Lost, yet the method returned.</b> Thrown by the proxy after the method ended, it does
 * not mean the method's work failed: the work may be done, and an inner {@code @Transactional}
 * may have committed (the lock is outside the transaction). It means exclusivity was not
 * guaranteed for the method's whole run: at some point the lease was lost (a renewal found the
 * lock gone, or a starved JVM could not renew it before its deadline) and another caller may
 * have run meanwhile. Do not blindly retry non-idempotent work on it, which would do it twice;
 * write with the lease's fence to a store that checks it (echomq-jdbc's {@code FencedUpdate},
 * or {@code UPDATE … WHERE fence <= ?}), so that an overlap cannot corrupt anything, or check
 * whether the work was done (an idempotency key) before redoing it. On a {@code @Scheduled}
 * method that returned normally it is not thrown: the loss is logged as one WARN line.
 *
 * <p>It is the core's {@link io.echomq.lock.LockLostException} (an
 * {@link IllegalMonitorStateException}), so a {@code catch} of either type sees it; {@link #resource()}
 * and {@link #reason()} are the core's.
 */
public class LockLostException extends io.echomq.lock.LockLostException {
    private static final long serialVersionUID = 2L;

    /**
     * @param resource the lock's resource
     * @param reason why the lease was lost
     * @param cause the method's own exception, or {@code null}
     */
    public LockLostException(String resource, LossReason reason, Throwable cause) {
        super("lost the lock on '" + resource + "' (" + reason + ") while the method ran", resource, reason, cause);
    }
}
