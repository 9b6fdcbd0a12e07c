package io.echomq.micrometer;

import io.echomq.observe.Instrumentation;
import io.echomq.lock.Lease;
import io.echomq.lock.LossReason;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.QueueStats;
import io.echomq.queue.SettleOutcome;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters for EchoMQ: the {@link Instrumentation} to give to the lock and queue clients'
 * builders, and the per-queue state gauges.
 *
 * <pre>{@code
 * EchoMQMetrics metrics = EchoMQMetrics.bind(registry);
 * LockClient locks = LockClient.builder().redisUrl(url).instrumentation(metrics).build();
 * QueueClient queues = QueueClient.builder().redisUrl(url).instrumentation(metrics).build();
 * metrics.registerQueue("emails");            // its event meters now, at 0, not at its first event
 * metrics.monitor(queues.queue("emails"));   // echomq.queue.jobs{queue=emails,state=...}
 * }</pre>
 *
 * <p>The meters (names and tags as Micrometer's conventions ask: dot-separated, lower case, base
 * units; a registry renames them, for example {@code echomq_lock_acquire_seconds} in Prometheus):
 * <ul>
 *   <li>{@code echomq.lock.acquire} timer, tags {@code mode} (plain, fenced, redlock) and
 *       {@code outcome} (acquired, busy, timed_out, error);</li>
 *   <li>{@code echomq.lock.held} long task timer, tag {@code mode};</li>
 *   <li>{@code echomq.lock.lost} counter, tags {@code mode}, {@code reason} (not_owner, expired,
 *       deadline_passed);</li>
 *   <li>{@code echomq.lock.renewals} counter, tags {@code mode}, {@code result} (renewed, refused, error);</li>
 *   <li>{@code echomq.queue.enqueued} counter, tag {@code queue};</li>
 *   <li>{@code echomq.queue.processed} timer, tags {@code queue}, {@code outcome} (completed,
 *       retrying, dead, returned, lease_lost, cancelled);</li>
 *   <li>{@code echomq.queue.timeouts} counter, tags {@code queue}, {@code outcome} (retrying,
 *       dead): the attempts a timeout ended, which {@code processed} counts under that outcome;</li>
 *   <li>{@code echomq.queue.wait} timer, tag {@code queue}: enqueue to first claim;</li>
 *   <li>{@code echomq.queue.reaped} counter, tags {@code queue}, {@code to} (pending, dead);</li>
 *   <li>{@code echomq.queue.jobs} gauge, tags {@code queue}, {@code state} (pending, active,
 *       delayed, dead, overdue), for the queues given to {@link #monitor}.</li>
 * </ul>
 * No tag names a lock's resource, a token or a job id, so the number of series stays bounded by
 * the modes, outcomes and queue names.
 *
 * <p>Thread-safe. It runs one daemon thread, which every second stops the held-time samples of
 * leases that ran out without being released (see {@link HeldLeases}); {@link #close()} stops it.
 * Like any {@link Instrumentation}, whatever it throws is caught by the clients.
 */
public final class EchoMQMetrics implements Instrumentation, AutoCloseable {
    /** How often a monitored queue's stats are read at most, by default. */
    public static final Duration DEFAULT_STATS_INTERVAL = Duration.ofSeconds(10);

    private final MeterRegistry registry;
    private final LockMeters locks;
    private final HeldLeases held;
    private final QueueMeters queues;
    private final long statsIntervalNanos;
    private final Map<String, StatsSnapshot> monitored = new ConcurrentHashMap<>();
    private final ScheduledExecutorService sweeper;

    private EchoMQMetrics(MeterRegistry registry, Duration statsInterval) {
        this.registry = registry;
        this.locks = new LockMeters(registry);
        this.held = new HeldLeases(registry);
        this.queues = new QueueMeters(registry);
        this.statsIntervalNanos = statsInterval.toNanos();
        this.sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "emq-metrics-held-sweep");
            t.setDaemon(true);
            return t;
        });
        sweeper.scheduleWithFixedDelay(held::sweep, 1, 1, TimeUnit.SECONDS);
    }

    /**
     * Registers the lock meters in {@code registry} (the queue meters follow each queue's first
     * event, or {@link #registerQueue}), reading monitored queues' stats at most every {@link #DEFAULT_STATS_INTERVAL}.
     *
     * @throws NullPointerException if the registry is null
     */
    public static EchoMQMetrics bind(MeterRegistry registry) {
        return bind(registry, DEFAULT_STATS_INTERVAL);
    }

    /**
     * As {@link #bind(MeterRegistry)}, reading a monitored queue's stats at most once per
     * {@code statsInterval}.
     *
     * @throws NullPointerException if either is null
     * @throws IllegalArgumentException if the interval is not positive
     */
    public static EchoMQMetrics bind(MeterRegistry registry, Duration statsInterval) {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(statsInterval, "statsInterval");
        if (statsInterval.isNegative() || statsInterval.isZero()) {
            throw new IllegalArgumentException("statsInterval must be positive, was " + statsInterval);
        }
        return new EchoMQMetrics(registry, statsInterval);
    }

    /**
     * Registers the gauges {@code echomq.queue.jobs} of {@code queue}, one per state, all fed by
     * one {@link QueueOperations#stats()} call at most per stats interval, made on the thread
     * that reads a gauge (a scrape) when the last read is older than that. Calling it again for
     * the same name changes nothing.
     *
     * @throws NullPointerException if the queue is null
     */
    public void monitor(QueueOperations queue) {
        Objects.requireNonNull(queue, "queue");
        monitor(queue.name(), queue::stats);
    }

    /**
     * Registers the event meters of the queue named {@code queue} now, at zero:
     * {@code echomq.queue.enqueued}, {@code echomq.queue.processed} (one per outcome),
     * {@code echomq.queue.wait}, {@code echomq.queue.reaped} and {@code echomq.queue.timeouts}.
     * Without it they appear at the queue's first event in this process, so a process that has not
     * enqueued or handled a job yet exports none of them and a {@code rate()} over them has no
     * data. The meters are the ones the events then feed; calling it again, or after an event,
     * changes nothing. It reads nothing from Redis; {@link #monitor} adds the state gauges.
     *
     * @param queue the queue's name (a sharded queue's name, not a partition's)
     * @throws NullPointerException if the name is null
     */
    public void registerQueue(String queue) {
        Objects.requireNonNull(queue, "queue");
        queues.register(queue);
    }

    /** As {@link #monitor(QueueOperations)}, for a stats source of that name (tests count its calls). */
    void monitor(String name, Supplier<QueueStats> stats) {
        if (monitored.containsKey(name)) {
            return;
        }
        StatsSnapshot snapshot = new StatsSnapshot(name, stats, registry.config().clock(), statsIntervalNanos);
        if (monitored.putIfAbsent(name, snapshot) != null) {
            return;
        }
        gauge(name, "pending", snapshot, QueueStats::pending);
        gauge(name, "active", snapshot, QueueStats::active);
        gauge(name, "delayed", snapshot, QueueStats::delayed);
        gauge(name, "dead", snapshot, QueueStats::dead);
        gauge(name, "overdue", snapshot, QueueStats::overdue);
    }

    private void gauge(String queue, String state, StatsSnapshot snapshot, ToDoubleFunction<QueueStats> count) {
        Gauge.builder("echomq.queue.jobs", snapshot, s -> {
            QueueStats st = s.get();
            return st == null ? Double.NaN : count.applyAsDouble(st);
        }).description("Jobs in each state, read by one throttled stats call per queue")
                .tags("queue", queue, "state", state).register(registry);
    }

    /** Stops the held-time sweep; the meters stay registered. */
    @Override
    public void close() {
        sweeper.shutdownNow();
    }

    // ------------------------------------------------------------------ Instrumentation

    @Override
    public void lockAcquire(LockMode mode, AcquireOutcome outcome, long nanos) {
        locks.acquire(mode, outcome, nanos);
    }

    @Override
    public Object leaseHeld(LockMode mode, Lease lease) {
        return held.start(mode, lease);
    }

    @Override
    public void leaseEnded(Object handle) {
        held.end(handle);
    }

    @Override
    public void leaseLost(LockMode mode, LossReason reason) {
        locks.lost(mode, reason);
    }

    @Override
    public void leaseRenewal(LockMode mode, RenewalResult result) {
        locks.renewal(mode, result);
    }

    @Override
    public void jobsEnqueued(String queue, int count) {
        queues.enqueued(queue, count);
    }

    @Override
    public void jobWaited(String queue, long millis) {
        queues.waited(queue, millis);
    }

    @Override
    public void jobSettled(String queue, SettleOutcome outcome, long nanos) {
        queues.settled(queue, outcome, nanos);
    }

    @Override
    public void jobTimedOut(String queue, SettleOutcome outcome) {
        queues.timedOut(queue, outcome);
    }

    @Override
    public void leasesReaped(String queue, long returned, long dead) {
        queues.reaped(queue, returned, dead);
    }

    /** Stops the samples of leases that ran out unreleased now, instead of at the next second; for tests. */
    int sweepHeld() {
        return held.sweep();
    }
}
