package io.echomq.queue;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One attempt of a job as a claim granted it: what {@code claim-8} answered for the job, and the
 * fence that every call on the attempt carries. The parts below the public {@link Job} (its fenced
 * calls, its settlement, a worker's group commit, the claim itself) work on this record, never on
 * the handle, so the claim that makes attempts and the settle that may claim the next one do not
 * form a circle: the handle wraps the record one layer up.
 *
 * <p>Immutable; the payload array is the decoded reply's own and is never written to.
 *
 * @param localId         the job's id within its own queue or partition (no partition prefix)
 * @param payload         the job's payload, as stored
 * @param attempt         the attempt number granted: the fence
 * @param attemptText     {@code attempt} in decimal, encoded once for the calls that carry it
 * @param spent           the attempts the job has spent, this one included
 * @param maxAttempts     the most attempts the job may spend
 * @param timeoutMs       the job's own timeout, else its queue's default; 0 for none
 * @param leaseMs         the lease the claim asked for, in ms
 * @param claimStartNanos the client's clock read before the claim was sent: the local lease counts from it
 * @param decodeSeq       the order this JVM decoded claims in (a batch in its reply order): a worker's shutdown
 *                        gives leases back newest first, so that LPUSHed priority-0 jobs end up in their claim order
 */
record Attempt(String localId, byte[] payload, long attempt, String attemptText, long spent, long maxAttempts,
               long timeoutMs, long leaseMs, long claimStartNanos, long decodeSeq) {
    private static final AtomicLong DECODED = new AtomicLong();

    /** The attempt the claim answered, decoded now: its fence text encoded and its place in the order taken here. */
    Attempt(String localId, byte[] payload, long attempt, long spent, long maxAttempts, long timeoutMs,
            long leaseMs, long claimStartNanos) {
        this(localId, payload, attempt, Long.toString(attempt), spent, maxAttempts, timeoutMs, leaseMs,
                claimStartNanos, DECODED.incrementAndGet());
    }

    @Override
    public String toString() {
        return "Attempt[" + localId + " attempt " + attempt + "]";
    }
}
