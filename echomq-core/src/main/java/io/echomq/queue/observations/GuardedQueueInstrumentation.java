package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.InstrumentationGuard;
import io.echomq.internal.JobFieldNames;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The guard a queue client puts around a user's {@link QueueInstrumentation}, so that
 * instrumentation cannot break a job.
 *
 * <ol>
 *   <li>Each call goes to the delegate; what it throws is handed to an {@link InstrumentationGuard}
 *       (swallowed, the first failure of each method logged at WARN).</li>
 *   <li>{@link #of} hands {@link QueueInstrumentation#NONE} back unguarded, so that the parts can
 *       test {@code observer != NONE} once, at construction.</li>
 *   <li>Asks {@link QueueInstrumentation#jobFields()} once, keeps the names the rules allow, and
 *       logs the others: a worker reads the answer for every job.</li>
 * </ol>
 */
final class GuardedQueueInstrumentation implements QueueInstrumentation {
    private static final int JOBS_ENQUEUED = 0;
    private static final int JOB_WAITED = 1;
    private static final int JOB_SETTLED = 2;
    private static final int LEASES_REAPED = 3;
    private static final int ENQUEUE_STARTING = 4;
    private static final int ENQUEUE_ENDED = 5;
    private static final int JOB_FIELDS = 6;
    private static final int JOB_STARTING = 7;
    private static final int HANDLER_RETURNED = 8;
    private static final int JOB_ENDED = 9;
    private static final int JOB_TIMED_OUT = 10;

    private final QueueInstrumentation delegate;
    private final InstrumentationGuard guard;
    private final Set<String> jobFields;   // asked once: read on every job's path

    private GuardedQueueInstrumentation(QueueInstrumentation delegate) {
        this.delegate = delegate;
        this.guard = new InstrumentationGuard(delegate, "jobsEnqueued", "jobWaited", "jobSettled", "leasesReaped",
                "enqueueStarting", "enqueueEnded", "jobFields", "jobStarting", "handlerReturned", "jobEnded",
                "jobTimedOut");
        this.jobFields = askJobFields();
    }

    /**
     * @param instrumentation what a builder was given
     * @return {@link QueueInstrumentation#NONE} for NONE and for one that overrides none of this side's methods
     *     (it would record nothing), else the guarded instrumentation
     * @throws IllegalArgumentException if it is null
     */
    static QueueInstrumentation of(QueueInstrumentation instrumentation) {
        Checks.notNull(instrumentation, "instrumentation");
        if (instrumentation == NONE || instrumentation instanceof GuardedQueueInstrumentation) {
            return instrumentation;
        }
        if (!InstrumentationGuard.overridesAny(instrumentation, QueueInstrumentation.class)) {
            return NONE;
        }
        return new GuardedQueueInstrumentation(instrumentation);
    }

    /** @return whether {@code method}'s first failure was logged; for tests */
    boolean warnedOf(String method) {
        return guard.warnedOf(method);
    }

    @Override
    public void jobsEnqueued(String queue, int count) {
        try {
            delegate.jobsEnqueued(queue, count);
        } catch (Throwable t) {
            guard.failed(JOBS_ENQUEUED, t);
        }
    }

    @Override
    public void jobWaited(String queue, long millis) {
        try {
            delegate.jobWaited(queue, millis);
        } catch (Throwable t) {
            guard.failed(JOB_WAITED, t);
        }
    }

    @Override
    public void jobSettled(String queue, SettleOutcome outcome, long nanos) {
        try {
            delegate.jobSettled(queue, outcome, nanos);
        } catch (Throwable t) {
            guard.failed(JOB_SETTLED, t);
        }
    }

    @Override
    public void jobTimedOut(String queue, SettleOutcome outcome) {
        try {
            delegate.jobTimedOut(queue, outcome);
        } catch (Throwable t) {
            guard.failed(JOB_TIMED_OUT, t);
        }
    }

    @Override
    public void leasesReaped(String queue, long returned, long dead) {
        try {
            delegate.leasesReaped(queue, returned, dead);
        } catch (Throwable t) {
            guard.failed(LEASES_REAPED, t);
        }
    }

    @Override
    public Object enqueueStarting(String queue, int count, BiConsumer<String, String> fields) {
        try {
            return delegate.enqueueStarting(queue, count, fields);
        } catch (Throwable t) {
            guard.failed(ENQUEUE_STARTING, t);
            return null;
        }
    }

    @Override
    public void enqueueEnded(Object handle, List<EnqueueResult> results, Throwable error) {
        try {
            delegate.enqueueEnded(handle, results, error);
        } catch (Throwable t) {
            guard.failed(ENQUEUE_ENDED, t);
        }
    }

    /** @return the names the delegate's {@link QueueInstrumentation#jobFields()} gave once, those the rules allow */
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
            return Set.copyOf(JobFieldNames.allowed(asked, refused -> InstrumentationGuard.LOG.warn(
                    "instrumentation {} named a job field the worker will not read: {}",
                    delegate.getClass().getName(), refused)));
        } catch (Throwable t) {
            guard.failed(JOB_FIELDS, t);
            return Set.of();
        }
    }

    @Override
    public Object jobStarting(String queue, Job job, Map<String, String> fields) {
        try {
            return delegate.jobStarting(queue, job, fields);
        } catch (Throwable t) {
            guard.failed(JOB_STARTING, t);
            return null;
        }
    }

    @Override
    public void handlerReturned(Object handle, Throwable error) {
        try {
            delegate.handlerReturned(handle, error);
        } catch (Throwable t) {
            guard.failed(HANDLER_RETURNED, t);
        }
    }

    @Override
    public void jobEnded(Object handle, SettleOutcome outcome, Throwable error) {
        try {
            delegate.jobEnded(handle, outcome, error);
        } catch (Throwable t) {
            guard.failed(JOB_ENDED, t);
        }
    }

    @Override
    public String toString() {
        return "Guarded[" + delegate + "]";
    }
}
