package io.echomq.queue;

import io.echomq.MonotonicClock;
import io.echomq.RedisCommandException;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScriptOutputType;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's heartbeat: the record that says which process works a queue, so that tools (the
 * dashboard's workers page, {@code emq queue workers}) can show the live workers. Its duties:
 *
 * <ol>
 *   <li>{@link #beat(QueueKeys)}, called at every maintenance tick, sends one {@code heartbeat-2.lua}
 *       call on the worker's first queue (a plain queue, or partition 0 of a sharded queue, where
 *       its schedules live too) when the jobs in hand, the ids of the jobs it holds or its paused
 *       state changed since the last beat, or the last beat is {@link #periodMillis(long) a period}
 *       old: five maintenance intervals, at most 10 s. The call writes the worker's facts (host,
 *       pid, name, concurrency, jobs in hand, up to {@link #MAX_JOB_IDS} of their ids, paused)
 *       into an expiring HASH and its id into the queue's ZSET of live workers. So an idle worker
 *       costs the server one short script per period, and a busy one at most one per interval;
 *       the claim itself writes nothing about its worker: a reader joins a job to its worker
 *       through these records. A job claimed since the last tick is listed at the next one.
 *       Asynchronous; a failure is logged at DEBUG, since the maintenance itself reports an
 *       outage.</li>
 *   <li>The record lives three periods ({@link #ttlMillis(long)}, at least a second), so a missed
 *       beat does not hide a live worker, and a worker that dies (or is abandoned) drops out of
 *       the set by itself soon after.</li>
 *   <li>{@link #remove()}, at a clean close: removes the record at once, waiting at most the
 *       command timeout; no beat is sent after it.</li>
 * </ol>
 *
 * <p>The keys, fields and bound are in {@code docs/protocol.md} ("Workers' heartbeats").
 * Thread-safe.
 */
final class Heartbeat {
    /** Longest time between two beats of a worker whose jobs in hand do not change. */
    static final long MAX_PERIOD_MS = 10_000;
    /** Shortest life of a record, whatever the maintenance interval. */
    static final long MIN_TTL_MS = 1000;
    /** Most job ids one beat lists; {@code in_hand} still counts them all. */
    static final int MAX_JOB_IDS = 100;

    private static final Logger LOG = LoggerFactory.getLogger(Heartbeat.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final String PID = Long.toString(ProcessHandle.current().pid());

    private final RedisEngine engine;
    private final MonotonicClock clock;
    private final String id;
    private final String name;
    private final String concurrency;
    private final IntSupplier inHand;
    private final Supplier<List<Job>> held;
    private final BooleanSupplier paused;
    private final long periodNanos;
    private final String period;
    private final String ttl;
    private QueueKeys beating;   // guarded by this: the keys of the queue the record is on, once a beat was sent
    private boolean removed;   // guarded by this
    // A first beat was answered, so started_at is stored. Not guarded by this: the answer arrives on
    // the connection's I/O thread, which must never wait for remove() (that waits for the I/O thread).
    private volatile boolean started;
    private long lastBeat;   // guarded by this: the clock's nanoTime of the last beat sent
    private int lastInHand = -1;   // guarded by this: the jobs in hand it told
    private String lastJobs = "";   // guarded by this: the job ids it told
    private boolean lastPaused;   // guarded by this: the paused state it told

    /**
     * @param name        the worker's name, as its log lines and threads show it
     * @param concurrency its handlers at most
     * @param inHand      how many jobs it runs now
     * @param held        the jobs it holds now, whose ids a beat lists
     * @param paused      whether its last claim found the queue paused
     * @param intervalMs  its maintenance interval: at most one beat each
     */
    Heartbeat(String name, QueueContext context, int concurrency, IntSupplier inHand, Supplier<List<Job>> held,
              BooleanSupplier paused, long intervalMs) {
        this.engine = context.engine();
        this.clock = context.clock();
        this.name = name;
        this.concurrency = Integer.toString(concurrency);
        this.inHand = inHand;
        this.held = held;
        this.paused = paused;
        this.periodNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(periodMillis(intervalMs));
        this.period = Long.toString(periodMillis(intervalMs));
        this.ttl = Long.toString(ttlMillis(intervalMs));
        this.id = Host.NAME + "-" + PID + "-" + SEQUENCE.incrementAndGet();
    }

    /** @return the longest time between two beats: five intervals, at most {@value #MAX_PERIOD_MS} ms, at least one interval */
    static long periodMillis(long intervalMs) {
        return Math.max(intervalMs, Math.min(MAX_PERIOD_MS, 5 * intervalMs));
    }

    /** @return how long a record lives without a next beat: three periods, at least {@value #MIN_TTL_MS} ms */
    static long ttlMillis(long intervalMs) {
        return Math.max(MIN_TTL_MS, 3 * periodMillis(intervalMs));
    }

    /** @return the worker's id in the records: {@code <host>-<pid>-<n>} */
    String id() {
        return id;
    }

    /**
     * Sends one beat on {@code queue}'s keys when the jobs in hand, their ids or the paused state
     * changed, or a period has passed since the last one, unless the record was removed. Never blocks.
     */
    synchronized void beat(QueueKeys queue) {
        int hand = inHand.getAsInt();
        String jobs = jobIds(held.get());
        boolean isPaused = paused.getAsBoolean();
        long now = clock.nanoTime();
        if (removed || (beating != null && hand == lastInHand && jobs.equals(lastJobs) && isPaused == lastPaused
                && now - lastBeat < periodNanos)) {
            return;
        }
        beating = queue;
        lastBeat = now;
        lastInHand = hand;
        lastJobs = jobs;
        lastPaused = isPaused;
        try {
            send(queue, ttl, started ? "0" : "1", "host", Host.NAME, "pid", PID, "name", name, "concurrency",
                    concurrency, "in_hand", Integer.toString(hand), "period_ms", period, "jobs", jobs,
                    "paused", isPaused ? "1" : "0")
                    .whenComplete((expires, failure) -> {
                        if (failure != null) {
                            LOG.debug("{}: heartbeat failed: {}", name, RedisEngine.unwrap(failure).toString());
                        } else {
                            started = true;
                        }
                    });
        } catch (RuntimeException e) {
            LOG.debug("{}: heartbeat failed: {}", name, e.toString());
        }
    }

    /** Removes the record (if a beat was sent), waiting at most the command timeout; sends no beat after. */
    synchronized void remove() {
        if (removed) {
            return;
        }
        removed = true;
        if (beating == null) {
            return;
        }
        try {
            RedisEngine.await(send(beating, "0", "0"), Scripts.HEARTBEAT.label(), beating.queue());
        } catch (RedisCommandException | IllegalStateException e) {
            // the record expires by itself within its ttl
            LOG.debug("{}: could not remove the heartbeat: {}", name, e.toString());
        }
    }

    /**
     * @return the ids of {@code jobs}, sorted so that the same jobs give the same text, at most
     *     {@value #MAX_JOB_IDS}, joined by {@code :}, which no job id holds
     */
    static String jobIds(List<Job> jobs) {
        return jobs.stream().map(Job::id).sorted().limit(MAX_JOB_IDS)
                .collect(java.util.stream.Collectors.joining(":"));
    }

    private java.util.concurrent.CompletableFuture<Long> send(QueueKeys queue, String ttlMs, String first,
                                                              String... fields) {
        String[] args = new String[3 + fields.length];
        args[0] = id;
        args[1] = ttlMs;
        args[2] = first;
        System.arraycopy(fields, 0, args, 3, fields.length);
        String[] keys = {queue.workers(), queue.worker(id)};
        return engine.run(Scripts.HEARTBEAT, ScriptOutputType.INTEGER, keys, args);
    }

    /**
     * This machine's name, read once, with every character a key or id should not hold replaced by
     * {@code _}: {@code $HOSTNAME} when set (containers set it), else the JDK's local host name.
     */
    private static final class Host {
        static final String NAME = read();

        private static String read() {
            String host = System.getenv("HOSTNAME");
            try {
                if (host == null || host.isBlank()) {
                    host = InetAddress.getLocalHost().getHostName();
                }
            } catch (java.io.IOException | RuntimeException e) {
                host = "unknown-host";
            }
            String clean = host.replaceAll("[^A-Za-z0-9._-]", "_");
            return clean.isEmpty() ? "unknown-host" : clean.substring(0, Math.min(clean.length(), 64));
        }
    }
}
