package io.echomq.queue;

import java.util.Locale;

/**
 * The states a job can be listed in ({@link QueueOperations#list}), each with its order.
 *
 * <ul>
 *   <li>{@link #PENDING}: claim order, the order the next claims take them in.</li>
 *   <li>{@link #ACTIVE}: lease deadline, earliest first (an extend moves a job back).</li>
 *   <li>{@link #DELAYED}: due time, earliest first.</li>
 *   <li>{@link #DEAD}: time of death, oldest first.</li>
 *   <li>{@link #DONE}: time of completion, oldest first; only the completed jobs the queue's
 *       retention still keeps ({@link QueueRetention}).</li>
 *   <li>{@link #CANCELLED}: time of the cancel, oldest first; the last 10,000 cancellations the
 *       queue records, whether or not their hashes are still kept.</li>
 * </ul>
 */
public enum JobState {
    /** Ready to be claimed: the wait LIST (priority 0) and the pending ZSET. */
    PENDING,
    /** Under a lease. */
    ACTIVE,
    /** Waiting for a delay, a run-at time or a retry. */
    DELAYED,
    /** In the dead set. */
    DEAD,
    /** Completed and still kept by the retention. */
    DONE,
    /** Cancelled, among the last cancellations the queue records. */
    CANCELLED;

    /** @return the name used on the wire and in the CLI: {@code pending}, {@code active}, … */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param name a state's wire name ({@code pending}, {@code active}, {@code delayed}, {@code dead}, {@code done},
     *     {@code cancelled})
     * @return its state
     * @throws IllegalArgumentException if the name is null or no state's
     */
    public static JobState parse(String name) {
        if (name != null) {
            for (JobState s : values()) {
                if (s.wireName().equals(name)) {
                    return s;
                }
            }
        }
        throw new IllegalArgumentException("unknown job state '" + name
                + "'; expected one of pending, active, delayed, dead, done, cancelled");
    }
}
