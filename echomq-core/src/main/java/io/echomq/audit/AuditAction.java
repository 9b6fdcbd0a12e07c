package io.echomq.audit;

/**
 * The operator actions the {@code emq} commands and the dashboard record, each under its wire name
 * (the record's field {@code action}). A record read back carries its action as text
 * ({@link AuditEntry#action()}), so that one written by a later version, under a name this one does
 * not know, still reads.
 */
public enum AuditAction {
    /** Claims of a queue paused. */
    PAUSED("paused"),
    /** Claims of a queue resumed. */
    RESUMED("resumed"),
    /** Dead jobs sent back to pending. */
    REDRIVEN("redriven"),
    /** Dead jobs deleted. */
    PURGED("purged"),
    /** A queue deleted with its jobs and settings. */
    DELETED("deleted"),
    /** A job cancelled. */
    CANCELLED("cancelled"),
    /** A job removed (its detail says whether a held job was removed by force). */
    REMOVED("removed"),
    /** A queue's rate limit set or changed. */
    RATE_LIMIT_SET("rate-limit-set"),
    /** A queue's rate limit cleared. */
    RATE_LIMIT_CLEARED("rate-limit-cleared"),
    /** A queue's concurrency cap set or changed. */
    CAP_SET("cap-set"),
    /** A queue's concurrency cap cleared. */
    CAP_CLEARED("cap-cleared"),
    /** A lock moved to a new holder with a higher fence. */
    TAKEN_OVER("taken-over");

    private final String wire;

    AuditAction(String wire) {
        this.wire = wire;
    }

    /** @return the name the record carries in its field {@code action}, for example {@code paused} */
    public String wire() {
        return wire;
    }
}
