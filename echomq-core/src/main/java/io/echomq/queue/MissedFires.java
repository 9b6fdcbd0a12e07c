package io.echomq.queue;

import java.util.Locale;

/**
 * What a scheduler does with fire times it finds <em>missed</em>: more than
 * the client's threshold before the server's now ({@link Schedules#MISSED_AFTER} unless set by
 * {@link QueueClient.Builder#missedFiresAfter(java.time.Duration)}), as after a downtime with no
 * scheduler running. Fire times within that span are on time and always fire, each as its own job.
 *
 * <p>Stored in the schedule's hash as {@code skip}, {@code once} or {@code all}.
 */
public enum MissedFires {
    /** Drop every missed fire time; the schedule goes on from its next on-time fire. */
    SKIP,
    /** Fire one job for all the missed fire times together, keyed by the earliest of them. */
    ONCE,
    /**
     * Fire each missed fire time as its own job, oldest first, at most the schedule's
     * {@link Schedule#maxMissed()}; the rest are dropped.
     */
    ALL;

    /** @return the stored form: {@code skip}, {@code once} or {@code all} */
    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param text {@code skip}, {@code once} or {@code all}, in any case
     * @return the policy
     * @throws IllegalArgumentException if text is null or names no policy
     */
    public static MissedFires parse(String text) {
        if (text != null) {
            for (MissedFires m : values()) {
                if (m.text().equalsIgnoreCase(text.strip())) {
                    return m;
                }
            }
        }
        throw new IllegalArgumentException("unknown missed-fire policy '" + text + "': use skip, once or all");
    }
}
