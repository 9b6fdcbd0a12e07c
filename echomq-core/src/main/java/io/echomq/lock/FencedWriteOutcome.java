package io.echomq.lock;

/** What a {@link FencedStore#write} did. */
public enum FencedWriteOutcome {
    /** The value was stored under the writer's fence. */
    WRITTEN,
    /** Refused: a write with a higher fence was already accepted. The writer is a stale holder. */
    STALE
}
