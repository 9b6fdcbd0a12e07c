package io.echomq.spring.lock;

import io.echomq.lock.LossReason;

/**
 * Tells one running {@link Locked} method that its lease was lost, by interrupting its thread when
 * the method asked for it ({@link Locked#interruptOnLoss()}), and only while the method runs: the
 * loss is marked on another thread (the watchdog's, or the deadline timer's) and may come after the
 * method has returned, when the thread is doing something else. The interrupt it caused is
 * cleared when the method ends, so it never leaks into the caller's later work. Without the
 * interrupt, the method learns of the loss from its lease ({@code Lease#lost()},
 * {@link LockedContext#checkHeld()}) and the caller from the {@link LockLostException}.
 */
final class LossSignal {
    private final Thread thread;
    private final boolean interrupt;
    private boolean running = true;        // guarded by this
    private boolean interrupted;           // guarded by this
    private volatile LossReason reason;

    /**
     * @param thread the method's thread
     * @param interrupt whether a loss interrupts it
     */
    LossSignal(Thread thread, boolean interrupt) {
        this.thread = thread;
        this.interrupt = interrupt;
    }

    /** Called on the thread that marks the lease lost; quick, never blocks on the method. */
    synchronized void lost(LossReason why) {
        reason = why;
        if (running && interrupt) {
            interrupted = true;
            thread.interrupt();
        }
    }

    /** Called on the method's thread when the method has returned or thrown. */
    synchronized void finish() {
        running = false;
        if (interrupted) {
            Thread.interrupted();
        }
    }

    /** @return the reason if the lease was lost while the method ran, else null */
    LossReason reason() {
        return reason;
    }
}
