package io.echomq.testkit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A record of what happened to a queue's jobs, from every worker that reported, and the check of the queue's
 * invariants against the final state read from Redis.
 *
 * <p>Workers report what they saw: a claim ({@code id}, attempt granted) and a settle ({@code id}, attempt, whether
 * the server accepted it and what it said). Reports from a worker killed with {@code kill -9} may stop short; the
 * final state read from the server fills the gap. {@link #check(Map)} reports:
 *
 * <ol>
 *   <li><b>lost</b>: an enqueued job whose final state is neither {@code done} nor {@code dead} (or whose hash is
 *       gone);</li>
 *   <li><b>stale completion accepted</b>: two accepted completions of one job, or an accepted completion whose
 *       attempt is not the job's final attempt number;</li>
 *   <li><b>done returned to pending</b>: a claim of a job with an attempt above the attempt that completed it, or a
 *       job completed by a worker whose final state is not {@code done};</li>
 *   <li><b>fence reused</b>: one attempt number granted twice for the same job;</li>
 *   <li><b>done by an unreported claim</b>: a job that ended {@code done} at an attempt no worker reported
 *       claiming; only a holder of the job's current attempt may complete it, and every claim is reported before
 *       its handler runs;</li>
 *   <li><b>unparsable report</b>: a line given to {@link #record(String)} that is not a report. A report the
 *       checker cannot read is a report it cannot check, so it fails the run instead of being dropped.</li>
 * </ol>
 *
 * <p>A job that ends {@code dead} counts as settled, not lost: the queue gave up on it as designed. Where no handler
 * can fail, a dead job is itself a fault (for example a reaped job dead-lettered instead of retried), so runs
 * without failing handlers must also require {@link Report#dead()} to be 0.
 *
 * Thread-safe.
 */
public final class QueueHistory {

    /**
     * The final state of one job, as read from Redis.
     *
     * @param state    the job hash's {@code state}, or {@code null} if the hash is gone
     * @param attempts the job hash's {@code attempts} (the fence), or 0 if gone
     */
    public record Final(String state, long attempts) {
    }

    /**
     * What {@link #check(Map)} found.
     *
     * @param enqueued   jobs enqueued
     * @param claims     claims reported
     * @param completed  completions accepted, as reported
     * @param refused    settles refused ({@code LEASE_LOST}), as reported
     * @param done       jobs whose final state is {@code done}
     * @param dead       jobs whose final state is {@code dead}
     * @param lost       jobs neither done nor dead at the end
     * @param unreported jobs that ended {@code done} with no accepted completion reported: the server's answer to
     *                   the completion never reached the worker (a cut connection, a restarted server, a worker
     *                   killed before it could print); the stale-completion check could not look at these
     * @param violations one line per violation (at most 20 per kind); empty when every invariant held
     */
    public record Report(int enqueued, long claims, long completed, long refused, long done, long dead, long lost,
                         long unreported, List<String> violations) {
        /** @return whether no invariant was broken */
        public boolean ok() {
            return violations.isEmpty();
        }
    }

    private final Set<String> enqueued = new LinkedHashSet<>();
    private final Map<String, List<Long>> claims = new HashMap<>();
    private final Map<String, List<Long>> completions = new HashMap<>();
    private final List<String> unparsable = new ArrayList<>();
    private long claimCount;
    private long completedCount;
    private long refusedCount;

    /**
     * Records enqueued job ids.
     *
     * @param ids the ids
     */
    public synchronized void enqueued(Iterable<String> ids) {
        for (String id : ids) {
            enqueued.add(id);
        }
    }

    /**
     * Records a claim.
     *
     * @param id      the job id
     * @param attempt the attempt number granted
     */
    public synchronized void claimed(String id, long attempt) {
        claims.computeIfAbsent(id, k -> new ArrayList<>()).add(attempt);
        claimCount++;
    }

    /**
     * Records a settle: a complete, fail or give-back and the server's answer.
     *
     * @param id       the job id
     * @param attempt  the attempt that settled
     * @param outcome  the answer's name, for example {@code "COMPLETED"} or {@code "LEASE_LOST"}
     */
    public synchronized void settled(String id, long attempt, String outcome) {
        if ("COMPLETED".equals(outcome)) {
            completions.computeIfAbsent(id, k -> new ArrayList<>()).add(attempt);
            completedCount++;
        } else if ("LEASE_LOST".equals(outcome)) {
            refusedCount++;
        }
    }

    /** The outcomes a settle report may name: those of {@code io.echomq.queue.SettleOutcome}. */
    private static final Set<String> OUTCOMES = Set.of("COMPLETED", "RETRYING", "DEAD", "RETURNED",
            "LEASE_LOST");

    /**
     * Parses one report line of the form {@code CLAIMED <id> <attempt>} or
     * {@code SETTLED <id> <attempt> <OUTCOME>} and records it. Any other line (a wrong number of fields, an
     * attempt that is not a positive number, an outcome that is not an {@code SettleOutcome} name, or a line that is
     * not a report at all) is kept, and {@link #check(Map)} reports it as a violation; callers pass only the lines
     * that are meant to be reports.
     *
     * @param line a line written by a worker
     * @return whether the line was a report
     */
    public boolean record(String line) {
        String[] f = line.split(" ", -1);
        try {
            if (f.length == 3 && f[0].equals("CLAIMED") && !f[1].isEmpty()) {
                long attempt = Long.parseLong(f[2]);
                if (attempt > 0) {
                    claimed(f[1], attempt);
                    return true;
                }
            }
            if (f.length == 4 && f[0].equals("SETTLED") && !f[1].isEmpty() && OUTCOMES.contains(f[3])) {
                long attempt = Long.parseLong(f[2]);
                if (attempt > 0) {
                    settled(f[1], attempt, f[3]);
                    return true;
                }
            }
        } catch (NumberFormatException notAReport) {
            // kept below
        }
        synchronized (this) {
            unparsable.add(line);
        }
        return false;
    }

    /** @return the ids enqueued so far, in order */
    public synchronized List<String> enqueuedIds() {
        return List.copyOf(enqueued);
    }

    /** @return for each job with an accepted completion, the attempt that completed it (the first one reported) */
    public synchronized Map<String, Long> acceptedCompletions() {
        Map<String, Long> out = new HashMap<>();
        completions.forEach((id, attempts) -> out.put(id, attempts.get(0)));
        return out;
    }

    /** @return claims recorded so far */
    public synchronized long claims() {
        return claimCount;
    }

    /** @return accepted completions recorded so far */
    public synchronized long completions() {
        return completedCount;
    }

    /**
     * Checks the invariants against the final state of every enqueued job.
     *
     * @param finals the final state per job id, read from Redis once the run is over; a missing entry counts as a
     *               job whose hash is gone
     * @return the report
     */
    public synchronized Report check(Map<String, Final> finals) {
        List<String> out = new ArrayList<>();
        int[] found = new int[6];
        long unreported = 0;
        for (String line : unparsable) {
            add(out, found, 4, "unparsable report: '" + line + "'");
        }
        long done = 0;
        long dead = 0;
        long lost = 0;
        for (String id : enqueued) {
            Final f = finals.getOrDefault(id, new Final(null, 0));
            if ("done".equals(f.state())) {
                done++;
            } else if ("dead".equals(f.state())) {
                dead++;
            } else {
                lost++;
                add(out, found, 0, "lost: job " + id + " ended in state " + f.state() + " after " + f.attempts()
                        + " attempt(s)");
            }
            List<Long> c = completions.getOrDefault(id, List.of());
            if ("done".equals(f.state())) {
                if (c.isEmpty()) {
                    unreported++;
                }
                if (!claims.getOrDefault(id, List.of()).contains(f.attempts())) {
                    add(out, found, 5, "done by an unreported claim: job " + id + " ended done at attempt "
                            + f.attempts() + " but the claims reported were " + claims.getOrDefault(id, List.of()));
                }
            }
            if (c.size() > 1) {
                add(out, found, 1, "stale completion accepted: job " + id + " completed by attempts " + c);
            } else if (c.size() == 1 && c.get(0) != f.attempts()) {
                add(out, found, 1, "stale completion accepted: job " + id + " completed by attempt " + c.get(0)
                        + " but its final attempt is " + f.attempts());
            }
            if (!c.isEmpty()) {
                long completedBy = c.get(0);
                if (!"done".equals(f.state())) {
                    add(out, found, 2, "done returned: job " + id + " was completed by attempt " + completedBy
                            + " but ended " + f.state());
                }
                for (long a : claims.getOrDefault(id, List.of())) {
                    if (a > completedBy) {
                        add(out, found, 2, "done returned to pending: job " + id + " claimed as attempt " + a
                                + " after attempt " + completedBy + " completed it");
                    }
                }
            }
            List<Long> granted = claims.getOrDefault(id, List.of());
            if (granted.size() != new LinkedHashSet<>(granted).size()) {
                add(out, found, 3, "fence reused: job " + id + " granted attempts " + granted);
            }
        }
        for (String id : claims.keySet()) {
            if (!enqueued.contains(id)) {
                add(out, found, 3, "unknown job claimed: " + id);
            }
        }
        return new Report(enqueued.size(), claimCount, completedCount, refusedCount, done, dead, lost, unreported,
                List.copyOf(out));
    }

    private static void add(List<String> out, int[] found, int kind, String line) {
        if (found[kind]++ < 20) {
            out.add(line);
        }
    }
}
