package io.echomq.dashboard;

import java.util.Map;
import java.util.Objects;

/**
 * What the workers heard and the server answered in one run of the claim lease
 * ({@link ClaimLeaseAct}): jobs enqueued and completed, the job the killed worker w4 held, its
 * lease left at the kill, who ran it again with which attempt, and w4's stale completion.
 *
 * @param queue          the queue the act worked on
 * @param jobs           the jobs it meant to enqueue
 * @param created        the jobs the enqueue created
 * @param staleJob       the id of the job w4 held when it was killed; null when the act failed first
 * @param staleAttempt   that job's attempt (its fence) as w4 claimed it
 * @param attemptsBefore the job's {@code attempts} read before the kill
 * @param killedPttl     the lease the job had left just after the kill, in ms: its score in active less the
 *                       server's {@code TIME} (-1 when it had none)
 * @param rerunBy        the worker that ran the job again, or null
 * @param rerunAttempt   the attempt of that rerun
 * @param rerunMillis    the rerun's completion, in milliseconds after the kill
 * @param attemptsAfter  the job's {@code attempts} read after the rerun
 * @param staleOutcome   w4's stale completion's outcome ({@code LEASE_LOST} expected), or null
 * @param lossReason     its reason ({@code SUPERSEDED} expected), or {@code none}
 * @param accepted       completions the workers heard accepted
 * @param exactlyOnce    jobs completed exactly once
 * @param lost           jobs neither completed nor dead
 * @param reaped         leases the reaper returned (claims − completed − failed − returned)
 * @param drained        whether the queue was drained at the end
 * @param completedBy    accepted completions by worker name
 * @param passed         whether the act behaved as the seed says
 * @param failure        why the act stopped early, or null when it ran to the end
 */
public record ClaimLeaseRun(String queue, int jobs, long created, String staleJob, long staleAttempt,
                            String attemptsBefore, long killedPttl, String rerunBy, long rerunAttempt, long rerunMillis,
                            String attemptsAfter, String staleOutcome, String lossReason, long accepted,
                            long exactlyOnce, long lost, long reaped, boolean drained, Map<String, Long> completedBy,
                            boolean passed, String failure) {
    /**
     * @throws NullPointerException if queue or completedBy is null
     */
    public ClaimLeaseRun {
        Objects.requireNonNull(queue, "queue");
        completedBy = Map.copyOf(completedBy);
    }

    /**
     * @param queue   the queue
     * @param jobs    the jobs it meant to enqueue
     * @param failure why the act stopped early
     * @return the record of an act that stopped early: not passed, nothing heard
     */
    public static ClaimLeaseRun failed(String queue, int jobs, String failure) {
        return new ClaimLeaseRun(queue, jobs, 0, null, 0, null, 0, null, 0, 0, null, null, "none", 0, 0, 0, 0, false,
                Map.of(), false, Objects.requireNonNull(failure, "failure"));
    }

    /** @return whether w4's stale completion was refused by the fence ({@code LEASE_LOST (SUPERSEDED)}) */
    public boolean staleRefused() {
        return "LEASE_LOST".equals(staleOutcome) && "SUPERSEDED".equals(lossReason);
    }

    /**
     * @param worker {@code w1} .. {@code w4}
     * @return that worker's readout, from the run
     */
    public String readout(String worker) {
        if (failure != null) {
            return worker + " · the act stopped early: " + failure + ".";
        }
        long done = completedBy.getOrDefault(worker, 0L);
        if (worker.equals("w4")) {
            return "w4 · claim-8 → job " + staleJob + " attempt " + staleAttempt + "; killed mid-job (lease left "
                    + killedPttl + " ms, nobody renews it); its stale complete with attempt " + staleAttempt + " → "
                    + staleOutcome + " (" + lossReason + "). Completions accepted: " + done + ".";
        }
        return worker + " · completions accepted: " + done + (worker.equals(rerunBy) ? "; among them job " + staleJob
                + ", claimed again as attempt " + rerunAttempt + " " + rerunMillis + " ms after w4's kill" : "") + ".";
    }

    /**
     * @return for example {@code "Jobs enqueued: 1000 · accepted completions: 1000 · completed
     *     exactly once: 1000 · lost: 0 · reaped leases: 1 · w4's stale completion of job 17
     *     (attempt 1) → LEASE_LOST (SUPERSEDED); w2 ran it again as attempt 2."}
     */
    public String verdicts() {
        if (failure != null) {
            return "The act stopped early: " + failure + ".";
        }
        return "Jobs enqueued: " + created + " · accepted completions: " + accepted + " · completed exactly once: "
                + exactlyOnce + " · lost: " + lost + " · reaped leases: " + reaped + " · w4's stale completion of job "
                + staleJob + " (attempt " + staleAttempt + ") → " + staleOutcome + " (" + lossReason + "); " + rerunBy
                + " ran it again as attempt " + rerunAttempt + ". Queue drained: " + (drained ? "yes" : "no") + ".";
    }
}
