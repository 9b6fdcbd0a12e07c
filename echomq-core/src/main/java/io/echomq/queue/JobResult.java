package io.echomq.queue;

import java.nio.charset.StandardCharsets;

/**
 * How a job ended, as {@link QueueOperations#awaitResult} answers it: completed with the result
 * its handler stored ({@link Job#result}), dead with the reason, cancelled, not found, or still
 * running when the wait timed out.
 *
 * @param outcome how it ended, or {@link Outcome#TIMED_OUT}
 * @param id      the job's id, as given
 * @param result  for {@link Outcome#COMPLETED}: the stored result, or null when the handler stored
 *     none; else null. The array is the caller's: the record does not copy it.
 * @param reason  for {@link Outcome#DEAD}: the dead reason; for {@link Outcome#CANCELLED}: how it
 *     was cancelled; else null
 */
public record JobResult(Outcome outcome, String id, byte[] result, String reason) {
    /**
     * Most bytes a result may hold: 16 KiB. A result travels in the job's completed event too, and
     * the events stream keeps thousands of events (10,000 by default: up to 160 MiB of results).
     */
    public static final int MAX_BYTES = 16 * 1024;

    /** How a job ended. */
    public enum Outcome {
        /** It completed; {@link #result()} is what its handler stored, or null. */
        COMPLETED,
        /** It went to dead; {@link #reason()} says why. */
        DEAD,
        /** An operator cancelled it; it will not run again. */
        CANCELLED,
        /** No such job: never enqueued, removed, or finished so long ago that its hash and its event are gone. */
        NOT_FOUND,
        /** It had not ended when the wait ran out. */
        TIMED_OUT
    }

    /** @return the result as UTF-8 text, or null when there is none */
    public String resultText() {
        return result == null ? null : new String(result, StandardCharsets.UTF_8);
    }
}
