package io.echomq.lock;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The waiting acquires of one {@link LockClient}, lined up per resource, so that only the first
 * in line competes for the lock on Redis while the others wait their turn in this JVM.
 *
 * <p>Without it, every release woke every local waiter of the resource, and all of them sent an
 * acquire of which one could win: a thundering herd of N − 1 refused scripts per handoff, and a
 * wait order left to chance. With it, a handoff costs the winner's acquire and one refused try by
 * the next in line, and local waiters are served in arrival order. A new acquire joins the back
 * of the line while anyone waits, instead of barging ahead with an immediate try.
 *
 * <p>Only this client's threads are lined up; other processes still compete on Redis, where the
 * atomic acquire decides as before. Nothing here grants or assumes a lock.
 */
final class WaitLine {
    private final ConcurrentHashMap<String, Line> lines = new ConcurrentHashMap<>();

    private static final class Line {
        final Semaphore turn = new Semaphore(1, true);   // fair: first come, first served
        int members;                                        // guarded by the map's compute
    }

    /** @return whether some acquire of this client is waiting for {@code resource} */
    boolean isBusy(String resource) {
        return lines.containsKey(resource);
    }

    /** Joins the back of {@code resource}'s line; close the place to leave it. */
    Place join(String resource) {
        Line line = lines.compute(resource, (k, l) -> {
            Line joined = l == null ? new Line() : l;
            joined.members++;
            return joined;
        });
        return new Place(resource, line);
    }

    /** One waiter's place in a line. */
    final class Place implements AutoCloseable {
        private final String resource;
        private final Line line;
        private boolean first;

        private Place(String resource, Line line) {
            this.resource = resource;
            this.line = line;
        }

        /**
         * Waits until this place is first in line.
         *
         * @return false if {@code nanos} ran out first
         * @throws InterruptedException if the thread is interrupted while waiting
         */
        boolean awaitTurn(long nanos) throws InterruptedException {
            first = line.turn.tryAcquire(Math.max(0, nanos), TimeUnit.NANOSECONDS);
            return first;
        }

        /** Leaves the line, handing the turn to the next in line. */
        @Override
        public void close() {
            if (first) {
                first = false;
                line.turn.release();
            }
            lines.computeIfPresent(resource, (k, l) -> --l.members == 0 ? null : l);
        }
    }
}
