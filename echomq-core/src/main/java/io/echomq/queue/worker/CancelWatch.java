package io.echomq.queue;

import io.echomq.internal.ChannelSignals;
import io.echomq.internal.RedisEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * How a worker hears that one of its running jobs was cancelled, wherever the cancel was made.
 *
 * <ol>
 *   <li>Subscribes to the cancel channel ({@code emq:{q}:cancel}) of every queue the worker
 *       claims from, those a sharded queue adds later included ({@link #cover}).</li>
 *   <li>On any message of a queue's channel, asks the {@link LeaseKeeper} to renew that queue's
 *       held jobs at once ({@link LeaseKeeper#renewNow}). The message's text is not trusted: the
 *       extend script's fenced answer, {@code -6} for the cancelled attempt only, marks the job
 *       lost with {@link LeaseLossReason#CANCELLED}, which asks its handler to stop. So a message
 *       aimed at an older attempt cannot stop a newer one.</li>
 * </ol>
 *
 * <p>A missed message costs nothing but time: the next scheduled renewal (a third of the lease)
 * gets the same answer.
 */
final class CancelWatch {
    private final String name;
    private final Logger log;
    private final ChannelSignals signals;
    private final Supplier<List<Partition>> queues;
    private final LeaseKeeper leases;
    private final List<ChannelSignals.Waiter> waiters = new ArrayList<>();
    private volatile boolean closed;

    /**
     * @param log     the worker's logger
     * @param signals the client's cancel channels
     */
    CancelWatch(String name, Logger log, ChannelSignals signals, Supplier<List<Partition>> queues, LeaseKeeper leases) {
        this.name = name;
        this.log = log;
        this.signals = signals;
        this.queues = queues;
        this.leases = leases;
    }

    /**
     * Subscribes to the cancel channels of the queues not covered yet, waiting for each
     * subscription when {@code await} is set.
     *
     * @throws io.echomq.RedisCommandException if a subscription awaited fails
     */
    synchronized void cover(boolean await) {
        List<Partition> all = queues.get();
        for (int i = waiters.size(); i < all.size() && !closed; i++) {
            Partition q = all.get(i);
            ChannelSignals.Waiter w = signals.join(q.keys().cancel());
            waiters.add(w);
            if (await) {
                RedisEngine.await(w.subscribed(), "SUBSCRIBE " + q.keys().cancel(), q.name());
            }
            arm(w, q);
        }
    }

    /** Covers queues added since the last call; a failure is logged (their jobs learn at the next renewal). */
    void refresh() {
        try {
            if (queues.get().size() > waiters.size()) {
                cover(false);
            }
        } catch (RuntimeException e) {
            log.warn("{}: could not subscribe to a cancel channel; cancels are seen at the next renewal: {}", name,
                    e.toString());
        }
    }

    private void arm(ChannelSignals.Waiter w, Partition q) {
        w.signal().whenComplete((v, failure) -> {
            if (closed) {
                return;
            }
            leases.renewNow(q);
            arm(w, q);
        });
    }

    synchronized void close() {
        closed = true;
        for (ChannelSignals.Waiter w : waiters) {
            w.close();
        }
    }
}
