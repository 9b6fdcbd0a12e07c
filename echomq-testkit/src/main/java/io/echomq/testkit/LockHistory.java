package io.echomq.testkit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A record of what lock clients saw, and the check of the lock's invariants over it. Times are
 * {@link System#nanoTime()} readings in the recording JVM.
 *
 * <p>Each grant is recorded with when its request was sent, when its reply came, and the end of the time its holder
 * was entitled to rely on it: the earlier of its release being sent and its local deadline (the library's
 * {@code validUntilNanos}). The grant certainly took effect between send and reply, so the holder certainly held the
 * lock over {@code [reply, end)}. {@link #check()} reports:
 *
 * <ol>
 *   <li><b>double grant</b>: two grants whose certain holding times overlap;</li>
 *   <li><b>fence order</b>: a grant whose fence is not above the fence of every grant whose reply came before its
 *       request was sent (and fences that repeat);</li>
 *   <li><b>stale write</b>: a guarded write accepted although a write with a higher fence had been accepted before it
 *       was sent.</li>
 * </ol>
 *
 * The check can only miss violations, never invent one: every overlap or reordering it reports is certain from the
 * recorded times. Thread-safe.
 */
public final class LockHistory {

    /**
     * One grant.
     *
     * @param holder   who held it (a client or thread name)
     * @param fence    its fence
     * @param sentNanos when the acquire was sent
     * @param replyNanos when the grant was received
     * @param endNanos when the holder stopped relying on it: release sent, or local deadline, whichever is first
     */
    public record Grant(String holder, long fence, long sentNanos, long replyNanos, long endNanos) {
    }

    /**
     * One guarded write.
     *
     * @param holder   who wrote
     * @param fence    the fence it carried
     * @param accepted whether the store accepted it
     * @param sentNanos when it was sent
     * @param replyNanos when the answer came
     */
    public record Write(String holder, long fence, boolean accepted, long sentNanos, long replyNanos) {
    }

    /**
     * What {@link #check()} found.
     *
     * @param grants     grants recorded
     * @param writes     guarded writes recorded
     * @param refused    guarded writes refused
     * @param violations one line per violation; empty when every invariant held
     */
    public record Report(int grants, int writes, int refused, List<String> violations) {
        /** @return whether no invariant was broken */
        public boolean ok() {
            return violations.isEmpty();
        }
    }

    private final List<Grant> grants = new ArrayList<>();
    private final List<Write> writes = new ArrayList<>();

    /**
     * Records a grant.
     *
     * @param grant the grant
     * @throws IllegalArgumentException if its times are not in order (sent ≤ reply)
     */
    public synchronized void grant(Grant grant) {
        if (grant.replyNanos() < grant.sentNanos()) {
            throw new IllegalArgumentException("reply before send: " + grant);
        }
        grants.add(grant);
    }

    /**
     * Records a guarded write.
     *
     * @param write the write
     * @throws IllegalArgumentException if its times are not in order
     */
    public synchronized void write(Write write) {
        if (write.replyNanos() < write.sentNanos()) {
            throw new IllegalArgumentException("reply before send: " + write);
        }
        writes.add(write);
    }

    /** @return how many grants were recorded */
    public synchronized int grants() {
        return grants.size();
    }

    /** @return the largest fence of any recorded grant, or 0 when none was recorded */
    public synchronized long maxFence() {
        return grants.stream().mapToLong(Grant::fence).max().orElse(0);
    }

    /**
     * Checks the invariants over everything recorded so far.
     *
     * @return the report; at most 20 violations of each kind are listed
     */
    public synchronized Report check() {
        List<String> violations = new ArrayList<>();
        checkOverlap(violations);
        checkFences(violations);
        int refused = checkWrites(violations);
        return new Report(grants.size(), writes.size(), refused, List.copyOf(violations));
    }

    private void checkOverlap(List<String> out) {
        List<Grant> byReply = new ArrayList<>(grants);
        byReply.sort(Comparator.comparingLong(Grant::replyNanos));
        // Sweep: keep the grant with the latest end seen so far; any later reply before that end overlaps it.
        Grant longest = null;
        int found = 0;
        for (Grant g : byReply) {
            if (longest != null && g.replyNanos() < longest.endNanos() && g.replyNanos() < g.endNanos()
                    && found++ < 20) {
                out.add("double grant: " + longest + " and " + g + " held at once for "
                        + (Math.min(longest.endNanos(), g.endNanos()) - g.replyNanos()) / 1000 + " us");
            }
            if (g.replyNanos() < g.endNanos() && (longest == null || g.endNanos() > longest.endNanos())) {
                longest = g;
            }
        }
    }

    private void checkFences(List<String> out) {
        Map<Long, Grant> seen = new HashMap<>();
        int found = 0;
        for (Grant g : grants) {
            Grant other = seen.put(g.fence(), g);
            if (other != null && found++ < 20) {
                out.add("fence " + g.fence() + " granted twice: " + other + " and " + g);
            }
        }
        List<Grant> bySent = new ArrayList<>(grants);
        bySent.sort(Comparator.comparingLong(Grant::sentNanos));
        List<Grant> byReply = new ArrayList<>(grants);
        byReply.sort(Comparator.comparingLong(Grant::replyNanos));
        int i = 0;
        Grant highest = null;
        found = 0;
        for (Grant g : bySent) {
            while (i < byReply.size() && byReply.get(i).replyNanos() < g.sentNanos()) {
                Grant done = byReply.get(i++);
                if (highest == null || done.fence() > highest.fence()) {
                    highest = done;
                }
            }
            if (highest != null && g.fence() <= highest.fence() && found++ < 20) {
                out.add("fence went back: " + g + " was requested after " + highest + " was granted");
            }
        }
    }

    private int checkWrites(List<String> out) {
        List<Write> bySent = new ArrayList<>(writes);
        bySent.sort(Comparator.comparingLong(Write::sentNanos));
        List<Write> byReply = new ArrayList<>(writes);
        byReply.sort(Comparator.comparingLong(Write::replyNanos));
        int i = 0;
        int refused = 0;
        int found = 0;
        Write highest = null;
        for (Write w : bySent) {
            while (i < byReply.size() && byReply.get(i).replyNanos() < w.sentNanos()) {
                Write done = byReply.get(i++);
                if (done.accepted() && (highest == null || done.fence() > highest.fence())) {
                    highest = done;
                }
            }
            if (!w.accepted()) {
                refused++;
            } else if (highest != null && w.fence() < highest.fence() && found++ < 20) {
                out.add("stale write accepted: " + w + " after " + highest);
            }
        }
        return refused;
    }
}
