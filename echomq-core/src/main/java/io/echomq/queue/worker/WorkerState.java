package io.echomq.queue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The little state a worker's parts share, so that none of them has to hold another.
 *
 * <ol>
 *   <li>Running, stopping and abandoned: the facade sets them, every part reads them.</li>
 *   <li>The free handler slots: the dispatcher takes them to claim, a run gives back those it no
 *       longer uses.</li>
 *   <li>Whether the last claim found the queue dry: the dispatcher and the runs' chained claims write it,
 *       {@link Worker#isIdle()} and maintenance read it.</li>
 *   <li>The retry signal: completed when a handler sends a job to a retry backoff. Enqueue's wake
 *       channel is not told of retries, so an idle dispatcher must look again to learn the retry's
 *       due time.</li>
 * </ol>
 *
 * <p>Thread-safe.
 */
final class WorkerState {
    private final int concurrency;
    private final Semaphore slots;
    private final CompletableFuture<Void> stopping = new CompletableFuture<>();
    private final AtomicReference<CompletableFuture<Void>> retryScheduled =
            new AtomicReference<>(new CompletableFuture<>());
    private volatile boolean running = true;
    private volatile boolean abandoned;
    private volatile boolean queueDry;
    private volatile boolean capped;
    private volatile boolean paused;

    WorkerState(int concurrency) {
        this.concurrency = concurrency;
        this.slots = new Semaphore(concurrency);
    }

    boolean running() {
        return running;
    }

    /** Stops claiming: wakes a dispatcher that waits for a slot or for work. */
    void stop() {
        running = false;
        stopping.complete(null);
        slots.release(concurrency + 1);
    }

    /** Marks the worker abandoned (as by {@code kill -9}): handlers that return settle nothing. */
    void abandon() {
        abandoned = true;
    }

    boolean abandoned() {
        return abandoned;
    }

    /** @return completes when the worker begins to stop */
    CompletableFuture<Void> stopping() {
        return stopping;
    }

    Semaphore slots() {
        return slots;
    }

    /** @return whether the last claim found the queue paused */
    boolean paused() {
        return paused;
    }

    /**
     * Records what the last claim found.
     *
     * @return whether that differs from what the claim before it found (false at a first claim on a running queue)
     */
    boolean paused(boolean now) {
        if (paused == now) {
            return false;
        }
        paused = now;
        return true;
    }

    boolean queueDry() {
        return queueDry;
    }

    void queueDry(boolean dry) {
        queueDry = dry;
    }

    /** @return completes at the next retry a handler schedules */
    CompletableFuture<Void> retrySignal() {
        return retryScheduled.get();
    }

    /** Records whether the last claim found the queue's concurrency cap reached (next_due_ms -3). */
    void capped(boolean reached) {
        capped = reached;
    }

    /**
     * Tells a dispatcher that waits on a reached cap that one of this worker's jobs settled: its
     * place in the cap is free, so a claim may succeed at once, rather than at the idle poll.
     */
    void placeFreed() {
        if (capped) {
            retryScheduled();
        }
    }

    /** Tells a waiting dispatcher that a job went to a retry backoff. */
    void retryScheduled() {
        retryScheduled.getAndSet(new CompletableFuture<>()).complete(null);
    }
}
