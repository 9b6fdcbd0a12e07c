package io.echomq.queue;

import io.echomq.internal.Checks;
import java.time.Duration;

/**
 * Thrown by a {@link Worker}'s handler to say "the remote API rate-limited me: back off for
 * {@link #backOff()}". The worker then, in one atomic step ({@code return-4.lua} with a hold):
 *
 * <ul>
 *   <li>returns the job to pending at its old place <b>without spending an attempt</b>: the
 *       remote refusal is not the job's failure, so it cannot drive the job to dead;</li>
 *   <li>holds every claim of the queue, by every worker process, until the server's now +
 *       {@code backOff} (a longer hold already set is kept). Claims during the hold answer the ms
 *       left, and workers sleep until then. For a sharded queue, the hold applies to the job's
 *       partition only.</li>
 * </ul>
 *
 * <p>The job's {@link SettleOutcome} is {@link SettleOutcome#RETURNED} (or
 * {@link SettleOutcome#LEASE_LOST} if its lease was lost first, in which case no hold is set).
 * A handler that keeps being rate-limited keeps returning its job: the attempt budget does not
 * bound it, so cap it yourself if the remote may refuse for ever.
 */
public class RateLimitedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** The longest back-off: one day. */
    public static final Duration MAX_BACK_OFF = Duration.ofDays(1);

    private final long backOffMillis;

    /**
     * @param backOff how long the queue claims nothing, 1 ms..{@link #MAX_BACK_OFF}
     * @throws IllegalArgumentException if null, zero, negative, under 1 ms or over one day
     */
    public RateLimitedException(Duration backOff) {
        this(backOff, "rate limited: back off " + backOff);
    }

    /**
     * @param backOff how long the queue claims nothing, 1 ms..{@link #MAX_BACK_OFF}
     * @param message the text the worker logs
     * @throws IllegalArgumentException if null, zero, negative, under 1 ms or over one day
     */
    public RateLimitedException(Duration backOff, String message) {
        super(message);
        this.backOffMillis = Checks.ttlMillis(backOff, MAX_BACK_OFF, "a back-off");
    }

    /** @return how long the queue holds its claims */
    public Duration backOff() {
        return Duration.ofMillis(backOffMillis);
    }

    long backOffMillis() {
        return backOffMillis;
    }
}
