package io.echomq.internal;

import java.util.concurrent.TimeUnit;

/**
 * When a renewer (the lock watchdog, a worker's lease keeper) renews next, given how late it has
 * recently been. One per renewer thread; thread-safe and allocation-free.
 *
 * <ol>
 *   <li>{@link #observe} takes every lateness the renewer sees: a pass that started after it was
 *       due, a renewal answered some time after it was sent. A starved thread (every core busy, a
 *       long collector pause) shows up here first.</li>
 *   <li>It remembers the worst lateness of the last {@link #WINDOW_NANOS} (the larger of this window's
 *       and the previous one's), so one pause keeps it alert for 30 to 60 seconds, and a quiet
 *       minute forgets it.</li>
 *   <li>{@link #interval} is the normal period (a third of the lease) minus twice that lateness,
 *       but never less than half the period: a renewer that was late renews earlier, up to twice as
 *       often, so that a further stall as long as the last one still falls inside the lease. On a
 *       quiet machine it is the normal period, and the renewal traffic is unchanged.</li>
 *   <li>{@link #retryAfter} is how soon to retry a renewal whose outcome is unknown.</li>
 * </ol>
 *
 * <p>It never moves a deadline: a lease's local deadline comes only from a renewal that was
 * answered as renewed, so renewing earlier never keeps a lost lease alive.
 */
public final class RenewalPace {
    /** How long one window of lateness lasts. */
    public static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    // written by the renewer's thread and by answer callbacks: the races only lose a sample of
    // one window, never make the pace slower than the period
    private volatile long windowStart;
    private volatile long worstThisWindow;
    private volatile long worstLastWindow;
    private volatile boolean started;

    /**
     * Notes that something due at {@code dueNanos} happened at {@code nowNanos} (both on the
     * renewer's monotonic clock). Earlier than due counts as on time.
     */
    public void observe(long dueNanos, long nowNanos) {
        rotate(nowNanos);
        long late = nowNanos - dueNanos;
        if (late > worstThisWindow) {
            worstThisWindow = late;
        }
    }

    /** @return the worst lateness seen in this window and the previous one, in nanoseconds */
    public long recentLateness(long nowNanos) {
        rotate(nowNanos);
        return Math.max(worstThisWindow, worstLastWindow);
    }

    /**
     * @param periodNanos the normal period between renewals (a third of the lease)
     * @param nowNanos    the renewer's clock now
     * @return how long after a renewal was sent to send the next: {@code periodNanos} minus twice
     *     the recent lateness, at least half of {@code periodNanos}, at least 1 ns
     */
    public long interval(long periodNanos, long nowNanos) {
        long early = 2 * recentLateness(nowNanos);
        return Math.max(Math.max(1, periodNanos / 2), periodNanos - early);
    }

    /**
     * @param leaseNanos the lease
     * @return how soon to retry a renewal that failed with an unknown outcome: a tenth of the
     *     lease, at most one second, at least 1 ns
     */
    public static long retryAfter(long leaseNanos) {
        return Math.max(1, Math.min(leaseNanos / 10, MAX_RETRY_NANOS));
    }

    private void rotate(long nowNanos) {
        if (!started) {
            windowStart = nowNanos;
            started = true;
            return;
        }
        long age = nowNanos - windowStart;
        if (age >= WINDOW_NANOS) {
            worstLastWindow = age >= 2 * WINDOW_NANOS ? 0 : worstThisWindow;
            worstThisWindow = 0;
            windowStart = nowNanos;
        }
    }
}
