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
 *
 * <p><b>What it means when the work is done.</b> It is thrown by the last {@code unlock()}, so the
 * critical section has already run to its end: its writes may be done, and a transaction inside
 * it may have committed. It does not say the work failed; it says exclusivity was not guaranteed
 * for the whole of it (the lease was lost at some point while it ran, for example because a
 * starved JVM could not renew it in time, and another holder may have run meanwhile). So:
 *
 * <ul>
 *   <li>do not blindly retry work that is not idempotent: the first run may have done it all,
 *       and a retry does it twice;</li>
 *   <li>make the writes safe instead: pass {@link LeaseLock#currentFence()} to a store that
 *       checks it ({@link FencedStore}, or SQL {@code UPDATE … WHERE fence <= ?}, for example
 *       echomq-jdbc's {@code FencedUpdate}), which refuses a stale holder's writes once a newer
 *       holder wrote, so the overlap cannot corrupt anything;</li>
 *   <li>or check whether the work was done (an idempotency key, the state it leaves) before
 *       doing it again.</li>
 * </ul>
 *
 * <p><b>One family.</b> Every "the lease was lost while the work ran" that EchoMQ throws is this
 * type or a subclass of it (the Spring starter's {@code io.echomq.spring.lock.LockLostException},
 * thrown for a {@code @Locked} method), so one {@code catch (LockLostException e)} sees them all,
 * with {@link #resource()} and {@link #reason()}.
 */
public class LockLostException extends IllegalMonitorStateException {
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

    /**
     * For a subclass that reports the same loss where it surfaces elsewhere, in its own words.
     *
     * @param message  the detail message
     * @param resource the locked resource
     * @param reason   why the lease was lost
     * @param cause    what the work under the lock threw, or {@code null}
     */
    protected LockLostException(String message, String resource, LossReason reason, Throwable cause) {
        super(message);
        this.resource = resource;
        this.reason = reason;
        if (cause != null) {
            initCause(cause);
        }
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
