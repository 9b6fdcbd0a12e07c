package io.echomq.queue;

import io.echomq.Instrumentation;
import java.util.List;

/**
 * What one queue (or one partition) tells its client's {@link Instrumentation}.
 *
 * <ol>
 *   <li>Names the queue as users know it: a partition reports its sharded queue's name, so that a
 *       metric tagged by it stays one series per queue.</li>
 *   <li>Reports jobs enqueued, the wait of first claims, reaped leases and a worker's settled
 *       attempts with their processing time ({@link #start}, {@link #settled}).</li>
 *   <li>Costs one final boolean test when the client has no instrumentation: no clock read, no
 *       call, no allocation. The instrumentation it holds is guarded, so a call never throws.</li>
 * </ol>
 */
final class QueueObservations {
    private final Instrumentation observer;
    private final boolean observed;
    private final String queue;

    /**
     * @param observer the client's guarded instrumentation, or {@link Instrumentation#NONE}
     * @param queue the queue's name (a sharded queue's, for a partition)
     */
    QueueObservations(Instrumentation observer, String queue) {
        this.observer = observer;
        this.observed = observer != Instrumentation.NONE;
        this.queue = queue;
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
    long start(QueueClient client) {
        return observed ? client.clock().nanoTime() : 0L;
    }

    /** Reports an attempt a worker settled, timed from {@code start}. */
    void settled(QueueClient client, SettleOutcome outcome, long start) {
        if (observed) {
            observer.jobSettled(queue, outcome, client.clock().nanoTime() - start);
        }
    }
}
