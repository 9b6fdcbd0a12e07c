package io.echomq.jdbc;

/** What a {@link FencedUpdate#write} did. */
public enum FencedOutcome {
    /** The row now holds this write's values and fence (updated, or inserted when it was absent). */
    WRITTEN,
    /** The row already held a newer fence; it was left exactly as it was. */
    STALE
}
