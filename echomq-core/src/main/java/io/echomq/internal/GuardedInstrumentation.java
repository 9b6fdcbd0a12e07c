package io.echomq.internal;

import io.echomq.Instrumentation;
import io.echomq.lock.Lease;
import io.echomq.lock.LossReason;
import io.echomq.queue.SettleOutcome;
import io.echomq.queue.EnqueueResult;
import io.echomq.queue.Job;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The guard every client puts around a user's {@link Instrumentation}, so that instrumentation
 * cannot break a lock or a job.
 *
 * <ol>
 *   <li>Calls the delegate and catches whatever it throws, except a {@link VirtualMachineError}
 *       (out of memory, stack overflow), which no caller could handle either.</li>
 *   <li>Logs the first failure of each method at WARN, with its stack trace, and later ones of
 *       that method at DEBUG: a broken exporter must not flood the log once per lock.</li>
 *   <li>Hands {@link #of} back {@link Instrumentation#NONE} unguarded, so that the parts can test
 *       {@code observer != NONE} once, at construction.</li>
 *   <li>Asks {@link Instrumentation#jobFields()} once, keeps the names the rules allow, and logs
 *       the others: a worker reads the answer for every job.</li>
 * </ol>
 */
public final class GuardedInstrumentation implements Instrumentation {
    private static final Logger LOG = LoggerFactory.getLogger(Instrumentation.class);

    private static final int LOCK_ACQUIRE = 0;
    private static final int LEASE_HELD = 1;
    private static final int LEASE_ENDED = 2;
    private static final int LEASE_LOST = 3;
    private static final int LEASE_RENEWAL = 4;
    private static final int JOBS_ENQUEUED = 5;
    private static final int JOB_WAITED = 6;
    private static final int JOB_SETTLED = 7;
    private static final int LEASES_REAPED = 8;
    private static final int ENQUEUE_STARTING = 9;
    private static final int ENQUEUE_ENDED = 10;
    private static final int JOB_FIELDS = 11;
    private static final int JOB_STARTING = 12;
    private static final int HANDLER_RETURNED = 13;
    private static final int JOB_ENDED = 14;
    private static final int JOB_TIMED_OUT = 15;
    private static final String[] METHODS = {"lockAcquire", "leaseHeld", "leaseEnded", "leaseLost",
        "leaseRenewal", "jobsEnqueued", "jobWaited", "jobSettled", "leasesReaped", "enqueueStarting",
        "enqueueEnded", "jobFields", "jobStarting", "handlerReturned", "jobEnded", "jobTimedOut"};

    private final Instrumentation delegate;
    private final AtomicInteger warned = new AtomicInteger();   // one bit per method
    private final Set<String> jobFields;   // asked once: read on every job's path

    private GuardedInstrumentation(Instrumentation delegate) {
        this.delegate = delegate;
        this.jobFields = askJobFields();
    }

    /**
     * @param instrumentation what a builder was given
     * @return {@link Instrumentation#NONE} for NONE, else the guarded instrumentation
     * @throws IllegalArgumentException if it is null
     */
    public static Instrumentation of(Instrumentation instrumentation) {
        Checks.notNull(instrumentation, "instrumentation");
        if (instrumentation == NONE || instrumentation instanceof GuardedInstrumentation) {
            return instrumentation;
        }
        return new GuardedInstrumentation(instrumentation);
    }

    /** @return the instrumentation as the user gave it */
    public Instrumentation delegate() {
        return delegate;
    }

    @Override
    public void lockAcquire(LockMode mode, AcquireOutcome outcome, long nanos) {
        try {
            delegate.lockAcquire(mode, outcome, nanos);
        } catch (Throwable t) {
            failed(LOCK_ACQUIRE, t);
        }
    }

    @Override
    public Object leaseHeld(LockMode mode, Lease lease) {
        try {
            return delegate.leaseHeld(mode, lease);
        } catch (Throwable t) {
            failed(LEASE_HELD, t);
            return null;
        }
    }

    @Override
    public void leaseEnded(Object handle) {
        try {
            delegate.leaseEnded(handle);
        } catch (Throwable t) {
            failed(LEASE_ENDED, t);
        }
    }

    @Override
    public void leaseLost(LockMode mode, LossReason reason) {
        try {
            delegate.leaseLost(mode, reason);
        } catch (Throwable t) {
            failed(LEASE_LOST, t);
        }
    }

    @Override
    public void leaseRenewal(LockMode mode, RenewalResult result) {
        try {
            delegate.leaseRenewal(mode, result);
        } catch (Throwable t) {
            failed(LEASE_RENEWAL, t);
        }
    }

    @Override
    public void jobsEnqueued(String queue, int count) {
        try {
            delegate.jobsEnqueued(queue, count);
        } catch (Throwable t) {
            failed(JOBS_ENQUEUED, t);
        }
    }

    @Override
    public void jobWaited(String queue, long millis) {
        try {
            delegate.jobWaited(queue, millis);
        } catch (Throwable t) {
            failed(JOB_WAITED, t);
        }
    }

    @Override
    public void jobSettled(String queue, SettleOutcome outcome, long nanos) {
        try {
            delegate.jobSettled(queue, outcome, nanos);
        } catch (Throwable t) {
            failed(JOB_SETTLED, t);
        }
    }

    @Override
    public void jobTimedOut(String queue, SettleOutcome outcome) {
        try {
            delegate.jobTimedOut(queue, outcome);
        } catch (Throwable t) {
            failed(JOB_TIMED_OUT, t);
        }
    }

    @Override
    public void leasesReaped(String queue, long returned, long dead) {
        try {
            delegate.leasesReaped(queue, returned, dead);
        } catch (Throwable t) {
            failed(LEASES_REAPED, t);
        }
    }

    @Override
    public Object enqueueStarting(String queue, int count, BiConsumer<String, String> fields) {
        try {
            return delegate.enqueueStarting(queue, count, fields);
        } catch (Throwable t) {
            failed(ENQUEUE_STARTING, t);
            return null;
        }
    }

    @Override
    public void enqueueEnded(Object handle, List<EnqueueResult> results, Throwable error) {
        try {
            delegate.enqueueEnded(handle, results, error);
        } catch (Throwable t) {
            failed(ENQUEUE_ENDED, t);
        }
    }

    /** @return the names the delegate's {@link Instrumentation#jobFields()} gave once, those the rules allow */
    @Override
    public Set<String> jobFields() {
        return jobFields;
    }

    private Set<String> askJobFields() {
        try {
            Set<String> asked = delegate.jobFields();
            if (asked == null || asked.isEmpty()) {
                return Set.of();
            }
            return Set.copyOf(JobFieldNames.allowed(asked, refused -> LOG.warn(
                    "instrumentation {} named a job field the worker will not read: {}",
                    delegate.getClass().getName(), refused)));
        } catch (Throwable t) {
            failed(JOB_FIELDS, t);
            return Set.of();
        }
    }

    @Override
    public Object jobStarting(String queue, Job job, Map<String, String> fields) {
        try {
            return delegate.jobStarting(queue, job, fields);
        } catch (Throwable t) {
            failed(JOB_STARTING, t);
            return null;
        }
    }

    @Override
    public void handlerReturned(Object handle, Throwable error) {
        try {
            delegate.handlerReturned(handle, error);
        } catch (Throwable t) {
            failed(HANDLER_RETURNED, t);
        }
    }

    @Override
    public void jobEnded(Object handle, SettleOutcome outcome, Throwable error) {
        try {
            delegate.jobEnded(handle, outcome, error);
        } catch (Throwable t) {
            failed(JOB_ENDED, t);
        }
    }

    /** @return whether {@code method}'s first failure was logged; for tests */
    boolean warnedOf(String method) {
        for (int i = 0; i < METHODS.length; i++) {
            if (METHODS[i].equals(method)) {
                return (warned.get() & (1 << i)) != 0;
            }
        }
        throw new IllegalArgumentException("no method " + method);
    }

    private void failed(int method, Throwable t) {
        if (t instanceof VirtualMachineError e) {
            throw e;
        }
        int bit = 1 << method;
        int before = warned.getAndUpdate(w -> w | bit);
        if ((before & bit) == 0) {
            LOG.warn("instrumentation {} threw in {}; ignored (further failures of {} are logged at DEBUG)",
                    delegate.getClass().getName(), METHODS[method], METHODS[method], t);
        } else {
            LOG.debug("instrumentation {} threw in {}; ignored", delegate.getClass().getName(), METHODS[method], t);
        }
    }

    @Override
    public String toString() {
        return "Guarded[" + delegate + "]";
    }
}
