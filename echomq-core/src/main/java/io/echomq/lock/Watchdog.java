package io.echomq.lock;

import io.echomq.MonotonicClock;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread per lock client (started by its {@link LeaseIssuer}) that looks after every lease
 * which asked for it.
 *
 * <ol>
 *   <li>Renews watched leases at about ttl/3 after the acquire or the last renewal was sent,
 *       the moment their local deadline counts from, so that a slow acquire does not eat into the
 *       two thirds of the ttl left for the renewal's round trip. All renewals due
 *       within a few milliseconds of each other go in one {@link Batch}: on one server, written to
 *       the pipelined connection and flushed once, one write for the whole batch (Redlock sends
 *       each to every master at once).</li>
 *   <li>Retries a failed renewal soon (ttl/10, at most one second), until the lease's local
 *       deadline passes; then the lease is lost with {@link LossReason#DEADLINE_PASSED}.</li>
 *   <li>Marks a lease lost when a renewal finds it gone or taken, and forgets it.</li>
 *   <li>Times leases that are not renewed but whose holder asked for {@link Lease#lost()}, and
 *       marks them lost when their local deadline passes.</li>
 * </ol>
 *
 * <p>It never renews a lease that is released or lost: each entry checks the lease first.
 */
final class Watchdog implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Watchdog.class);
    private static final long COALESCE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final MonotonicClock clock;
    private final Supplier<Batch> batches;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final PriorityQueue<Slot> queue = new PriorityQueue<>();
    private final Thread thread;
    private long sequence;
    private boolean closed;

    /** A lease under watch; {@code due} is when to look at it next. */
    private static final class Entry {
        final Lease lease;
        final boolean renews;
        long due;
        volatile boolean inFlight;

        Entry(Lease lease, boolean renews) {
            this.lease = lease;
            this.renews = renews;
        }
    }

    /** A queue position; stale once its entry was rescheduled (lazy deletion). */
    private record Slot(long due, long seq, Entry entry) implements Comparable<Slot> {
        @Override
        public int compareTo(Slot o) {
            int c = Long.compare(due - o.due, 0);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    /**
     * Where one pass of renewals goes: {@link #renew} queues a token-checked renewal (its future
     * fails when the outcome is unknown), {@link #flush} sends everything queued.
     */
    interface Batch {
        CompletableFuture<RenewOutcome> renew(Lease lease, long ttlMillis, long sentAtNanos);

        void flush();
    }

    /** @param batches opens the batch of one pass; called at most once per pass, on this thread */
    Watchdog(MonotonicClock clock, Supplier<Batch> batches) {
        this.clock = clock;
        this.batches = batches;
        this.thread = new Thread(this::loop, "emq-lease-watchdog");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /**
     * Renews {@code lease} at about ttl/3 until it is released or lost. The first renewal is due
     * a third of the ttl after the acquire was sent (two thirds before the local deadline, which
     * counts from then), not after its reply came: at once if the acquire took longer.
     */
    void watch(Lease lease) {
        Entry e = new Entry(lease, true);
        schedule(e, lease.validUntilNanos() - 2 * renewInterval(lease));
    }

    /** Marks {@code lease} lost if its local deadline passes while it is still held. */
    void guardDeadline(Lease lease) {
        if (lease.hasWatchdog()) {
            return;
        }
        schedule(new Entry(lease, false), lease.validUntilNanos());
    }

    private static long renewInterval(Lease lease) {
        return Math.max(TimeUnit.MILLISECONDS.toNanos(lease.ttl().toMillis()) / 3, 1);
    }

    private void schedule(Entry e, long due) {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            e.due = due;
            queue.add(new Slot(due, sequence++, e));
            changed.signal();
        } finally {
            lock.unlock();
        }
    }

    private void loop() {
        List<Entry> batch = new ArrayList<>();
        while (true) {
            lock.lock();
            try {
                while (!closed) {
                    Slot head = queue.peek();
                    if (head == null) {
                        changed.await();
                        continue;
                    }
                    long wait = head.due - clock.nanoTime();
                    if (wait > 0) {
                        changed.awaitNanos(wait);
                        continue;
                    }
                    break;
                }
                if (closed) {
                    return;
                }
                long horizon = clock.nanoTime() + COALESCE_NANOS;
                Slot s;
                while ((s = queue.peek()) != null && s.due - horizon <= 0) {
                    queue.poll();
                    if (s.entry.due == s.due) {
                        batch.add(s.entry);
                    }
                }
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            try {
                process(batch);
            } catch (RuntimeException e) {
                log.warn("lease watchdog pass failed; retrying", e);
            }
            batch.clear();
        }
    }

    private void process(List<Entry> batch) {
        boolean sent = false;
        Batch conn = null;
        for (Entry e : batch) {
            Lease lease = e.lease;
            if (!lease.isActive()) {
                continue;
            }
            long now = clock.nanoTime();
            if (now - lease.validUntilNanos() >= 0) {
                lease.markLost(LossReason.DEADLINE_PASSED);
                continue;
            }
            if (!e.renews || e.inFlight) {
                // A manual renewal moved the deadline, or the reply is overdue: look again then.
                schedule(e, lease.validUntilNanos());
                continue;
            }
            if (conn == null) {
                conn = batches.get();
            }
            long ttl = lease.ttl().toMillis();
            e.inFlight = true;
            schedule(e, lease.validUntilNanos());
            conn.renew(lease, ttl, now).whenComplete((outcome, err) -> {
                e.inFlight = false;
                if (err != null) {
                    lease.onRenewError();
                    log.debug("renewal of '{}' failed; retrying", lease.resource(), err);
                    long retry = Math.min(TimeUnit.MILLISECONDS.toNanos(ttl) / 10, MAX_RETRY_NANOS);
                    long next = clock.nanoTime() + retry;
                    schedule(e, next - lease.validUntilNanos() < 0 ? next : lease.validUntilNanos());
                    return;
                }
                lease.onRenewReply(outcome, now, ttl);
                if (outcome == RenewOutcome.RENEWED) {
                    schedule(e, now + renewInterval(lease));
                }
            });
            sent = true;
        }
        if (sent) {
            conn.flush();
        }
    }

    /** Stops the thread; leases it watched are no longer renewed and expire by their ttl. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            queue.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        thread.interrupt();
    }
}
