package io.echomq.queue;

import io.echomq.MonotonicClock;
import io.echomq.internal.InstrumentationGuard;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one queue (or one partition) tells its client's {@link QueueInstrumentation}.
 *
 * <ol>
 *   <li>Names the queue as users know it: a partition reports its sharded queue's name, so that a
 *       metric tagged by it stays one series per queue.</li>
 *   <li>Reports jobs enqueued, the wait of first claims, reaped leases and a worker's settled
 *       attempts with their processing time ({@link #start}, {@link #settled}).</li>
 *   <li>Carries the trace calls: an enqueue's handle and extra job fields ({@link #enqueueStarting},
 *       {@link #enqueueEnded}), and a handler's start, return and settle ({@link #jobStarting},
 *       {@link #handlerReturned}, {@link #jobEnded}), reading the job's extra fields with one
 *       {@code HMGET} only when the instrumentation names any ({@link JobFields}).</li>
 *   <li>Costs one final boolean test when the client has no instrumentation: no clock read, no
 *       call, no allocation. The instrumentation it holds is guarded, so a call never throws.</li>
 * </ol>
 */
final class QueueObservations {
    private static final Logger LOG = LoggerFactory.getLogger(InstrumentationGuard.LOGGER);

    /** What one enqueue call carries for the instrumentation: its handle (or null) and its extra fields' ARGV. */
    record EnqueueTrace(Object handle, byte[][] fieldArgs) {
        /** No handle, no field: what an enqueue carries when nobody listens. */
        static final EnqueueTrace NONE = new EnqueueTrace(null, JobFields.NO_ARGS);
    }

    private final QueueInstrumentation observer;
    private final boolean observed;
    private final MonotonicClock clock;
    private final String queue;
    private final String[] jobFields;   // the names a worker reads back; empty reads nothing

    /**
     * @param observer the client's guarded instrumentation, or {@link QueueInstrumentation#NONE}
     * @param clock the client's clock, which times a handler's attempt
     * @param queue the queue's name (a sharded queue's, for a partition)
     */
    QueueObservations(QueueInstrumentation observer, MonotonicClock clock, String queue) {
        this.observer = observer;
        this.clock = clock;
        this.observed = observer != QueueInstrumentation.NONE;
        this.queue = queue;
        this.jobFields = observed ? observer.jobFields().toArray(new String[0]) : new String[0];
    }

    /** @return whether the client has instrumentation; when false every call here does nothing */
    boolean observed() {
        return observed;
    }

    /** Reports the jobs that one enqueue call created, if any. */
    void enqueued(List<EnqueueResult> results) {
        if (!observed) {
            return;
        }
        int created = 0;
        for (EnqueueResult r : results) {
            if (r.created()) {
                created++;
            }
        }
        if (created > 0) {
            observer.jobsEnqueued(queue, created);
        }
    }

    /** Reports a claimed job's wait, when the claim reply carried one (it is -1 otherwise). */
    void claimed(long waitedMillis) {
        if (observed && waitedMillis >= 0) {
            observer.jobWaited(queue, waitedMillis);
        }
    }

    /** Reports a reap's moves, if any. */
    void reaped(long returned, long dead) {
        if (observed && (returned > 0 || dead > 0)) {
            observer.leasesReaped(queue, returned, dead);
        }
    }

    /** @return the clock reading that starts a handler's timing, or 0 when nobody listens */
    long start() {
        return observed ? clock.nanoTime() : 0L;
    }

    /** Reports an attempt a worker settled, timed from {@code start}. */
    void settled(SettleOutcome outcome, long start) {
        if (observed) {
            observer.jobSettled(queue, outcome, clock.nanoTime() - start);
        }
    }

    /** Reports an attempt a timeout ended, settled as {@code outcome}. */
    void timedOut(SettleOutcome outcome) {
        if (observed) {
            observer.jobTimedOut(queue, outcome);
        }
    }

    /** @return the handle and extra fields of an enqueue call about to send {@code count} jobs */
    EnqueueTrace enqueueStarting(int count) {
        if (!observed) {
            return EnqueueTrace.NONE;
        }
        JobFields.Collector fields = new JobFields.Collector();
        Object handle = observer.enqueueStarting(queue, count, fields);
        byte[][] args = fields.close();
        return handle == null && args.length == 0 ? EnqueueTrace.NONE : new EnqueueTrace(handle, args);
    }

    /** Reports how the enqueue call of {@code trace} ended: its results, or the error it throws. */
    void enqueueEnded(EnqueueTrace trace, List<EnqueueResult> results, Throwable error) {
        if (trace.handle() != null) {
            observer.enqueueEnded(trace.handle(), results, error);
        }
    }

    /**
     * On the handler's thread, before the handler runs: reads the job's extra fields (one
     * {@code HMGET}, only when the instrumentation names any; a failed read gives none) and
     * reports the start.
     *
     * @return the instrumentation's handle for this attempt, or null
     */
    Object jobStarting(Job job) {
        if (!observed) {
            return null;
        }
        Map<String, String> fields = Map.of();
        if (jobFields.length > 0) {
            try {
                fields = JobFields.read(job.line().wire(), job.localId(), jobFields);
            } catch (RuntimeException e) {
                LOG.debug("could not read the extra fields of job {} of {}; it runs without them", job.id(), queue, e);
            }
        }
        return observer.jobStarting(queue, job, fields);
    }

    /** On the handler's thread, after it returned or threw. */
    void handlerReturned(Object handle, Throwable error) {
        if (handle != null) {
            observer.handlerReturned(handle, error);
        }
    }

    /** Reports how the attempt of {@code handle} was settled, or that its settle failed ({@code outcome} null). */
    void jobEnded(Object handle, SettleOutcome outcome, Throwable error) {
        if (handle != null) {
            observer.jobEnded(handle, outcome, error);
        }
    }
}
