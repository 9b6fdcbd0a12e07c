package io.echomq.queue;

/**
 * How an attempt was settled. To settle is to end an attempt: {@link Job#complete()},
 * {@link Job#fail}, {@link Job#failWithoutRetry} or {@link Job#returnLease()}, each checked on the
 * server against the attempt the job was granted. A refusal is {@link #LEASE_LOST} (or
 * {@link #CANCELLED} for a cancelled attempt), never a silent no-op. (The calls that keep an attempt going, {@link Job#extend} and {@link Job#progress},
 * answer {@code true} or {@code false} instead.)
 */
public enum SettleOutcome {
    /** The job is done: removed from active, its hash kept for the retention time or deleted. */
    COMPLETED,
    /** The failure was recorded and the job waits in the delayed set for its backoff. */
    RETRYING,
    /** The failure was recorded and the job is in the dead set: it spent its attempts, or no retry was allowed. */
    DEAD,
    /** The lease was given back; the job is pending again and the attempt was not spent. */
    RETURNED,
    /**
     * Refused: this attempt no longer holds the job. {@link Job#lossReason()} says why. Nothing
     * was changed on the server.
     */
    LEASE_LOST,
    /**
     * Refused: an operator cancelled this attempt ({@link QueueOperations#cancel(String)}), which
     * ended it on the server; {@link Job#cancelled()} reads true. Nothing was changed by this call.
     * A {@link Worker} settles a cancelled job's attempt with this outcome.
     */
    CANCELLED;

    /** @return true for every outcome except {@link #LEASE_LOST} and {@link #CANCELLED} */
    public boolean accepted() {
        return this != LEASE_LOST && this != CANCELLED;
    }
}
