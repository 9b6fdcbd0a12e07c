package io.echomq.queue;

/**
 * The answer to a fenced call on a claimed job ({@link Job#complete()}, {@link Job#fail},
 * {@link Job#extend}, {@link Job#progress}, {@link Job#returnLease()}). Every call is checked on
 * the server against the attempt the job was granted; a refusal is {@link #LEASE_LOST}, never a
 * silent no-op.
 */
public enum AckOutcome {
    /** The job is done: removed from active, its hash kept for the retention time or deleted. */
    COMPLETED,
    /** The failure was recorded and the job waits in the delayed set for its backoff. */
    RETRYING,
    /** The failure was recorded and the job is in the dead set: it spent its attempts, or no retry was allowed. */
    DEAD,
    /** The lease now ends at the server's now plus the lease asked for. */
    EXTENDED,
    /** The progress value was stored. */
    RECORDED,
    /** The lease was given back; the job is pending again and the attempt was not spent. */
    RETURNED,
    /**
     * Refused: this attempt no longer holds the job. {@link Job#lossReason()} says why. Nothing
     * was changed on the server.
     */
    LEASE_LOST;

    /** @return true for every outcome except {@link #LEASE_LOST} */
    public boolean accepted() {
        return this != LEASE_LOST;
    }
}
