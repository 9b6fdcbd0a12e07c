package io.echomq.queue;

/**
 * Hears what a {@link Worker} did with each job. Called on the worker's threads; keep it quick and
 * do not throw (a throwing listener is logged and ignored).
 */
public interface WorkerListener {
    /**
     * A job was settled by the worker (or by its handler).
     *
     * @param job     the job
     * @param outcome {@link AckOutcome#COMPLETED}, {@link AckOutcome#RETRYING},
     *                {@link AckOutcome#DEAD}, {@link AckOutcome#RETURNED} or {@link AckOutcome#LEASE_LOST}
     * @param error   what the handler threw, or null when it returned normally
     */
    default void onSettled(Job job, AckOutcome outcome, Throwable error) {
    }

    /**
     * A job's lease was lost while its handler ran; the handler has been interrupted. Called at
     * most once per claimed job (per attempt), even when several answers tell the worker of the
     * loss: renewals that were in flight together, or a renewal answered after the local deadline
     * had already counted the lease as lost.
     *
     * @param job    the job
     * @param reason why
     */
    default void onLeaseLost(Job job, LeaseLossReason reason) {
    }
}
