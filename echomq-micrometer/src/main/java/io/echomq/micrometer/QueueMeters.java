package io.echomq.micrometer;

import io.echomq.queue.SettleOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The queue meters fed by the client's events, one set per queue name, made on the queue's first
 * event (or earlier, by {@link #register}) and then found in a map: {@code echomq.queue.enqueued} (counter), {@code
 * echomq.queue.processed} (timer, tag {@code outcome}), {@code echomq.queue.wait} (timer) and
 * {@code echomq.queue.reaped} (counter, tag {@code to}: {@code pending} or {@code dead}),
 * {@code echomq.queue.timeouts} (counter, tag {@code outcome}: {@code retrying} or {@code dead}), each
 * tagged {@code queue}. A sharded queue is one name, never one per partition; no tag names a job.
 */
final class QueueMeters {
    /** The meters of one queue. */
    private static final class PerQueue {
        final Counter enqueued;
        final Timer[] processed = new Timer[SettleOutcome.values().length];
        final Timer wait;
        final Counter reapedToPending;
        final Counter reapedToDead;
        final Counter timedOutRetrying;
        final Counter timedOutDead;

        PerQueue(MeterRegistry registry, String queue) {
            enqueued = Counter.builder("echomq.queue.enqueued").description("Jobs created by enqueue calls")
                    .tag("queue", queue).register(registry);
            for (SettleOutcome o : SettleOutcome.values()) {
                processed[o.ordinal()] = Timer.builder("echomq.queue.processed")
                        .description("Attempts a worker settled: from the handler's start to the server's answer")
                        .tags("queue", queue, "outcome", LockMeters.tag(o)).register(registry);
            }
            wait = Timer.builder("echomq.queue.wait")
                    .description("From enqueue to first claim, on the server's clock (jobs enqueued without a delay)")
                    .tag("queue", queue).register(registry);
            reapedToPending = Counter.builder("echomq.queue.reaped")
                    .description("Expired leases reaped").tags("queue", queue, "to", "pending").register(registry);
            reapedToDead = Counter.builder("echomq.queue.reaped")
                    .description("Expired leases reaped").tags("queue", queue, "to", "dead").register(registry);
            timedOutRetrying = timeouts(registry, queue, "retrying");
            timedOutDead = timeouts(registry, queue, "dead");
        }

        private static Counter timeouts(MeterRegistry registry, String queue, String outcome) {
            return Counter.builder("echomq.queue.timeouts")
                    .description("Attempts a timeout ended (also counted in echomq.queue.processed, as retrying or dead)")
                    .tags("queue", queue, "outcome", outcome).register(registry);
        }
    }

    private final MeterRegistry registry;
    private final Map<String, PerQueue> queues = new ConcurrentHashMap<>();

    QueueMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    private PerQueue of(String queue) {
        PerQueue q = queues.get(queue);
        return q != null ? q : queues.computeIfAbsent(queue, n -> new PerQueue(registry, n));
    }

    /** Makes the meters of {@code queue} now, at zero, if they are not made yet. */
    void register(String queue) {
        of(queue);
    }

    void enqueued(String queue, int count) {
        of(queue).enqueued.increment(count);
    }

    void waited(String queue, long millis) {
        of(queue).wait.record(millis, TimeUnit.MILLISECONDS);
    }

    void settled(String queue, SettleOutcome outcome, long nanos) {
        of(queue).processed[outcome.ordinal()].record(nanos, TimeUnit.NANOSECONDS);
    }

    void timedOut(String queue, SettleOutcome outcome) {
        PerQueue q = of(queue);
        (outcome == SettleOutcome.DEAD ? q.timedOutDead : q.timedOutRetrying).increment();
    }

    void reaped(String queue, long returned, long dead) {
        PerQueue q = of(queue);
        if (returned > 0) {
            q.reapedToPending.increment(returned);
        }
        if (dead > 0) {
            q.reapedToDead.increment(dead);
        }
    }
}
