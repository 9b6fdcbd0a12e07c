package io.echomq.queue;

/** The answer to {@link Queue#remove(String, boolean)}. */
public enum RemoveOutcome {
    /** The job's hash, set entries, lock subkey and idempotency key are gone. */
    REMOVED,
    /** A worker holds the job's lock subkey; nothing was changed. Use force to remove it anyway. */
    LOCKED,
    /** No such job. */
    MISSING
}
