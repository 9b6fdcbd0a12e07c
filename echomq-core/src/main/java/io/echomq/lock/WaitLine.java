package io.echomq.lock;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The waiting acquires of one {@link LockClient}, lined up per resource, so that only the first
 * in line competes for the lock on Redis while the others wait their turn in this JVM. The line
 * is the data; {@link WaitingAcquires} is how one acquire waits in it.
 *
 * <p>Without it, every release woke every local waiter of the resource, and all of them sent an
 * acquire of which one could win: a thundering herd of N − 1 refused scripts per handoff, and a
 * wait order left to chance. With it, only the first in line tries, and local waiters are served
 * in arrival order. A new acquire joins the back of the line while anyone waits, instead of
 * barging ahead with an immediate try.
 *
 * <p><b>Local handoff.</b> A waiter may post an {@link Offer}: "grant me the lock with this ttl".
 * A release of the same client on the same resource {@link #claim}s the first open offer in line
 * and sends {@code handoff-2.lua} instead of {@code release-3.lua}, which gives the lock straight
 * to that waiter on the server (new token, new fence, fresh ttl) and completes the offer with the
 * lease. That saves the release notification and the waiter's acquire. At most
 * {@link #MAX_HANDOFFS_IN_A_ROW} releases in a row are handoffs; the next one is a plain release,
 * published, so that other clients' waiters get their chance at the lock.
 *
 * <p>Only this client's threads are lined up; other processes still compete on Redis, where the
 * atomic scripts decide as before. Nothing here grants or assumes a lock.
 */
final class WaitLine {
    /** Local handoffs in a row on one resource before a plain release lets other clients try. */
    static final int MAX_HANDOFFS_IN_A_ROW = 8;

    private static final int OPEN = 0;
    private static final int CLAIMED = 1;
    private static final int WITHDRAWN = 2;

    private final ConcurrentHashMap<String, Line> lines = new ConcurrentHashMap<>();

    private static final class Line {
        final ArrayDeque<Place> places = new ArrayDeque<>();   // guarded by this; the head has the turn
        int handoffsInARow;                                    // guarded by this
        /** The token of a lease that a waiter of this line was granted and has not yet released. */
        final AtomicReference<String> holder = new AtomicReference<>();
    }

    /**
     * A waiter's standing request to be handed the lock. Claimed at most once, by a releaser, which
     * then completes the result: with the lease it was granted, or with null when the release found
     * the lock no longer held by the releaser (or failed), in which case the waiter carries on.
     */
    static final class Offer {
        final long ttlMillis;
        final AcquireOptions options;
        final CompletableFuture<Lease> result = new CompletableFuture<>();
        private final AtomicInteger state = new AtomicInteger(OPEN);

        Offer(long ttlMillis, AcquireOptions options) {
            this.ttlMillis = ttlMillis;
            this.options = options;
        }

        /** @return whether a releaser has claimed this offer (its result then follows) */
        boolean isClaimed() {
            return state.get() == CLAIMED;
        }
    }

    /** @return whether some acquire of this client is waiting for {@code resource} */
    boolean isBusy(String resource) {
        return lines.containsKey(resource);
    }

    /** Joins the back of {@code resource}'s line; close the place to leave it. */
    Place join(String resource) {
        Place[] joined = new Place[1];
        lines.compute(resource, (k, l) -> {
            Line line = l == null ? new Line() : l;
            Place place = new Place(resource, line);
            synchronized (line) {
                if (line.places.isEmpty()) {
                    place.turn.complete(null);
                }
                line.places.addLast(place);
            }
            joined[0] = place;
            return line;
        });
        return joined[0];
    }

    /**
     * Called before every release of {@code token}'s lease on {@code resource}: forgets it as the
     * line's holder (see {@link Place#heldInLine()}), then claims the first open offer in line, if
     * any, unless the last {@link #MAX_HANDOFFS_IN_A_ROW} releases were handoffs already (then this
     * one must be a plain release, and the count starts again). The caller must complete the
     * claimed offer's result.
     *
     * @return the claimed offer, or null: release plainly
     */
    Offer claim(String resource, String token) {
        Line line = lines.get(resource);
        if (line == null) {
            return null;
        }
        // First: from here on, the first in line no longer counts on this release to reach its offer.
        line.holder.compareAndSet(token, null);
        synchronized (line) {
            for (Place p : line.places) {
                Offer o = p.posted;
                if (o == null || o.state.get() != OPEN) {
                    continue;
                }
                if (line.handoffsInARow >= MAX_HANDOFFS_IN_A_ROW) {
                    line.handoffsInARow = 0;
                    return null;
                }
                if (o.state.compareAndSet(OPEN, CLAIMED)) {
                    line.handoffsInARow++;
                    return o;
                }
            }
            return null;
        }
    }

    /** One waiter's place in a line. */
    final class Place implements AutoCloseable {
        private final String resource;
        private final Line line;
        private final CompletableFuture<Void> turn = new CompletableFuture<>();
        private volatile Offer posted;

        private Place(String resource, Line line) {
            this.resource = resource;
            this.line = line;
        }

        /**
         * Waits until this place is first in line, or until its posted offer is claimed.
         *
         * @return whether this place is now first in line
         * @throws InterruptedException if the thread is interrupted while waiting
         */
        boolean awaitTurnOrOffer(long nanos) throws InterruptedException {
            Offer o = posted;
            CompletableFuture<?> either = o == null ? turn : CompletableFuture.anyOf(turn, o.result);
            try {
                either.get(Math.max(0, nanos), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException e) {
                // answered by the state below
            }
            return turn.isDone();
        }

        /** @return whether this place is first in line */
        boolean hasTurn() {
            return turn.isDone();
        }

        /**
         * Records that this waiter was granted the lease with {@code token}, just before it leaves
         * the line with it; its release will clear the record ({@link #claim}).
         */
        void granted(String token) {
            line.holder.set(token);
        }

        /**
         * Whether the lock is held by a lease granted to a waiter of this line whose release has
         * not yet begun. Read after posting an offer: while true, that release will claim an open
         * offer (the first in line's, when it is first), or be a plain release that publishes.
         */
        boolean heldInLine() {
            return line.holder.get() != null;
        }

        /**
         * Posts a new offer for the lock, one at a time per place.
         *
         * @throws IllegalStateException if this place has an offer out
         */
        Offer post(long ttlMillis, AcquireOptions options) {
            if (posted != null) {
                throw new IllegalStateException("one offer at a time");
            }
            Offer o = new Offer(ttlMillis, options);
            posted = o;
            return o;
        }

        /**
         * Takes the posted offer back.
         *
         * @return true if it was withdrawn (or none was out); false if a releaser claimed it first,
         *     and its result will tell whether the lock was handed over (the caller owns that outcome)
         */
        boolean withdraw() {
            Offer o = posted;
            posted = null;
            return o == null || o.state.compareAndSet(OPEN, WITHDRAWN) || o.state.get() == WITHDRAWN;
        }

        /**
         * Leaves the line, handing the turn to the next in line if this place had it. An offer still
         * out is withdrawn; one already claimed by a releaser, whose lease nobody will now take, is
         * released when granted, so that it does not stay held until its ttl.
         */
        @Override
        public void close() {
            Offer o = posted;
            if (o != null && !withdraw()) {
                o.result.thenAccept(lease -> {
                    if (lease != null) {
                        lease.releaseAsync();
                    }
                });
            }
            lines.computeIfPresent(resource, (k, l) -> {
                synchronized (l) {
                    boolean head = l.places.peekFirst() == this;
                    l.places.remove(this);
                    Place next = l.places.peekFirst();
                    if (head && next != null) {
                        next.turn.complete(null);
                    }
                    return l.places.isEmpty() ? null : l;
                }
            });
        }
    }
}
