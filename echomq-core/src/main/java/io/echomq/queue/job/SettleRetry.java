package io.echomq.queue;

import io.echomq.RedisCommandException;
import io.lettuce.core.RedisCommandExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Sends a settling call again when Redis could not be reached, until the job's lease deadline.
 *
 * <ol>
 *   <li>Tells a failure worth another try ({@link #worthRetrying}): the call never got an answer (a connection
 *       dropped or refused, a timeout), or the server said it cannot serve now ({@code CLUSTERDOWN},
 *       {@code LOADING}, {@code READONLY}, {@code MASTERDOWN}, {@code TRYAGAIN}, {@code MOVED}, {@code ASK}).
 *       Any other answer (a wrong type, a script error) is final.</li>
 *   <li>Sends it again after a short pause, {@link #FIRST_PAUSE_MS} doubling up to {@link #MAX_PAUSE_MS}, while
 *       the lease is not lost and a pause still ends before the job's local deadline
 *       ({@link JobLease#deadlineNanos()}, which the lease keeper moves on with each renewal it gets through).</li>
 *   <li>Gives up by throwing the last failure: the job is then left to its lease and the reaper. A lease lost
 *       as "not active" or "missing" (a renewal meeting the job this settle may have ended) answers that
 *       refusal instead, for the caller to read back.</li>
 * </ol>
 *
 * <p>Safe because every settle is fenced by the attempt it was granted: a settle the server applied though its
 * answer was lost is refused when sent again, and the caller reads that refusal back
 * ({@link SettleReadBack}) rather than taking it for a loss. Only failures come here: a settle answered at once
 * costs nothing more.
 */
final class SettleRetry {
    /** The first pause before a settle is sent again. */
    static final long FIRST_PAUSE_MS = 50;
    /** The longest pause between two sends of one settle. */
    static final long MAX_PAUSE_MS = 1_000;

    /** Error replies of a server that cannot serve now but will: a failover, a load, a slot on the move. */
    private static final String[] NOT_NOW = {"CLUSTERDOWN", "LOADING", "READONLY", "MASTERDOWN", "TRYAGAIN",
            "MOVED", "ASK"};

    private SettleRetry() {
    }

    /**
     * Sends {@code call} again after {@code first} failed, until it is answered or there is no point.
     *
     * @param lease the lease of the attempt being settled: it bounds the retries
     * @param first the failure of the first send
     * @param call the settling call, answering its code
     * @return the code of the first send that got an answer, or the refusal a lease lost as "not active" (-3) or
     *     "missing" (-4) stands for
     * @throws RuntimeException the last failure, when it is final, the lease is lost for another reason, the next
     *     pause would end past the job's local deadline, or the thread is interrupted (its interrupt flag is then
     *     set again)
     */
    static long again(JobLease lease, RuntimeException first, LongSupplier call) {
        RuntimeException last = first;
        long pause = FIRST_PAUSE_MS;
        while (worthRetrying(last)) {
            if (lease.isLost()) {
                return refusalOf(lease.reason(), last);
            }
            long left = lease.deadlineNanos() - lease.nowNanos();
            if (left <= TimeUnit.MILLISECONDS.toNanos(pause)) {
                break;
            }
            try {
                TimeUnit.MILLISECONDS.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            pause = Math.min(pause * 2, MAX_PAUSE_MS);
            try {
                return call.getAsLong();
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw last;
    }

    /**
     * A lease found lost while its settle waited to be sent again. A renewal answered "not active" or "missing"
     * may have met the job already ended by this very settle, whose answer was lost: that refusal is returned as
     * the code a repeat would get, for the caller to read back ({@link SettleReadBack}). Any other loss ends the
     * retries with the last failure.
     */
    private static long refusalOf(LeaseLossReason reason, RuntimeException last) {
        if (reason == LeaseLossReason.NOT_ACTIVE) {
            return -3;
        }
        if (reason == LeaseLossReason.MISSING) {
            return -4;
        }
        throw last;
    }

    /**
     * @return whether {@code failure} says the settle got no answer, or a server that cannot serve now: a
     *     {@link RedisCommandException} whose causes hold no error reply, or only one of {@link #NOT_NOW}
     */
    static boolean worthRetrying(Throwable failure) {
        if (!(failure instanceof RedisCommandException)) {
            return false;   // not a call to Redis that failed (an abandoned worker, a bug)
        }
        for (Throwable t = failure.getCause(); t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RedisCommandExecutionException reply) {
                String text = String.valueOf(reply.getMessage());
                for (String notNow : NOT_NOW) {
                    if (text.startsWith(notNow + " ") || text.equals(notNow)) {
                        return true;
                    }
                }
                return false;
            }
        }
        return true;
    }
}
