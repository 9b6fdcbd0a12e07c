package io.echomq.queue;

/**
 * What {@link QueueOperations#cancel(String)} did, in one script on the server
 * ({@code cancel-7.lua}). A cancelled job ends in state {@code cancelled}; its hash is kept for the
 * completed-job retention, as a done job's.
 */
public enum CancelOutcome {
    /** The job was pending or delayed: it left its set and will not run. */
    CANCELLED,
    /**
     * The job was running: its attempt is ended on the server and its holder is told (a message on
     * the queue's cancel channel, and its next lease renewal). A worker asks the handler to stop,
     * {@link Job#cancelled()} reads true, and every later settle of that attempt answers
     * {@link SettleOutcome#CANCELLED}, changing nothing.
     */
    SIGNALLED,
    /** The job is done, dead or cancelled already; nothing changed. */
    ALREADY_FINISHED,
    /** No such job in any of the queue's sets; nothing changed. */
    NOT_FOUND;

    /**
     * @return the outcome of a cancel-7 code
     * @throws IllegalStateException if the code is not one of 2, 1, 0, -1 (a protocol bug)
     */
    static CancelOutcome ofCode(long code) {
        return switch ((int) code) {
            case 2 -> SIGNALLED;
            case 1 -> CANCELLED;
            case 0 -> ALREADY_FINISHED;
            case -1 -> NOT_FOUND;
            default -> throw new IllegalStateException("unexpected cancel code " + code);
        };
    }
}
