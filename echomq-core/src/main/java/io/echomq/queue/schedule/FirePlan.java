package io.echomq.queue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which fire times one run of a scheduler enqueues for one due schedule, and the next fire time it
 * then stores: a pure function of the schedule, its stored fire time and the server's now, so that
 * it can be tested without Redis.
 *
 * <ul>
 *   <li>Fire times at or after {@code now − missedAfter} are <em>on time</em>: each is fired.</li>
 *   <li>Earlier ones are <em>missed</em> and follow the policy: {@link MissedFires#SKIP} fires none,
 *       {@link MissedFires#ONCE} fires the stored fire time alone (every scheduler that read it
 *       picks the same one, so a retry after a crash cannot add a second catch-up job),
 *       {@link MissedFires#ALL} fires them oldest first, at most {@code maxMissed}.</li>
 *   <li>At most {@code cap} fire times per run (one enqueue script); the next run goes on from the
 *       first left out.</li>
 * </ul>
 *
 * @param fireTimes the fire times to enqueue, epoch ms, each once, in order
 * @param next      the next fire time to store, epoch ms, or -1 when the schedule never fires again
 */
record FirePlan(List<Long> fireTimes, long next) {

    static FirePlan of(FireTimes times, long stored, long now, MissedFires policy, int maxMissed, long missedAfterMs,
                       int cap) {
        List<Long> out = new ArrayList<>();
        long cutoff = now - missedAfterMs;
        long t = stored;
        if (t < cutoff) {
            if (policy == MissedFires.ONCE) {
                out.add(stored);
            } else if (policy == MissedFires.ALL) {
                while (t >= 0 && t < cutoff && out.size() < Math.min(maxMissed, cap)) {
                    out.add(t);
                    t = next(times, t);
                }
            }
            t = next(times, cutoff - 1);   // the first on-time fire time, at or after the cutoff
        }
        while (t >= 0 && t <= now && out.size() < cap) {
            out.add(t);
            t = next(times, t);
        }
        return new FirePlan(List.copyOf(out), t);
    }

    private static long next(FireTimes times, long after) {
        Optional<Instant> n = times.nextAfter(Instant.ofEpochMilli(after));
        return n.map(Instant::toEpochMilli).orElse(-1L);
    }
}
