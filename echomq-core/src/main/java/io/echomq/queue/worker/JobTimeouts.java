package io.echomq.queue;

import io.echomq.MonotonicClock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Watches how long each running handler of one worker has run, against that job's timeout.
 *
 * <ol>
 *   <li>Starts a watch when a handler starts ({@link #watch}), with that job's timeout (the
 *       runner resolves it: the job's own, else its queue's default, else the worker's), and drops
 *       it when the handler returns ({@link #unwatch}); a dropped watch never fires.</li>
 *   <li>Measures from the handler's start on the worker's {@link MonotonicClock}: the timer thread
 *       only wakes it up, and a watch that wakes early (the clock behind the timer's own) sleeps
 *       again for what is left.</li>
 *   <li>At the timeout, hands the job to the {@link Expiry} once, on its own daemon thread (one per
 *       worker, started by the first watch), which is never a handler's thread nor the lease
 *       keeper's.</li>
 * </ol>
 *
 * <p>Separate from the lease keeper because the timeout is not a lease: the lease is renewed while
 * the handler runs, and the timeout is what ends a handler that would otherwise run, and renew,
 * forever. Thread-safe.
 */
final class JobTimeouts {
    /** Told once per job whose handler ran past the timeout. */
    interface Expiry {
        /** @param observed the instrumentation's start token of the handler's run */
        void expired(Job job, long observed);
    }

    private final MonotonicClock clock;
    private final Expiry expiry;
    private final ScheduledExecutorService timer;
    private final Map<Job, ScheduledFuture<?>> watched = new ConcurrentHashMap<>();

    JobTimeouts(String name, MonotonicClock clock, Expiry expiry) {
        this.clock = clock;
        this.expiry = expiry;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name + "-timeouts");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts the watch of {@code job}, whose handler starts now and may run {@code timeoutMs} (1 ms..1 day). */
    void watch(Job job, long observed, long timeoutMs) {
        long startedAt = clock.nanoTime();
        long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        synchronized (this) {
            schedule(job, startedAt, timeoutNanos, observed, timeoutNanos);
        }
    }

    /** Drops the watch of {@code job}: its handler returned. Once this returns, the watch never fires. */
    synchronized void unwatch(Job job) {
        ScheduledFuture<?> f = watched.remove(job);
        if (f != null) {
            f.cancel(false);
        }
    }

    /** @return how many handlers are watched now */
    int watchedCount() {
        return watched.size();
    }

    /** Stops the timer thread; a watch still running is dropped. */
    void close() {
        timer.shutdownNow();
        watched.clear();
    }

    private void schedule(Job job, long startedAt, long timeoutNanos, long observed, long delayNanos) {
        try {
            watched.put(job, timer.schedule(() -> check(job, startedAt, timeoutNanos, observed), delayNanos,
                    TimeUnit.NANOSECONDS));
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            // the worker is closing: its handlers are ended by its shutdown
        }
    }

    private void check(Job job, long startedAt, long timeoutNanos, long observed) {
        synchronized (this) {
            if (!watched.containsKey(job)) {
                return;   // its handler returned while this run was due
            }
            long left = startedAt + timeoutNanos - clock.nanoTime();
            if (left > 0) {
                schedule(job, startedAt, timeoutNanos, observed, left);
                return;
            }
            watched.remove(job);
        }
        expiry.expired(job, observed);
    }
}
