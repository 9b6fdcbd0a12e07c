package io.echomq.lock;

import io.echomq.MonotonicClock;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import java.util.concurrent.CompletableFuture;

/**
 * What a {@link Lease} needs from the client that granted it: its clock, a token-checked renewal
 * and release and the waits for their answers, and a deadline timer. A lease reaches the engine
 * only through this interface. {@link LeaseIssuer} is the one implementation: it sends
 * renewals and releases to one server ({@link LockCalls}) or to a quorum of independent masters
 * ({@link RedlockRounds}), and arms the deadline on its watchdog. The lease's own rules (never
 * revive a lost lease, remember the first release answer, loss is an event) stay in {@link Lease}.
 */
interface LeaseBackend {

    /** @return the monotonic clock of the lease's local deadline */
    MonotonicClock clock();

    /**
     * Renews {@code resource} to {@code ttlMillis} while it holds {@code token}. The future fails
     * with a {@link io.echomq.RedisCommandException} when the outcome is unknown.
     *
     * @param sentAtNanos the clock reading taken just before this call; the new deadline counts from it
     */
    CompletableFuture<RenewOutcome> renew(String resource, String token, long ttlMillis, long sentAtNanos);

    /**
     * Deletes {@code resource} while it holds {@code token}. The future fails with a
     * {@link io.echomq.RedisCommandException} when the outcome is unknown.
     */
    CompletableFuture<ReleaseOutcome> release(String resource, String token);

    /**
     * Waits for the answer of a {@link #renew} call, for the blocking {@code Lease.renew}; an
     * interrupt ends the wait.
     *
     * @return the outcome
     * @throws io.echomq.RedisCommandException if the renewal failed or the wait was interrupted
     */
    default RenewOutcome awaitRenewal(CompletableFuture<RenewOutcome> reply, String resource) {
        return RedisEngine.await(reply, Scripts.RENEW.label(), resource);
    }

    /**
     * Waits for the answer of a {@link #release} call, for the blocking {@code Lease.release}: an
     * interrupt does not end the wait (the command timeout bounds it), and the thread's interrupt
     * flag is set again before returning.
     *
     * @return the outcome
     * @throws io.echomq.RedisCommandException if the release failed
     */
    default ReleaseOutcome awaitRelease(CompletableFuture<ReleaseOutcome> reply, String resource) {
        return RedisEngine.awaitUninterruptibly(reply, Scripts.RELEASE.label(), resource);
    }

    /** Arms the timer that marks {@code lease} lost when its local deadline passes. */
    void guardDeadline(Lease lease);

    /**
     * Tells the client's instrumentation that {@code lease} is now held; called once, at the end
     * of the lease's constructor.
     *
     * @return the handle to pass to {@link #ended}, or null when nobody listens
     */
    default Object held(Lease lease) {
        return null;
    }

    /**
     * Tells the client's instrumentation that {@code lease} was released ({@code reason} null) or
     * lost; called once per lease, and only when {@link #held} returned a handle or the lease was lost.
     *
     * @param handle what {@link #held} returned, or null
     */
    default void ended(Lease lease, Object handle, LossReason reason) {
    }

    /** Tells the client's instrumentation how a renewal of {@code lease} that was sent ended. */
    default void renewal(Lease lease, LockInstrumentation.RenewalResult result) {
    }
}
