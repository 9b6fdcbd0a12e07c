package io.echomq.queue;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The watch over a worker's {@link Runs}: while armed, calls its check once a slice, on a daemon
 * thread of its own, started at the first {@link #arm()}.
 *
 * <ol>
 *   <li>{@link #arm()} is cheap when armed already; otherwise it wakes the thread.</li>
 *   <li>The check answers whether to keep looking; when it says no, the watch disarms and parks
 *       until the next {@link #arm()}. It asks once more after disarming, so an arm that raced
 *       the first answer is not lost.</li>
 * </ol>
 *
 * <p>So an idle worker's watch costs nothing, and a busy one's one wake-up a slice. Thread-safe.
 */
final class RunWatch {
    private final String name;
    private final long sliceNanos;
    private final BooleanSupplier check;
    private final AtomicBoolean armed = new AtomicBoolean();
    private volatile Thread thread;
    private volatile boolean closed;

    /** @param check called once a slice while armed; answers whether to keep looking */
    RunWatch(String name, long sliceNanos, BooleanSupplier check) {
        this.name = name;
        this.sliceNanos = sliceNanos;
        this.check = check;
    }

    /** Makes the watch look within a slice, and each slice after while its check asks. */
    void arm() {
        if (armed.get() || !armed.compareAndSet(false, true)) {
            return;
        }
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
            return;
        }
        synchronized (this) {
            if (thread == null && !closed) {
                t = new Thread(this::loop, name + "-run-watch");
                t.setDaemon(true);
                thread = t;
                t.start();
            }
        }
    }

    /** Ends the watch's thread, if any. */
    void close() {
        closed = true;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void loop() {
        while (!closed) {
            if (!armed.get()) {
                LockSupport.park(this);
                continue;
            }
            LockSupport.parkNanos(this, sliceNanos);
            if (closed) {
                return;
            }
            if (!check.getAsBoolean()) {
                armed.set(false);
                if (check.getAsBoolean()) {
                    armed.set(true);
                }
            }
        }
    }
}
