package io.echomq.lock;

/** Why a {@link Lease} was lost. Delivered by {@link Lease#lost()} and {@link Lease#onLost}. */
public enum LossReason {
    /** A renewal or release found the lock held under another token. */
    NOT_OWNER,
    /** A renewal or release found the lock gone: its ttl ran out on the server. */
    EXPIRED,
    /**
     * The lease's local deadline (start + ttl − drift allowance, on the monotonic clock) passed
     * without a confirmed renewal, for example while Redis could not be reached. The server may
     * still hold the key for a few milliseconds, but the holder can no longer rely on it.
     */
    DEADLINE_PASSED
}
