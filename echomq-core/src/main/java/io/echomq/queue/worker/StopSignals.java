package io.echomq.queue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where a job's stop request ({@link Job#stopSignal()}) is completed, so that the actions a handler
 * attached to it (a {@code Statement.cancel()}, say) never run on the thread that saw the stop:
 * that may be a Redis connection's event loop, the lease keeper's tick or the timeout's thread,
 * and an action blocking there would delay every other job's renewals and replies.
 *
 * <p>One pool for the JVM, of daemon threads that end after a minute idle: stops are rare (a
 * loss, a timeout, a cancel, a shutdown past its grace), so it holds no thread most of the time.
 * Its threads grow with the actions that block at once, up to {@link #MAX_THREADS}; past that,
 * stops wait their turn in order.
 */
final class StopSignals {
    /** Most threads running stop actions at once. */
    static final int MAX_THREADS = 64;

    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final ExecutorService POOL = pool();

    private StopSignals() {
    }

    /** Completes {@code stop} on the pool; a second call for the same future does nothing more. */
    static void complete(CompletableFuture<Void> stop) {
        POOL.execute(() -> stop.complete(null));
    }

    private static ExecutorService pool() {
        ThreadPoolExecutor p = new ThreadPoolExecutor(MAX_THREADS, MAX_THREADS, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "emq-job-stop-" + SEQUENCE.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        p.allowCoreThreadTimeOut(true);
        return p;
    }
}
