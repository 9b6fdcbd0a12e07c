package io.echomq.queue;

import io.echomq.MonotonicClock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The client's own belief about one claimed job's lease, as {@link io.echomq.lock.Lease} holds
 * it for a lock; the server's fence stays the truth.
 *
 * <ol>
 *   <li>The local deadline: the claim (or the last accepted renewal) as sent, on the
 *       {@link MonotonicClock}, + lease − 1% − 2 ms ({@link #validityNanos}).</li>
 *   <li>The loss, sticky: the first reason wins, and no later answer revives it. Finding the
 *       deadline passed ({@link #checkDeadline}) is a loss like a refusal, and so is a refused
 *       extend ({@link #onExtended}).</li>
 *   <li>On loss (and on the worker's timeout, {@link #requestStop}), asks the handler to stop: the
 *       stop request a handler reads ({@link Job#stopRequested()}) and attaches to
 *       ({@link Job#stopSignal()}), completed on {@link StopSignals}' threads, never on the one
 *       that saw the stop. It interrupts the handler's thread only when one is bound, which a
 *       worker does only when built with {@link Worker.Builder#interruptHandlers(boolean)}: an
 *       interrupt closes the socket of a blocking call on a virtual thread (and of any NIO
 *       channel), which would break a connection the handler borrowed from a pool.</li>
 *   <li>Tells the reporter a worker set, once, on whichever thread saw the loss first; never for
 *       a job whose settle was accepted first.</li>
 * </ol>
 *
 * <p>Thread-safe.
 */
final class JobLease {
    private final MonotonicClock clock;
    private final Supplier<SettleOutcome> settled;   // the job's settle outcome, null while unsettled
    private final CompletableFuture<LeaseLossReason> lost = new CompletableFuture<>();
    // made on first ask (most jobs never need it), completed on StopSignals' threads; guarded by this
    private CompletableFuture<Void> stop;
    private volatile boolean stopRequested;
    // a VarHandle on a plain field, not an AtomicBoolean: one object fewer on every job claimed
    private static final VarHandle REPORTED;
    private volatile boolean reported;

    static {
        try {
            REPORTED = MethodHandles.lookup().findVarHandle(JobLease.class, "reported", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private volatile long deadlineNanos;
    private volatile Runnable reporter;
    private volatile Thread handlerThread;
    private volatile long renewAtNanos;   // the lease keeper's schedule: when it renews this lease next

    JobLease(MonotonicClock clock, Supplier<SettleOutcome> settled, long claimStartNanos, long leaseMs) {
        this.clock = clock;
        this.settled = settled;
        this.deadlineNanos = claimStartNanos + validityNanos(leaseMs);
    }

    /** Lease minus the drift allowance (1% + 2 ms), as for locks, in nanoseconds. */
    static long validityNanos(long leaseMs) {
        return (leaseMs - leaseMs / 100 - 2) * 1_000_000L;
    }

    long nowNanos() {
        return clock.nanoTime();
    }

    long deadlineNanos() {
        return deadlineNanos;
    }

    /** @return when the worker's lease keeper renews this lease next, on its clock */
    long renewAt() {
        return renewAtNanos;
    }

    /** Sets when the worker's lease keeper renews this lease next, on its clock. */
    void renewAt(long nanos) {
        renewAtNanos = nanos;
    }

    /** @return whether the loss is known, without looking at the clock */
    boolean isLost() {
        return lost.isDone();
    }

    /** @return the reason of the loss, or null */
    LeaseLossReason reason() {
        return lost.getNow(null);
    }

    CompletableFuture<LeaseLossReason> lostFuture() {
        return lost;
    }

    /**
     * @return the stop request: completed shortly after {@link #requestStop}, on {@link StopSignals}'
     *     threads; asked for after the stop, already complete
     */
    synchronized CompletableFuture<Void> stopFuture() {
        if (stop == null) {
            stop = new CompletableFuture<>();
            if (stopRequested) {
                stop.complete(null);
            }
        }
        return stop;
    }

    /** @return whether the stop was requested (a loss or the timeout), without looking at the clock */
    boolean isStopRequested() {
        return stopRequested;
    }

    /**
     * Marks the lease lost with {@link LeaseLossReason#DEADLINE_PASSED} if the job is unsettled,
     * not yet lost, and its deadline is not after {@code nowNanos}.
     *
     * @return whether the lease is lost now (for any reason)
     */
    boolean checkDeadline(long nowNanos) {
        if (!lost.isDone() && settled.get() == null && nowNanos - deadlineNanos >= 0) {
            markLost(LeaseLossReason.DEADLINE_PASSED);
        }
        return lost.isDone();
    }

    /**
     * Applies an accepted renewal sent at {@code sentAtNanos}: moves the deadline, unless the
     * lease is already lost (every reader checks the loss before the deadline, so a move that
     * races a loss revives nothing).
     *
     * @return false if the lease was already lost
     */
    boolean renewed(long sentAtNanos, long leaseMs) {
        if (lost.isDone()) {
            return false;
        }
        deadlineNanos = sentAtNanos + validityNanos(leaseMs);
        return true;
    }

    /**
     * Applies one extend answer sent at {@code sentAtNanos}: code 1 moves the deadline (see
     * {@link #renewed}), any other code marks the loss it names.
     *
     * @return whether the deadline moved
     */
    boolean onExtended(long code, long sentAtNanos, long leaseMs) {
        if (code == 1) {
            return renewed(sentAtNanos, leaseMs);
        }
        markLost(LeaseLossReason.ofCode(code));
        return false;
    }

    /** Marks the lease lost (first reason wins), asks the handler to stop, and tells the reporter once. */
    void markLost(LeaseLossReason reason) {
        if (lost.complete(reason)) {
            requestStop();
        }
        report();
    }

    /**
     * Asks the handler to stop (a loss, or the worker's timeout): sets the stop request at once,
     * completes {@link #stopFuture()}, if anyone asked for it yet, on {@link StopSignals}' threads
     * (once), and interrupts the thread bound as the job's handler, if one is bound now.
     */
    void requestStop() {
        CompletableFuture<Void> asked = null;
        if (!stopRequested) {
            synchronized (this) {
                if (!stopRequested) {
                    stopRequested = true;
                    asked = stop;
                }
            }
        }
        if (asked != null) {
            StopSignals.complete(asked);
        }
        Thread t = handlerThread;
        if (t != null) {
            synchronized (this) {
                if (handlerThread == t) {
                    t.interrupt();
                }
            }
        }
    }

    /** Sets who hears of the loss (the reporter knows which job it is for); a loss seen before this call is told now. */
    void reportTo(Runnable r) {
        reporter = r;
        report();
    }

    /**
     * Binds (or, with null, unbinds) the thread a stop request interrupts. A worker binds its
     * handler's thread only when it was built to interrupt handlers; unbound, a stop is the
     * cooperative request alone.
     */
    void bindHandlerThread(Thread t) {
        synchronized (this) {
            handlerThread = t;
        }
    }

    private void report() {
        Runnable r = reporter;
        if (r == null || !lost.isDone()) {
            return;
        }
        SettleOutcome s = settled.get();
        if (s != null && s.accepted()) {
            return;   // its lease ended with an accepted settle; a later mark only stops the handler
        }
        if (REPORTED.compareAndSet(this, false, true)) {
            r.run();
        }
    }
}
