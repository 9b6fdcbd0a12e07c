package io.echomq.lock;

import io.echomq.lock.LockInstrumentation.AcquireOutcome;
import io.echomq.lock.LockInstrumentation.LockMode;
import io.echomq.lock.LockInstrumentation.RenewalResult;
import io.echomq.MonotonicClock;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What one lock client tells its {@link LockInstrumentation}, for {@link LockClient} and
 * {@link RedlockClient} alike.
 *
 * <ol>
 *   <li>Times acquires ({@link #start}, {@link #tried}, {@link #waited}) and names their outcome
 *       and mode.</li>
 *   <li>Reports a lease held, ended, lost or renewed, for {@link LeaseIssuer} and so for
 *       {@link Lease}.</li>
 *   <li>Costs one final boolean test when the client has no instrumentation: no clock read, no
 *       callback, no allocation. The instrumentation it holds is already guarded, so a call here
 *       never throws.</li>
 * </ol>
 */
final class LockObservations {
    /** The observations of a client without instrumentation. */
    static final LockObservations NONE = new LockObservations(LockInstrumentation.NONE, MonotonicClock.SYSTEM, false);

    private final LockInstrumentation observer;
    private final boolean observed;
    private final MonotonicClock clock;
    private final boolean redlock;

    /**
     * @param observer the guarded instrumentation ({@code GuardedLockInstrumentation.of}), or NONE
     * @param redlock whether the client is a {@link RedlockClient}
     */
    LockObservations(LockInstrumentation observer, MonotonicClock clock, boolean redlock) {
        this.observer = observer;
        this.observed = observer != LockInstrumentation.NONE;
        this.clock = clock;
        this.redlock = redlock;
    }

    /** @return the clock reading that starts an acquire's timing, or 0 when nobody listens */
    long start() {
        return observed ? clock.nanoTime() : 0L;
    }

    /** @return {@code f}, reported when it completes: ACQUIRED, BUSY or ERROR */
    CompletableFuture<Optional<Lease>> tried(CompletableFuture<Optional<Lease>> f, AcquireOptions options,
                                             long start) {
        if (!observed) {
            return f;
        }
        LockMode mode = mode(options.isFenced());
        return f.whenComplete((lease, error) -> observer.lockAcquire(mode,
                error != null ? AcquireOutcome.ERROR : lease.isPresent() ? AcquireOutcome.ACQUIRED : AcquireOutcome.BUSY,
                clock.nanoTime() - start));
    }

    /** Reports a try (no wait) that ended, with {@code outcome}, for a caller that waited for it itself. */
    void tried(AcquireOptions options, long start, AcquireOutcome outcome) {
        waited(options, start, outcome);
    }

    /** Reports a waiting acquire that ended, with {@code outcome}. */
    void waited(AcquireOptions options, long start, AcquireOutcome outcome) {
        if (observed) {
            observer.lockAcquire(mode(options.isFenced()), outcome, clock.nanoTime() - start);
        }
    }

    /** @return the outcome of a waiting acquire that threw {@code t} */
    static AcquireOutcome outcomeOf(Throwable t) {
        return t instanceof LockWaitTimeoutException ? AcquireOutcome.TIMED_OUT : AcquireOutcome.ERROR;
    }

    /** @return the handle of a lease just granted, or null */
    Object held(Lease lease) {
        return observed ? observer.leaseHeld(mode(lease.isFenced()), lease) : null;
    }

    /** The lease whose held handle is {@code handle} (not null) was released or lost. */
    void ended(Object handle) {
        observer.leaseEnded(handle);
    }

    void lost(Lease lease, LossReason reason) {
        if (observed) {
            observer.leaseLost(mode(lease.isFenced()), reason);
        }
    }

    void renewal(Lease lease, RenewalResult result) {
        if (observed) {
            observer.leaseRenewal(mode(lease.isFenced()), result);
        }
    }

    private LockMode mode(boolean fenced) {
        return redlock ? LockMode.REDLOCK : fenced ? LockMode.FENCED : LockMode.PLAIN;
    }
}
