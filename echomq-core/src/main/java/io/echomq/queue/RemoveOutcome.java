package io.echomq.queue;

/** The answer to {@link Queue#remove(String, boolean)}. */
public enum RemoveOutcome {
    /** The job's hash, set entries, lock subkey and idempotency key are gone. */
    REMOVED,
    /**
     * A worker holds the job: its lease deadline in active is still ahead of the server's clock, or
     * its lock subkey exists (ZSET layout); nothing was changed. Use force to remove it anyway.
     */
    LOCKED,
    /** No such job. */
    MISSING
}
