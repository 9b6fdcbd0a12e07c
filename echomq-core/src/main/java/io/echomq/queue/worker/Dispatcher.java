package io.echomq.queue;

import io.echomq.internal.ChannelSignals;
import io.echomq.internal.RedisEngine;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * A worker's claim loop, on its own thread.
 *
 * <ol>
 *   <li>Waits for a free handler slot, then claims as many jobs as there are free slots (at most
 *       {@link Queue#MAX_CLAIM}) in one round of the {@link ClaimSource}, and hands them to
 *       the runs. Slots the round could not fill are given back.</li>
 *   <li>When the round found the queue dry, waits for a wake message on any spanned queue, a
 *       retry scheduled by a handler, or the stop, at most the idle poll or until the earliest
 *       delayed job is due, whichever is first; then claims again. A round that found the queue
 *       paused waits the same way, with no due time: a resume publishes on the wake channel. A
 *       round held by the queue's flow control waits until the due time the claim answered (the
 *       hold's end, or when the rate window lets a job in); one that found the concurrency cap
 *       reached waits for a wake message, one of this worker's own jobs settling
 *       ({@link WorkerState#placeFreed}), or the idle poll. So a limited worker never spins: it
 *       claims at most once per due time, wake message, own settle or idle poll.</li>
 *   <li>Subscribes to the wake channel of every queue the source spans, those it learns of later
 *       included ({@link #span()}).</li>
 *   <li>A failed claim is logged and tried again a second later; the loop never dies of it.</li>
 * </ol>
 *
 * <p>The thread is not a daemon: a started worker keeps the JVM alive until it is stopped.
 */
final class Dispatcher {
    private final String name;
    private final Logger log;
    private final ChannelSignals signals;
    private final ClaimSource source;
    private final WorkerState state;
    private final long leaseMs;
    private final long idlePollMs;
    private final Consumer<List<Job>> run;
    private final Thread thread;
    private volatile WorkSpan span;

    /**
     * @param log     the worker's logger, which every line of the claim loop goes to
     * @param signals the client's wake channels, subscribed for each spanned queue
     * @param run runs the claimed jobs; each job's slot is taken already */
    Dispatcher(String name, Logger log, ChannelSignals signals, ClaimSource source, WorkerState state, long leaseMs, long idlePollMs,
               Consumer<List<Job>> run) {
        this.name = name;
        this.log = log;
        this.signals = signals;
        this.source = source;
        this.state = state;
        this.leaseMs = leaseMs;
        this.idlePollMs = idlePollMs;
        this.run = run;
        this.span = new WorkSpan(List.of(), List.of(), List.of()).with(signals, source.queues());
        this.thread = new Thread(this::loop, name + "-dispatch");
    }

    /** @return the queues claimed from, with their wake subscriptions and maintenance lock keys */
    WorkSpan span() {
        return span;
    }

    /**
     * Waits for the wake subscriptions of the queues spanned at construction.
     *
     * @throws io.echomq.RedisCommandException if a subscription fails
     */
    void subscribe() {
        span.awaitSubscribed(0, source.name());
    }

    /** Starts claiming, on the dispatcher thread. */
    void start() {
        thread.start();
    }

    /** Waits up to {@code millis} for the loop to end, once the state says stop. */
    void join(long millis) {
        try {
            thread.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void loop() {
        Semaphore slots = state.slots();
        while (state.running()) {
            try {
                slots.acquire();
            } catch (InterruptedException e) {
                return;
            }
            int n = 1 + slots.drainPermits();
            if (!state.running()) {
                return;
            }
            if (n > QueueLimits.MAX_CLAIM) {
                slots.release(n - QueueLimits.MAX_CLAIM);
                n = QueueLimits.MAX_CLAIM;
            }
            if (source.queues().size() > span.queues().size()) {
                spanNewQueues();
            }
            CompletableFuture<?> signal = span.signal();
            CompletableFuture<Void> retry = state.retrySignal();
            Claimed<Job> claimed;
            try {
                claimed = source.claimAsync(n, leaseMs).get();
            } catch (InterruptedException e) {
                slots.release(n);
                return;
            } catch (ExecutionException e) {
                slots.release(n);
                log.warn("{}: claim failed, retrying in 1 s: {}", name, RedisEngine.unwrap(e).toString());
                await(CompletableFuture.anyOf(state.stopping()), 1000);
                continue;
            }
            int got = claimed.jobs().size();
            slots.release(n - got);
            boolean dry = got < n;
            state.queueDry(dry);
            state.capped(claimed.capped());
            if (state.paused(claimed.paused())) {
                if (claimed.paused()) {
                    log.info("{}: queue {} is paused: claiming nothing until it is resumed", name, source.name());
                } else {
                    log.info("{}: queue {} is resumed: claiming again", name, source.name());
                }
            }
            if (got > 0) {
                run.accept(claimed.jobs());
            }
            if (claimed.deadCount() > 0) {
                log.warn("{}: {} malformed job(s) moved to dead", name, claimed.deadCount());
            }
            if (dry) {
                long wait = idlePollMs;
                if (!claimed.paused() && claimed.nextDueMs() >= 0) {
                    wait = Math.max(1, Math.min(wait, claimed.nextDueMs()));
                }
                await(CompletableFuture.anyOf(signal, retry, state.stopping()), wait);
            }
        }
    }

    /** Subscribes to the wake channels of queues the source learned of since the last round. */
    private void spanNewQueues() {
        WorkSpan before = span;
        WorkSpan after = before.with(signals, source.queues());
        span = after;
        try {
            after.awaitSubscribed(before.queues().size(), source.name());
            log.info("{}: now works {} partitions", name, after.queues().size());
        } catch (RuntimeException e) {
            log.warn("{}: could not subscribe to new partitions' wake channels; they are polled: {}", name,
                    e.toString());
        }
    }

    private static void await(CompletableFuture<?> f, long ms) {
        try {
            f.get(ms, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // a timeout is the idle poll; a failed signal only means "look again"
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
