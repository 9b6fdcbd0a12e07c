package io.echomq.lock;

import io.echomq.MonotonicClock;
import io.echomq.RedisCommandException;
import io.echomq.internal.ChannelSignals;
import io.echomq.internal.LockKeys;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How an {@link LockClient#acquire} waits: the choreography over the client's {@link WaitLine},
 * the lock's release channel and the attempts of {@link LockCalls}.
 *
 * <ol>
 *   <li>Tries at once, unless other acquires of this client already wait for the resource: then
 *       it joins the back of their line, so that a releasing thread cannot barge ahead.</li>
 *   <li>Subscribes to the release channel before waiting, so that no release slips past. Its
 *       tries from then on mark the resource as waited for whenever they are refused
 *       ({@code wait-acquire-3.lua}), in the same step, since a release publishes only while
 *       that mark lives or its own client has waiters ({@code release-3.lua}).</li>
 *   <li>Waits its turn in line; only the first in line sends acquires.</li>
 *   <li>A fenced waiter without a replica wait posts an offer: a release of this client may hand
 *       it the lock wherever it stands in line ({@code handoff-2.lua}).</li>
 *   <li>Between tries it sleeps until the release notification, the jittered fallback poll, or
 *       the holder's remaining ttl, whichever is first. It never spins.</li>
 *   <li>Gives up with {@link LockWaitTimeoutException} when {@code maxWait} runs out.</li>
 * </ol>
 *
 * <p>It grants nothing itself: every lease comes from an attempt or a handoff script.
 */
final class WaitingAcquires {
    /** How much longer than a waiter's remaining wait the waiting key lives. */
    static final long MARK_MARGIN_MS = 100;

    private final LockCalls calls;
    private final LockKeys keys;
    private final MonotonicClock clock;
    private final ChannelSignals signals;
    private final WaitLine waitLine;
    private final long pollNanos;

    WaitingAcquires(LockCalls calls, LockKeys keys, MonotonicClock clock, ChannelSignals signals, WaitLine waitLine,
                    long pollNanos) {
        this.calls = calls;
        this.keys = keys;
        this.clock = clock;
        this.signals = signals;
        this.waitLine = waitLine;
        this.pollNanos = pollNanos;
    }

    /**
     * Acquires {@code r} (already checked), waiting up to {@code waitNanos}; the contract is
     * {@link LockClient#acquire(String, Duration, Duration, AcquireOptions)}'s.
     *
     * @param maxWait the caller's wait, for the timeout's message
     */
    Lease acquire(String r, long ttlMs, long waitNanos, Duration maxWait, AcquireOptions options)
            throws InterruptedException {
        String op = LockCalls.acquireLabel(options);
        long start = clock.nanoTime();

        LockCalls.Attempt first = new LockCalls.Attempt(null, -2);
        if (waitNanos == 0 || !waitLine.isBusy(r)) {
            first = awaitAttempt(calls.attempt(r, ttlMs, options), op, r);
            if (first.lease() != null) {
                return first.lease();
            }
        }
        try (ChannelSignals.Waiter waiter = signals.join(keys.channel(r)); WaitLine.Place place = waitLine.join(r)) {
            // Only the first in line sends acquires; the others wait here, subscribed already, so
            // the channel's subscription lives as long as anyone waits. A fenced waiter posts an
            // offer at once: a release of this client may hand it the lock wherever it stands.
            boolean offers = handsOver(options);
            WaitLine.Offer offer = offers ? place.post(ttlMs, options) : null;
            while (!place.hasTurn()) {
                if (!place.awaitTurnOrOffer(waitNanos - (clock.nanoTime() - start)) && offer != null
                        && offer.isClaimed()) {
                    place.withdraw();   // claimed: its result is ours to take
                    Lease handed = awaitHandoff(offer);
                    if (handed != null) {
                        place.granted(handed.token());
                        return handed;
                    }
                    offer = place.post(ttlMs, options);
                } else if (!place.hasTurn() && waitNanos - (clock.nanoTime() - start) <= 0) {
                    throw new LockWaitTimeoutException(r, maxWait);
                }
            }
            LockCalls.Attempt last = first;
            boolean subscribed = false;
            CompletableFuture<Void> signal = null;
            if (offer != null && waiter.subscribed().isDone()) {
                // In this order: the offer is out already, so a release from here on either claims
                // it or publishes, and the signal, taken now, hears the publication.
                signal = waiter.signal();
                // The line's previous waiter holds the lock and has not begun its release: skip
                // the try that would be refused, and wait for the handoff (or the publication).
                subscribed = place.heldInLine();
            }
            while (true) {
                long left = waitNanos - (clock.nanoTime() - start);
                if (left <= 0) {
                    throw new LockWaitTimeoutException(r, maxWait);
                }
                if (!subscribed) {
                    // Retry once the subscription is live, so that no release can slip past. If
                    // subscribing failed, carry on with the fallback poll alone rather than spin.
                    // Never past the holder's remaining ttl, though: a lock that expires while the
                    // subscription is still on its way is taken at its ttl, not at the poll.
                    long bound = Math.min(left, pollNanos);
                    bound = capByExpiry(bound, last.pttlMillis());
                    awaitQuietly(orHandedOver(waiter.subscribed(), offer), bound);
                    subscribed = waiter.subscribed().isDone();
                } else {
                    long pause = jitteredPoll();
                    pause = capByExpiry(pause, last.pttlMillis());
                    // Taken before the last try: a release during that try ends this wait at once.
                    awaitQuietly(orHandedOver(signal, offer), Math.min(pause, left));
                }
                if (offer != null && !place.withdraw()) {
                    // A release claimed the offer: its script decides, within one round trip.
                    Lease handed = awaitHandoff(offer);
                    if (handed != null) {
                        place.granted(handed.token());
                        return handed;
                    }
                }
                signal = waiter.signal();
                // Marks the resource as waited for when refused, until this wait's end, so that
                // every release until then publishes (release-3.lua): the margin covers the
                // difference between the server's clock rate and ours.
                long markMillis = TimeUnit.NANOSECONDS.toMillis(waitNanos - (clock.nanoTime() - start)) + MARK_MARGIN_MS;
                last = awaitAttempt(calls.waitingAttempt(r, ttlMs, options, markMillis), Scripts.WAIT_ACQUIRE.label(), r);
                if (last.lease() != null) {
                    place.granted(last.lease().token());
                    return last.lease();
                }
                offer = offers ? place.post(ttlMs, options) : null;
            }
        }
    }

    /** @return whether a waiter with these options may be handed a lock by a local release */
    private static boolean handsOver(AcquireOptions options) {
        // The handoff grants a fenced lease; a replica wait needs its own WAIT after the grant.
        return options.isFenced() && options.replicasToWait() == 0;
    }

    /** @return a future done when {@code wake} is, or when {@code offer} (if any) was answered */
    private static CompletableFuture<?> orHandedOver(CompletableFuture<?> wake, WaitLine.Offer offer) {
        return offer == null ? wake : CompletableFuture.anyOf(wake, offer.result);
    }

    /**
     * Waits for the outcome of a claimed offer: one script's round trip. If interrupted, a lease
     * granted later is released, since nobody will take it.
     *
     * @return the lease handed over, or null if the release granted nothing
     */
    private static Lease awaitHandoff(WaitLine.Offer offer) throws InterruptedException {
        try {
            return offer.result.get();
        } catch (InterruptedException e) {
            offer.result.thenAccept(lease -> {
                if (lease != null) {
                    lease.releaseAsync();
                }
            });
            throw e;
        } catch (ExecutionException e) {
            return null;   // never completed exceptionally; kept total
        }
    }

    /** Waits for one attempt; a {@link ReplicaAckException} is thrown as itself. */
    static LockCalls.Attempt awaitAttempt(CompletableFuture<LockCalls.Attempt> f, String op, String resource)
            throws InterruptedException {
        try {
            return RedisEngine.awaitInterruptibly(f, op, resource);
        } catch (RedisCommandException e) {
            throw ReplicaAckException.unwrap(e);
        }
    }

    private long jitteredPoll() {
        return pollNanos / 2 + ThreadLocalRandom.current().nextLong(pollNanos + 1);
    }

    /** Waits for {@code f} up to {@code nanos}; @return whether it completed normally. */
    private static boolean awaitQuietly(CompletableFuture<?> f, long nanos) throws InterruptedException {
        try {
            f.get(nanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException | ExecutionException e) {
            return false;
        }
    }

    /**
     * @return {@code waitNanos}, cut to just past the holder's ttl when the server gave one
     *     ({@code pttlMillis >= 0}). A PTTL of 0 is a key in its last millisecond (Redis expires it
     *     only once its clock passes the deadline), so the wait is one millisecond, never a whole
     *     poll; a negative PTTL (no ttl, or no key) leaves the wait as it is.
     */
    static long capByExpiry(long waitNanos, long pttlMillis) {
        if (pttlMillis < 0) {
            return waitNanos;
        }
        return Math.min(waitNanos, TimeUnit.MILLISECONDS.toNanos(Math.max(pttlMillis, 1)) + 1);
    }
}
