package io.echomq.queue;

import java.util.concurrent.ThreadLocalRandom;

/**
 * What a failed attempt sends to the server: whether a retry is allowed, and its exact delay or
 * none (the job's own backoff). Its one duty is the precedence of the three sources:
 *
 * <ol>
 *   <li>the handler's own signal: {@link NonRetryableException} (dead now) or
 *       {@link RetryAfterException} (its delay), since the handler knows this failure best;</li>
 *   <li>the worker's {@link RetryPolicy}: its first matching rule;</li>
 *   <li>the producer's backoff stored in the job, sent as "no delay" so the script reads it.</li>
 * </ol>
 * {@code max_attempts} is applied by the script to every retry, so no decision adds attempts.
 */
record RetryDecision(boolean retry, long delayMs) {
    /** The job's own backoff: retry allowed, no delay sent. */
    static final RetryDecision HASH_BACKOFF = new RetryDecision(true, -1);
    /** Dead now. */
    static final RetryDecision NO_RETRY = new RetryDecision(false, -1);

    /**
     * @param error  the handler's exception
     * @param policy the worker's policy, or null for none
     * @param spent  the attempts the job has spent, this one included (grows a per-rule backoff)
     */
    static RetryDecision of(Throwable error, RetryPolicy policy, long spent) {
        if (error instanceof NonRetryableException) {
            return NO_RETRY;
        }
        if (error instanceof RetryAfterException r) {
            return new RetryDecision(true, r.delay().toMillis());
        }
        if (policy == null) {
            return HASH_BACKOFF;
        }
        RetryAction action = policy.actionFor(error);
        if (action.kind() == RetryAction.Kind.NO_RETRY) {
            return NO_RETRY;
        }
        return new RetryDecision(true, action.delayMs(spent, ThreadLocalRandom.current().nextDouble()));
    }
}
