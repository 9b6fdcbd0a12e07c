package io.echomq.lock;

import io.echomq.internal.Checks;
import io.echomq.internal.InstrumentationGuard;

/**
 * The guard every lock client puts around a user's {@link LockInstrumentation}: each call goes to
 * the delegate, and what it throws is handed to an {@link InstrumentationGuard} (swallowed, the
 * first failure of each method logged at WARN), so that instrumentation cannot break a lock.
 * {@link #of} hands {@link LockInstrumentation#NONE} back unguarded, so that the parts can test
 * {@code observer != NONE} once, at construction.
 */
final class GuardedLockInstrumentation implements LockInstrumentation {
    private static final int LOCK_ACQUIRE = 0;
    private static final int LEASE_HELD = 1;
    private static final int LEASE_ENDED = 2;
    private static final int LEASE_LOST = 3;
    private static final int LEASE_RENEWAL = 4;

    private final LockInstrumentation delegate;
    private final InstrumentationGuard guard;

    private GuardedLockInstrumentation(LockInstrumentation delegate) {
        this.delegate = delegate;
        this.guard = new InstrumentationGuard(delegate, "lockAcquire", "leaseHeld", "leaseEnded", "leaseLost",
                "leaseRenewal");
    }

    /**
     * @param instrumentation what a builder was given
     * @return {@link LockInstrumentation#NONE} for NONE and for one that overrides none of this side's methods
     *     (it would record nothing), else the guarded instrumentation
     * @throws IllegalArgumentException if it is null
     */
    static LockInstrumentation of(LockInstrumentation instrumentation) {
        Checks.notNull(instrumentation, "instrumentation");
        if (instrumentation == NONE || instrumentation instanceof GuardedLockInstrumentation) {
            return instrumentation;
        }
        if (!InstrumentationGuard.overridesAny(instrumentation, LockInstrumentation.class)) {
            return NONE;
        }
        return new GuardedLockInstrumentation(instrumentation);
    }

    /** @return whether {@code method}'s first failure was logged; for tests */
    boolean warnedOf(String method) {
        return guard.warnedOf(method);
    }

    @Override
    public void lockAcquire(LockMode mode, AcquireOutcome outcome, long nanos) {
        try {
            delegate.lockAcquire(mode, outcome, nanos);
        } catch (Throwable t) {
            guard.failed(LOCK_ACQUIRE, t);
        }
    }

    @Override
    public Object leaseHeld(LockMode mode, Lease lease) {
        try {
            return delegate.leaseHeld(mode, lease);
        } catch (Throwable t) {
            guard.failed(LEASE_HELD, t);
            return null;
        }
    }

    @Override
    public void leaseEnded(Object handle) {
        try {
            delegate.leaseEnded(handle);
        } catch (Throwable t) {
            guard.failed(LEASE_ENDED, t);
        }
    }

    @Override
    public void leaseLost(LockMode mode, LossReason reason) {
        try {
            delegate.leaseLost(mode, reason);
        } catch (Throwable t) {
            guard.failed(LEASE_LOST, t);
        }
    }

    @Override
    public void leaseRenewal(LockMode mode, RenewalResult result) {
        try {
            delegate.leaseRenewal(mode, result);
        } catch (Throwable t) {
            guard.failed(LEASE_RENEWAL, t);
        }
    }

    @Override
    public String toString() {
        return "Guarded[" + delegate + "]";
    }
}
