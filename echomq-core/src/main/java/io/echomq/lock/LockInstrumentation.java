package io.echomq.lock;

/**
 * The hook through which a metrics or tracing library watches locks. Every method has an empty
 * default, so an implementation overrides only what it records. Set one on a lock client's
 * builder: {@code LockClient.builder().instrumentation(x)}, the same on
 * {@code RedlockClient.builder()}. {@code io.echomq.observe.Instrumentation} joins this hook and
 * the queue's ({@code io.echomq.queue.QueueInstrumentation}) in one type, the one to implement to
 * watch both; {@code echomq-micrometer} is the ready implementation; {@code docs/observability.md}
 * lists what each call means.
 *
 * <p><b>Cost when unused.</b> A client built without one holds {@link #NONE}, and each call site
 * checks one final boolean before it reads a clock or builds anything: nothing is allocated and no
 * extra clock is read on the lock's path.
 *
 * <p><b>It cannot break a lock.</b> The clients call an implementation through a guard: an
 * exception (or an {@link Error} other than a {@link VirtualMachineError}) thrown by any method is
 * caught, logged at WARN once per method of that implementation (later ones at DEBUG), and
 * otherwise ignored. The lock is still granted, released or renewed.
 *
 * <p><b>Threads.</b> Calls arrive on the caller's thread, the watchdog's or a Lettuce event-loop
 * thread. Keep them quick, never block, never call Redis from them, and be thread-safe.
 *
 * <p><b>Cardinality.</b> No argument names a lock's resource, so that a metric tagged by them stays
 * bounded. The {@link Lease} passed to {@link #leaseHeld} is for tracking only: read
 * {@link Lease#isHeld()}, not its resource, for a tag.
 */
public interface LockInstrumentation {

    /** Which kind of lock a call was about. */
    enum LockMode {
        /** {@code SET NX PX}, no fence ({@code AcquireOptions.plain()}). */
        PLAIN,
        /** The fenced acquire of {@code LockClient}, the default. */
        FENCED,
        /** Any acquire of {@code RedlockClient}, over N masters. */
        REDLOCK
    }

    /** How one call of {@code tryAcquire} or {@code acquire} ended. */
    enum AcquireOutcome {
        /** A lease was granted. */
        ACQUIRED,
        /** {@code tryAcquire} found the lock held (or, on Redlock, no quorum granted it). */
        BUSY,
        /** {@code acquire} waited its whole {@code maxWait} ({@code LockWaitTimeoutException}). */
        TIMED_OUT,
        /** Redis failed, too few replicas acknowledged, or the waiting thread was interrupted. */
        ERROR
    }

    /** How one renewal of a lease ended, by hand or by the watchdog. */
    enum RenewalResult {
        /** The server renewed it. */
        RENEWED,
        /** The server refused it: the lock was gone or held under another token; the lease is lost. */
        REFUSED,
        /** Redis failed; the outcome is unknown (the watchdog retries until the deadline). */
        ERROR
    }

    /** The implementation that records nothing; what a client holds when none was set. */
    LockInstrumentation NONE = new LockInstrumentation() {
        @Override
        public String toString() {
            return "LockInstrumentation.NONE";
        }
    };

    /**
     * One {@code tryAcquire} or {@code acquire} call ended (its asynchronous form: when its
     * future completed). Arguments rejected before Redis was touched are not reported.
     *
     * @param mode the kind of lock
     * @param outcome how it ended
     * @param nanos the call's time on the client's clock, waiting included
     */
    default void lockAcquire(LockMode mode, AcquireOutcome outcome, long nanos) {
    }

    /**
     * A lease was granted and is now held. The value returned is handed back to
     * {@link #leaseEnded} when the lease is released or lost; return {@code null} to hear nothing
     * then. A lease whose holder neither releases it nor asks about it ends, as far as the client
     * knows, only at its local deadline, and no call reports that: an implementation that tracks
     * held leases should drop those for which {@link Lease#isHeld()} turned false.
     *
     * @param mode the kind of lock
     * @param lease the lease, for tracking only (never use its resource or token as a tag)
     * @return a handle for {@link #leaseEnded}, or null
     */
    default Object leaseHeld(LockMode mode, Lease lease) {
        return null;
    }

    /**
     * A lease for which {@link #leaseHeld} returned {@code handle} was released or lost. Called
     * once per lease.
     *
     * @param handle what {@link #leaseHeld} returned, never null
     */
    default void leaseEnded(Object handle) {
    }

    /**
     * A lease was lost: a renewal or release found it gone or taken, or its local deadline
     * passed. Once per lease, before {@link #leaseEnded}.
     *
     * @param mode the kind of lock
     * @param reason why
     */
    default void leaseLost(LockMode mode, LossReason reason) {
    }

    /**
     * A renewal of a held lease was answered (by hand, {@code Lease.renew}, or by the watchdog).
     * A renewal refused locally, because the lease was already lost or past its deadline, sends
     * nothing and is not reported.
     *
     * @param mode the kind of lock
     * @param result how it ended
     */
    default void leaseRenewal(LockMode mode, RenewalResult result) {
    }
}
