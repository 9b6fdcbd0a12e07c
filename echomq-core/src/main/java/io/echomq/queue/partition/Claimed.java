package io.echomq.queue;

import java.util.List;

/**
 * The decoded answer of claim-8: one complete code per job it completed (in the order given),
 * the earliest due time, the malformed jobs it moved to dead, and the jobs it claimed.
 *
 * <p>Generic in what a claimed job is: {@link Claims} answers the bare {@link Attempt}s, or whatever a
 * caller one layer up wraps each in (the public {@code Job} handle), so the claim never names the handle.
 *
 * @param <J> what each claimed job is given as
 */
record Claimed<J>(List<Long> completeCodes, long nextDueMs, long deadCount, List<J> jobs) {
    /** @return whether claim-8 found the queue paused (next_due_ms -2): it claimed and promoted nothing */
    boolean paused() {
        return nextDueMs == -2;
    }

    /** @return whether flow control's concurrency cap stopped the claim (next_due_ms -3) */
    boolean capped() {
        return nextDueMs == -3;
    }
}
