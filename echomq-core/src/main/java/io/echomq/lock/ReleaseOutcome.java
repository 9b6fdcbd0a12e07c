package io.echomq.lock;

/** What a token-checked release did. Each value is an answer, not an error. */
public enum ReleaseOutcome {
    /** The lock held our token and is now deleted; waiters were notified. */
    RELEASED,
    /** Someone else holds the lock now: ours expired and was granted again. Nothing was changed. */
    NOT_OWNER,
    /** Nobody holds the lock: ours expired (or was already released). Nothing was changed. */
    EXPIRED;

    static ReleaseOutcome ofCode(long code) {
        if (code == 1) {
            return RELEASED;
        }
        if (code == 0) {
            return NOT_OWNER;
        }
        if (code == -1) {
            return EXPIRED;
        }
        throw new IllegalStateException("release-3.lua returned an unknown code " + code);
    }
}
