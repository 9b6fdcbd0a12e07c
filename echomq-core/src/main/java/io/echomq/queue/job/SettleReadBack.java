package io.echomq.queue;

/**
 * Reads the refusal of a settle sent again ({@link SettleRetry}) back as what it was: the refusal of our own
 * earlier send, which the server applied though its answer was lost, or a real loss.
 *
 * <p>A settle is fenced by its attempt, so the second send of one the server already applied is refused
 * ({@code -3 NOT_ACTIVE}: the attempt is no longer active, because this very settle ended it). The job's hash then
 * tells the two apart with one {@code HMGET} ({@link AttemptCalls#settleTrace}), read only on this path:
 * <ul>
 *   <li>complete: state {@code done} at our attempt; or the hash gone ({@code -4 MISSING}), as a complete leaves it
 *       when the queue keeps no completed jobs. Nothing else ends an attempt as {@code done}.</li>
 *   <li>fail: our attempt, our error text in {@code last_error}, and state {@code delayed} or {@code pending}
 *       (a retry, promoted or not) or {@code dead}. The reaper, the only other way the attempt ends, writes its own
 *       {@code last_error} ({@code lease expired on attempt N ...}).</li>
 *   <li>return: state {@code pending} at our attempt with no reaper's note for it.</li>
 * </ul>
 * Anything else, or a read that fails, leaves the refusal as it came: a loss.
 */
final class SettleReadBack {
    /** A settle's read-back: the code to record for {@code code}, the refusal a repeated send got. */
    @FunctionalInterface
    interface Check {
        /**
         * @param calls    the attempt's fenced calls, which read the job's hash
         * @param job      the attempt being settled
         * @param failText the error text a fail sent (as kept), or null for another settle
         * @return the code our earlier send must have had, or {@code code} when it was not ours
         */
        long code(AttemptCalls calls, Attempt job, String failText, long code);
    }

    private static final long NOT_ACTIVE = -3;
    private static final long MISSING = -4;

    private SettleReadBack() {
    }

    /** For a complete: 1 (completed) when the job is done at our attempt, or gone. */
    static long complete(AttemptCalls calls, Attempt job, String failText, long code) {
        if (code == MISSING) {
            return 1;
        }
        String[] t = code == NOT_ACTIVE ? trace(calls, job) : null;
        return t != null && "done".equals(t[0]) && job.attemptText().equals(t[1]) ? 1 : code;
    }

    /** For a fail: 3 (dead) or 2 (retrying) when the job ended at our attempt with our error text. */
    static long fail(AttemptCalls calls, Attempt job, String failText, long code) {
        String[] t = code == NOT_ACTIVE ? trace(calls, job) : null;
        if (t == null || !job.attemptText().equals(t[1]) || t[2] == null || !t[2].equals(failText)) {
            return code;
        }
        return switch (String.valueOf(t[0])) {
            case "dead" -> 3;
            case "delayed", "pending" -> 2;
            default -> code;
        };
    }

    /** For a return: 1 (returned) when the job waits at our attempt and the reaper left no note of ending it. */
    static long returned(AttemptCalls calls, Attempt job, String failText, long code) {
        String[] t = code == NOT_ACTIVE ? trace(calls, job) : null;
        boolean reaped = t != null && t[2] != null
                && t[2].startsWith("lease expired on attempt " + job.attemptText() + " ");
        return t != null && "pending".equals(t[0]) && job.attemptText().equals(t[1]) && !reaped ? 1 : code;
    }

    private static String[] trace(AttemptCalls calls, Attempt job) {
        try {
            return calls.settleTrace(job);
        } catch (RuntimeException unreadable) {
            return null;   // cannot tell: the refusal stands
        }
    }
}
