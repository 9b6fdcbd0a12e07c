package io.echomq.queue;

import io.echomq.MonotonicClock;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.RenewalPace;
import io.echomq.internal.RenewalThreads;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * Keeps the leases of the jobs a worker holds: the queue's counterpart of the lock side's
 * {@code Watchdog}.
 *
 * <ol>
 *   <li>Holds each claimed job from its claim until it settles, with the time its next renewal is
 *       due ({@link #track}, {@link #untrack}).</li>
 *   <li>At each {@link #tick()} (about a sixth of the lease, on the worker's renewal thread, which
 *       runs nothing else), renews every job whose renewal is due (a third of the lease after the
 *       last one; earlier, down to a sixth, for a while after a tick or an answer came late: see
 *       {@link RenewalPace}) in one batched extend script per queue, at most
 *       {@link #EXTEND_CHUNK} jobs per call, never from a handler's thread. A failed call is
 *       retried at the next tick.</li>
 *   <li>Marks lost every job whose local deadline has passed ({@link JobLease#checkDeadline}), and
 *       applies each renewal's answer: a new local deadline, or the loss.</li>
 *   <li>Renews one queue's held jobs at once when told a cancel may concern them
 *       ({@link #renewNow}, from the {@link CancelWatch}).</li>
 *   <li>Reports each lost lease once: the job tells this keeper on whichever path saw the loss
 *       first (this tick, a renewal's answer, the handler's own check, a refused settle), and the
 *       keeper logs it and calls {@link WorkerListener#onLeaseLost}.</li>
 * </ol>
 *
 * <p>Time comes from the injected {@link MonotonicClock} only, so a test drives renewals and
 * deadlines by calling {@link #tick()} with a fake clock. Thread-safe.
 */
final class LeaseKeeper {
    /** Jobs per extend script call. */
    static final int EXTEND_CHUNK = 500;

    private final String name;
    private final Logger log;
    private final long leaseMs;
    private final long renewEveryNanos;
    private final MonotonicClock clock;
    private final WorkerListener listener;
    // the jobs held; each one's next renewal is kept on its lease (JobLease#renewAt), so that
    // tracking a job allocates no boxed time
    private final Set<Job> held = ConcurrentHashMap.newKeySet();
    private final RenewalPace pace = new RenewalPace();
    private final long tickNanos;
    private long lastTickNanos;   // written by scheduledTick() only, which runs on one thread at a time
    private boolean ticked;
    private ScheduledExecutorService renewals;   // guarded by this; null until started, or after stop

    LeaseKeeper(String name, Logger log, long leaseMs, MonotonicClock clock, WorkerListener listener) {
        this.name = name;
        this.log = log;
        this.leaseMs = leaseMs;
        this.renewEveryNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, leaseMs / 3));
        this.clock = clock;
        this.listener = listener;
        this.tickNanos = TimeUnit.MILLISECONDS.toNanos(tickMillis());
    }

    /**
     * Starts ticking every {@link #tickMillis()} on a renewal thread of its own
     * ({@link RenewalThreads}), which is given nothing else: no maintenance, no handler can delay
     * a renewal (the loss reports a tick makes, to the {@link WorkerListener}, do run on it).
     * Idempotent while running.
     */
    synchronized void start() {
        if (renewals == null) {
            renewals = Executors.newSingleThreadScheduledExecutor(RenewalThreads.factory(name + "-lease-renewal"));
            long tick = tickMillis();
            renewals.scheduleAtFixedRate(this::scheduledTick, tick, tick, TimeUnit.MILLISECONDS);
        }
    }

    /** Stops ticking: no renewal is sent from now on, and the renewal thread ends. Idempotent. */
    synchronized void stop() {
        if (renewals != null) {
            renewals.shutdownNow();
            renewals = null;
        }
    }

    /** @return how often {@link #tick()} should run: a sixth of the lease, at least 5 ms */
    long tickMillis() {
        return Math.max(5, leaseMs / 6);
    }

    /** Holds {@code job} from now: first renewal a third of the lease on; its loss is reported here. */
    void track(Job job) {
        long now = clock.nanoTime();
        job.leaseState().renewAt(now + pace.interval(renewEveryNanos, now));
        held.add(job);
        job.leaseState().reportTo(() -> lossSeen(job));
    }

    /** Stops holding {@code job}: it settled, or will never run. */
    void untrack(Job job) {
        held.remove(job);
    }

    /** @return the jobs held now */
    List<Job> held() {
        return new ArrayList<>(held);
    }

    /** @return how many jobs are held now */
    int heldCount() {
        return held.size();
    }

    /**
     * The tick the renewal thread runs: notes how late it came (a tick later than one period after
     * the last one means the thread was starved, see {@link RenewalPace}), then {@link #tick()}.
     *
     * @return what {@link #tick()} returned
     */
    int scheduledTick() {
        long now = clock.nanoTime();
        if (ticked) {
            pace.observe(lastTickNanos + tickNanos, now);
        }
        ticked = true;
        lastTickNanos = now;
        return tick();
    }

    /**
     * One pass: marks the jobs past their local deadline lost, and renews those due.
     *
     * @return how many renewals this pass sent (their answers come later)
     */
    int tick() {
        try {
            long now = clock.nanoTime();
            long next = now + pace.interval(renewEveryNanos, now);
            List<Job> due = new ArrayList<>();
            for (Job job : held) {
                if (job.isSettled() || job.leaseState().checkDeadline(now)) {
                    continue;   // settled, or lost (a passed deadline is marked and reported by the job)
                }
                if (now - job.leaseState().renewAt() >= 0) {
                    due.add(job);
                    job.leaseState().renewAt(next);
                }
            }
            for (List<Job> chunk : chunksByQueue(due)) {
                renew(chunk, now);
            }
            return due.size();
        } catch (RuntimeException e) {
            log.warn("{}: renewal tick failed", name, e);
            return 0;
        }
    }

    /**
     * Renews now every held, unsettled job of {@code queue}, whatever its schedule: a cancel
     * message said one of them may be cancelled, and the extend's fenced answer says which
     * ({@code -6}); the others simply get their lease renewed early.
     *
     * @return how many renewals were sent
     */
    int renewNow(Partition queue) {
        try {
            long now = clock.nanoTime();
            List<Job> mine = new ArrayList<>();
            for (Job job : held) {
                if (job.line() == queue.line() && !job.isSettled() && !job.leaseState().isLost()) {
                    mine.add(job);
                    job.leaseState().renewAt(now + renewEveryNanos);
                }
            }
            for (List<Job> chunk : chunksByQueue(mine)) {
                renew(chunk, now);
            }
            return mine.size();
        } catch (RuntimeException e) {
            log.warn("{}: renewal on a cancel message failed", name, e);
            return 0;
        }
    }

    private void renew(List<Job> chunk, long sentAt) {
        List<Attempt> granted = new ArrayList<>(chunk.size());
        for (Job job : chunk) {
            granted.add(job.granted());
        }
        chunk.get(0).line().attempts().extendAsync(leaseMs, granted).whenComplete((codes, failure) -> {
            if (failure != null) {
                log.warn("{}: lease renewal failed, retrying next tick: {}", name,
                        RedisEngine.unwrap(failure).toString());
                long retry = clock.nanoTime();
                for (Job job : chunk) {
                    if (held.contains(job)) {
                        job.leaseState().renewAt(retry);
                    }
                }
                return;
            }
            pace.observe(sentAt, clock.nanoTime());   // the round trip: how long these leases went unconfirmed
            for (int i = 0; i < chunk.size(); i++) {
                Job job = chunk.get(i);
                if (codes.get(i) != 1 && job.settlement().started()) {
                    // the handler's settling call reached the server before this renewal
                    // (same connection): that call's own answer tells what happened
                    continue;
                }
                job.leaseState().onExtended(codes.get(i), sentAt, leaseMs);   // a refusal is reported by the job
            }
        });
    }

    /**
     * @return the jobs in chunks of at most {@link #EXTEND_CHUNK}, each chunk of one queue: the
     *     jobs of a sharded queue are renewed on their own partitions
     */
    private static List<List<Job>> chunksByQueue(List<Job> due) {
        Map<JobLine, List<Job>> byQueue = new LinkedHashMap<>();
        for (Job job : due) {
            byQueue.computeIfAbsent(job.line(), q -> new ArrayList<>()).add(job);
        }
        List<List<Job>> chunks = new ArrayList<>();
        for (List<Job> jobs : byQueue.values()) {
            for (int from = 0; from < jobs.size(); from += EXTEND_CHUNK) {
                chunks.add(jobs.subList(from, Math.min(jobs.size(), from + EXTEND_CHUNK)));
            }
        }
        return chunks;
    }

    /** Told by a tracked job, once, when its loss is first seen (see {@link JobLease#reportTo}). */
    private void lossSeen(Job job) {
        LeaseLossReason reason = job.lossReason().orElse(LeaseLossReason.DEADLINE_PASSED);
        log.warn("{}: lease of {} lost: {}", name, job, reason);
        try {
            listener.onLeaseLost(job, reason);
        } catch (RuntimeException e) {
            log.warn("{}: listener failed on {}", name, job, e);
        }
    }
}
