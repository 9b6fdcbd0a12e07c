package io.echomq.queue;

import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;

/**
 * What a worker's graceful shutdown does with the jobs still held once its grace is over.
 *
 * <ol>
 *   <li>Gives each lease back without spending its attempt ({@link Job#returnLease()}), the newest
 *       claim first, so that priority-0 jobs, each pushed to the front of the wait LIST, end up
 *       there in the order they were claimed.</li>
 *   <li>Counts them: given back, or not (refused, or Redis failed, which is logged); a job its
 *       handler settled since the snapshot counts as neither.</li>
 *   <li>Marks each one it tried lost with {@link LeaseLossReason#NOT_ACTIVE}, which asks its
 *       handler to stop (whose late result the fence will refuse); a returned lease is not reported lost.</li>
 * </ol>
 *
 * <p>Together because they are one pass over the same jobs, in that order. Logs to the
 * logger it is given: the worker's, as every part of a worker does.
 */
final class LeaseReturns {
    /** How many leases went back to pending, and how many could not. */
    record Count(long back, long notBack) {
    }

    private LeaseReturns() {
    }

    /**
     * Gives back every lease in {@code unfinished} (sorted here, newest claim first).
     *
     * @param log the worker's logger
     * @param workerName for the log line of a lease that could not be given back
     * @param returned the worker's running count of returned leases, raised as each one goes back
     */
    static Count giveBack(Logger log, String workerName, List<Job> unfinished, LongAdder returned) {
        long back = 0;
        long notBack = 0;
        unfinished.sort(Comparator.comparingLong(Job::handleSeq).reversed());
        for (Job job : unfinished) {
            try {
                if (job.returnLease() == SettleOutcome.RETURNED) {
                    back++;
                    returned.increment();
                } else {
                    notBack++;
                }
            } catch (IllegalStateException settledMeanwhile) {
                continue;   // its handler settled it (or is settling it) since the snapshot: not lost
            } catch (RuntimeException e) {
                notBack++;
                log.warn("{}: could not return the lease of {}: {}", workerName, job, e.toString());
            }
            job.leaseState().markLost(LeaseLossReason.NOT_ACTIVE);   // asks the handler to stop; a returned lease is not reported lost
        }
        return new Count(back, notBack);
    }
}
