package io.echomq.lock;

/** What a token-checked renewal did. A renewal never revives a lease that was lost. */
public enum RenewOutcome {
    /** The lock held our token; its ttl was set again from the server's now. */
    RENEWED,
    /** Someone else holds the lock now. Nothing was changed. */
    NOT_OWNER,
    /** Nobody holds the lock: ours expired. Nothing was changed, and the key stays absent. */
    EXPIRED;

    static RenewOutcome ofCode(long code) {
        if (code == 1) {
            return RENEWED;
        }
        if (code == 0) {
            return NOT_OWNER;
        }
        if (code == -1) {
            return EXPIRED;
        }
        throw new IllegalStateException("renew-2.lua returned an unknown code " + code);
    }
}
