package io.echomq.queue;

/** Why a job's lease is lost: the reason behind an {@link SettleOutcome#LEASE_LOST}. */
public enum LeaseLossReason {
    /** The job's attempts moved on: it was reaped and claimed again, so this attempt is stale. */
    SUPERSEDED,
    /** The lease deadline passed on the server clock; the reaper owns the job now. */
    EXPIRED,
    /** The job is no longer active: reaped back to pending, returned, completed, failed or dead. */
    NOT_ACTIVE,
    /** The job hash is gone: removed by an operator, or its retention ran out. */
    MISSING,
    /**
     * Renewal did not succeed before the local deadline (claim time plus lease, less drift, on
     * the monotonic clock). Redis may be unreachable; the worker stops trusting the lease.
     */
    DEADLINE_PASSED,
    /**
     * An operator cancelled this attempt ({@link QueueOperations#cancel(String)}): the server ended
     * it, and {@link Job#cancelled()} reads true. A worker settles such a job as
     * {@link SettleOutcome#CANCELLED}.
     */
    CANCELLED;

    /**
     * @return the reason for a negative script code
     * @throws IllegalStateException if the code is not one of -1..-4 or -6 (a protocol bug)
     */
    static LeaseLossReason ofCode(long code) {
        return switch ((int) code) {
            case -1 -> SUPERSEDED;
            case -2 -> EXPIRED;
            case -3 -> NOT_ACTIVE;
            case -4 -> MISSING;
            case -6 -> CANCELLED;
            default -> throw new IllegalStateException("unexpected lease code " + code);
        };
    }
}
