package io.echomq.queue;

/**
 * Hears what a {@link Worker} did with each job. Called on the worker's threads; keep it quick and
 * do not throw (a throwing listener is logged and ignored).
 */
public interface WorkerListener {
    /**
     * A job was settled by the worker (or by its handler).
     *
     * <p>Called once per attempt, on the handler's thread, after the server answered. Calls for
     * two attempts of one job may arrive in either order: a retry due soon can be claimed, run
     * and settled on another thread before this call is made. Order them by
     * {@link Job#attempt()}, which rises with every claim.
     *
     * @param job     the job
     * @param outcome {@link SettleOutcome#COMPLETED}, {@link SettleOutcome#RETRYING},
     *                {@link SettleOutcome#DEAD}, {@link SettleOutcome#RETURNED}, {@link SettleOutcome#LEASE_LOST}
     *                or {@link SettleOutcome#CANCELLED} (an operator cancelled the attempt while it ran)
     * @param error   what the handler threw, or null when it returned normally
     */
    default void onSettled(Job job, SettleOutcome outcome, Throwable error) {
    }

    /**
     * A job's lease was lost; its handler, if still running, has been asked to stop ({@link Job#stopSignal()}).
     *
     * <p>Fires exactly once for each job this worker claimed whose lease is lost, by whichever
     * path sees the loss first:
     * <ul>
     *   <li>the local deadline passing, seen by the worker's renewal tick or by a call of the
     *       handler's own {@link Job#leaseLost()}, {@link Job#isHeld()}, {@link Job#remaining()}
     *       or {@link Job#lossReason()} ({@link LeaseLossReason#DEADLINE_PASSED});</li>
     *   <li>a renewal the server refuses, a cancel included: a cancel message makes the worker
     *       renew at once, and the refusal's reason is {@link LeaseLossReason#CANCELLED};</li>
     *   <li>a fenced call the server refuses: the worker's settle, or the handler's own
     *       complete, fail, extend or progress.</li>
     * </ul>
     * Later answers about the same loss (renewals in flight, the deadline) add no call. It never
     * fires for a job settled cleanly before any loss was seen, nor for a lease shutdown gave
     * back. The worker settles every job it reports here as {@link SettleOutcome#LEASE_LOST}, or
     * {@link SettleOutcome#CANCELLED} for the reason {@link LeaseLossReason#CANCELLED} (it does
     * not complete or fail a job once it has seen the loss), and reports every job it settles so
     * here first: so the calls equal those settlements and {@link WorkerCounts#leaseLost()}. The one exception is a handler that
     * settles its job itself after the loss was seen: the server's answer decides its outcome.
     *
     * <p>Called on the thread that saw the loss: the renewal thread, a connection's I/O thread,
     * or the handler's own thread.
     *
     * @param job    the job
     * @param reason why: the reason of the first path that saw the loss
     */
    default void onLeaseLost(Job job, LeaseLossReason reason) {
    }
}
