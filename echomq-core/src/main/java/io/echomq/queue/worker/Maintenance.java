package io.echomq.queue;

import io.echomq.internal.RedisEngine;
import io.lettuce.core.SetArgs;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * A worker's maintenance: it only schedules, as an Oban plugin does. The scripts change the data,
 * a bounded batch at a time.
 *
 * <ol>
 *   <li>At each {@link #tick()} (once per maintenance interval), for each queue the worker spans,
 *       tries to take that queue's maintenance lock ({@code SET NX PX <interval>}, our lock's
 *       plain acquire, never released, so it runs out after one interval). So across every
 *       process, maintenance of one queue runs at most once per interval, and keeps running as
 *       long as one worker is alive.</li>
 *   <li>The holder reaps expired leases ({@link #BATCH} at most per run) and then promotes due
 *       delayed jobs, unless the worker is idle: an idle dispatcher's own claim promotes, at the
 *       earliest due time it knows of, so a promotion would only repeat it.</li>
 *   <li>The holder of the first queue's lock (the queue itself, or partition 0 of a sharded queue,
 *       where a sharded queue's schedules live) also fires the due recurring schedules
 *       ({@link ScheduleFirer#tick()}: only when the earliest fire time it knows of has come, or
 *       its poll has passed).</li>
 *   <li>The holder of each lock also samples that queue's counters into its throughput history
 *       ({@link ThroughputRecorder}: one call per minute, not per run).</li>
 *   <li>Asks the claim source to learn of partitions other clients added, so that the next claim
 *       round spans them.</li>
 *   <li>Sends the worker's {@link Heartbeat} at each tick, on the span's first queue, and removes it
 *       at {@link #close()}.</li>
 * </ol>
 *
 * <p>Every call is asynchronous; a failure is logged (once, until a run succeeds again) and the
 * next tick tries again.
 */
final class Maintenance {
    /** Expired leases reaped, and due jobs promoted, per queue and run. */
    static final int BATCH = 1000;

    private static final SecureRandom RANDOM = new SecureRandom();

    private final String name;
    private final Logger log;
    private final RedisEngine engine;
    private final ClaimSource source;
    private final Supplier<WorkSpan> span;
    private final BooleanSupplier idle;
    private final BooleanSupplier running;
    private final long intervalMs;
    private final String token;
    private final AtomicBoolean failing = new AtomicBoolean();   // a run failed, and none has succeeded since
    private volatile ScheduleFirer schedules;   // of the span's first queue, made at the first tick
    private final Heartbeat heartbeat;
    private final ThroughputRecorder throughput;

    /**
     * @param log     the worker's logger, which every line of maintenance goes to
     * @param context the client's engine and clock
     * @param span    the queues the worker spans now, with their maintenance lock keys
     * @param idle    whether the worker is idle (no handler running, the queue found dry)
     * @param running whether the worker still runs
     * @param heartbeat the worker's heartbeat, sent at each tick
     */
    Maintenance(String name, Logger log, QueueContext context, ClaimSource source, Supplier<WorkSpan> span, BooleanSupplier idle,
                BooleanSupplier running, long intervalMs, Heartbeat heartbeat) {
        this.name = name;
        this.log = log;
        this.engine = context.engine();
        this.source = source;
        this.span = span;
        this.idle = idle;
        this.running = running;
        this.intervalMs = intervalMs;
        this.heartbeat = heartbeat;
        this.throughput = new ThroughputRecorder(name, context);
        byte[] t = new byte[16];
        RANDOM.nextBytes(t);
        this.token = HexFormat.of().formatHex(t);
    }

    /** One run: refresh the span, then reap and promote every queue whose lock this worker takes. */
    void tick() {
        if (!running.getAsBoolean()) {
            return;
        }
        source.refreshAsync().whenComplete((n, failure) -> {
            if (failure != null) {
                failed("could not read the partition mark: " + RedisEngine.unwrap(failure));
            }
        });
        WorkSpan s = span.get();
        if (schedules == null && !s.queues().isEmpty()) {
            schedules = new ScheduleFirer(s.queues().get(0));
        }
        for (int i = 0; i < s.queues().size(); i++) {
            maintain(s.queues().get(i), s.maintenanceKeys().get(i), i == 0 ? schedules : null);
        }
        if (!s.queues().isEmpty()) {
            heartbeat.beat(s.queues().get(0).keys());
        }
    }

    /** Removes the worker's heartbeat record, waiting at most the command timeout; no beat follows. */
    void close() {
        heartbeat.remove();
    }

    /**
     * Reaps and promotes one queue (or partition) if this worker takes its maintenance lock, and
     * fires due schedules when {@code firer} is given.
     */
    private void maintain(Partition queue, String lockKey, ScheduleFirer firer) {
        try {
            engine.commands()
                    .set(lockKey, token, SetArgs.Builder.nx().px(intervalMs))
                    .toCompletableFuture()
                    .thenCompose(ok -> {
                        // a worker stopped (or abandoned) meanwhile sends nothing more
                        if (!"OK".equals(ok) || !running.getAsBoolean()) {
                            return CompletableFuture.<List<Object>>completedFuture(null);
                        }
                        if (firer != null) {
                            firer.tick();   // asynchronous; logs its own failures
                        }
                        throughput.record(queue.keys());   // asynchronous; once per minute
                        return queue.sweeps().reapAsync(BATCH).thenCompose(reaped -> {
                            long back = (Long) reaped.get(0);
                            long died = (Long) reaped.get(1);
                            if (back + died > 0) {
                                log.info("{}: reaped {} expired lease(s): {} back to pending, {} to dead", name,
                                        back + died, back, died);
                            }
                            if (idle.getAsBoolean() || !running.getAsBoolean()) {
                                // the idle dispatcher's own claim promotes: it wakes at the earliest
                                // due time it knows of (enqueue tells it of new ones)
                                return CompletableFuture.<List<Object>>completedFuture(null);
                            }
                            return queue.sweeps().promoteAsync(BATCH);
                        });
                    })
                    .whenComplete((ignored, failure) -> {
                        if (failure != null) {
                            failed(RedisEngine.unwrap(failure).toString());
                        } else if (failing.getAndSet(false)) {
                            log.info("{}: maintenance runs again", name);
                        }
                    });
        } catch (RuntimeException e) {
            failed(e.toString());
        }
    }

    /**
     * Logs a failed run at WARN once, then at DEBUG until a run succeeds: during an outage every
     * tick fails the same way, and a line every interval would drown the one line that says the
     * connection is gone.
     */
    private void failed(String why) {
        if (failing.compareAndSet(false, true)) {
            log.warn("{}: maintenance failed: {} (logged once until it runs again)", name, why);
        } else {
            log.debug("{}: maintenance failed again: {}", name, why);
        }
    }
}
