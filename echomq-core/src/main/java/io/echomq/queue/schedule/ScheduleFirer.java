package io.echomq.queue;

import io.echomq.internal.RedisEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fires the due schedules of one queue, exactly once per fire time however many processes do it
 * at once. One run, all of it asynchronous (it is called from Lettuce callbacks):
 *
 * <ol>
 *   <li>reads the due schedules and the server's now ({@code schedule-due-1});</li>
 *   <li>for each, plans its fire times ({@link FirePlan}: on time, or missed and then by its
 *       policy) and enqueues them in one {@code enqueue-5} call, each with the idempotency key
 *       {@code schedule:<id>:<fire time ms>}, so that a fire time enqueued twice makes one job;</li>
 *   <li>then moves the schedule's next fire time on with {@code schedule-advance-1}, a
 *       compare-and-set on the fire time and version it read: of the schedulers that read one fire
 *       time only the first moves it, and one that read the schedule before an upsert moves
 *       nothing.</li>
 * </ol>
 *
 * <p>Enqueue comes before the advance, so a crash between them loses nothing: the fire time stays
 * due, the next run enqueues it again, and the key makes that a no-op while it lives
 * ({@link Schedules#FIRE_KEY_WINDOW}). A schedule this process cannot read (a cron schedule
 * without the {@code echomq-cron} module, or a malformed hash) is logged once and left due for
 * others. Thread-safe; one run at a time per instance ({@link #tick}).
 */
final class ScheduleFirer {
    /** Due schedules read per run; a schedule this process skips does not count against it. */
    static final int DUE_BATCH = 100;
    /** Longest a worker goes without reading the schedules: how late it sees one another client added. */
    static final long POLL_MS = 10_000;

    /**
     * The default threshold: a fire time more than this before the server's now is missed and
     * follows the schedule's {@link MissedFires} policy; a later one is on time and always fires.
     * A client sets its own threshold with {@code QueueClient.Builder.missedFiresAfter}, read here
     * from the queue's context.
     */
    static final Duration MISSED_AFTER = Duration.ofSeconds(60);
    /** How long the idempotency key of each fire lives, so a fire enqueued again within it adds nothing. */
    static final Duration FIRE_KEY_WINDOW = Duration.ofHours(1);

    private static final Logger LOG = LoggerFactory.getLogger(ScheduleFirer.class);

    private final Partition queue;
    private final String name;
    private final ScheduleStore store;
    private final long missedAfterMs;
    private final Set<String> skipped = ConcurrentHashMap.newKeySet();   // logged once each
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean failing = new AtomicBoolean();
    private volatile long lookAgainNanos;   // on the client's monotonic clock

    ScheduleFirer(Partition queue) {
        this.queue = queue;
        this.name = queue.logicalName();
        this.store = new ScheduleStore(queue.context().engine(), queue.keys());
        this.missedAfterMs = queue.context().missedFiresAfterMs();
        this.lookAgainNanos = queue.clockNanos();   // at once: nanoTime has no zero to start from
    }

    /**
     * What one run did.
     *
     * @param now     the server's epoch ms it read
     * @param nextMs  the earliest fire time after now, -1 for none
     * @param due     how many due schedules it read
     * @param created how many jobs it created (a fire time another scheduler enqueued first is not counted)
     * @param more    true when it should run again at once: it read a full batch, or left fire times due
     */
    record Run(long now, long nextMs, int due, int created, boolean more) {
        /** @return ms from now until the next run should look, bounded by {@code pollMs} */
        long waitMs(long pollMs) {
            if (more) {
                return 0;
            }
            return nextMs < 0 ? pollMs : Math.max(1, Math.min(pollMs, nextMs - now));
        }
    }

    /**
     * For a worker's maintenance: runs when the earliest fire time this instance knows of has come,
     * or {@link #POLL_MS} after its last run, and not while a run is in flight. Never throws; a
     * failed run is logged once until one succeeds.
     */
    void tick() {
        long now = queue.clockNanos();
        if (now - lookAgainNanos < 0 || !running.compareAndSet(false, true)) {
            return;
        }
        try {
            runAsync().whenComplete((run, failure) -> {
                long wait = failure == null ? run.waitMs(POLL_MS) : POLL_MS;
                lookAgainNanos = queue.clockNanos() + wait * 1_000_000L;
                running.set(false);
                if (failure != null) {
                    failed(RedisEngine.unwrap(failure).toString());
                } else if (failing.getAndSet(false)) {
                    LOG.info("{}: schedules fire again", name);
                }
            });
        } catch (RuntimeException e) {
            running.set(false);
            failed(e.toString());
        }
    }

    /** One run, whoever calls it: read, enqueue, advance. */
    CompletableFuture<Run> runAsync() {
        return store.due(DUE_BATCH + skipped.size()).thenCompose(read -> {
            List<CompletableFuture<Integer>> each = new ArrayList<>();
            AtomicBoolean more = new AtomicBoolean(read.due().size() >= DUE_BATCH + skipped.size());
            // the earliest fire time after now: of the schedules not due, and of those this run moves on
            AtomicLong earliest = new AtomicLong(read.nextMs());
            for (ScheduleStore.Due d : read.due()) {
                each.add(fire(d, read.now(), more, earliest));
            }
            return CompletableFuture.allOf(each.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
                int created = 0;
                for (CompletableFuture<Integer> f : each) {
                    created += f.join();
                }
                return new Run(read.now(), earliest.get(), read.due().size(), created, more.get());
            });
        });
    }

    private CompletableFuture<Integer> fire(ScheduleStore.Due d, long now, AtomicBoolean more, AtomicLong earliest) {
        Schedule s;
        try {
            s = decode(d);
        } catch (RuntimeException e) {
            if (skipped.add(d.id())) {
                LOG.warn("{}: schedule {} is not fired by this process: {} (logged once; other schedulers may fire it)",
                        name, d.id(), e.getMessage());
            }
            return CompletableFuture.completedFuture(0);
        }
        FirePlan plan = FirePlan.of(s.spec().fireTimes(), d.fire(), now, s.missed(), s.maxMissed(),
                missedAfterMs, Enqueuer.CHUNK);
        if (plan.next() >= 0 && plan.next() <= now) {
            more.set(true);
        } else if (plan.next() > now) {
            earliest.accumulateAndGet(plan.next(), (a, b) -> a < 0 ? b : Math.min(a, b));
        }
        CompletableFuture<Integer> enqueued = CompletableFuture.completedFuture(0);
        if (!plan.fireTimes().isEmpty()) {
            List<JobRequest> jobs = new ArrayList<>(plan.fireTimes().size());
            EnqueueOptions base = EnqueueOptions.defaults().withPriority(s.priority());
            if (s.maxAttempts() > 0) {
                base = base.withMaxAttempts(s.maxAttempts());
            }
            for (long t : plan.fireTimes()) {
                jobs.add(new JobRequest(s.rawPayload(), base.withIdempotencyKey(fireKey(s.id(), t),
                        FIRE_KEY_WINDOW)));
            }
            // fire keys: always the full form, whose reply says which jobs were created
            enqueued = queue.enqueuer().full(jobs, JobFields.NO_ARGS).reply().thenApply(reply -> {
                int created = 0;
                for (int i = 1; i < reply.size(); i += 2) {
                    created += ((Long) reply.get(i)) == 1L ? 1 : 0;
                }
                if (created > 0) {
                    LOG.info("{}: schedule {} fired {} job(s), fire times {}", name, s.id(), created,
                            plan.fireTimes().size() == 1 ? plan.fireTimes().get(0) : plan.fireTimes());
                }
                return created;
            });
        }
        return enqueued.thenCompose(created -> store.advance(d, plan.next()).thenApply(code -> created));
    }

    /** @return the idempotency key of one fire: the schedule id and the fire time in epoch ms */
    static String fireKey(String id, long fireMs) {
        return FireKey.of(id, fireMs);
    }

    /** @throws RuntimeException if the stored hash cannot be read by this process */
    static Schedule decode(ScheduleStore.Due d) {
        ScheduleSpec spec = ScheduleSpec.parse(d.text(0), d.text(1));
        byte[] payload = d.fields()[2] == null ? new byte[0] : d.fields()[2];
        return Schedule.stored(d.id(), spec, payload, MissedFires.parse(d.text(3)), intOf(d.text(4), 1),
                intOf(d.text(5), 0), intOf(d.text(6), 0));
    }

    static int intOf(String text, int absent) {
        return text == null ? absent : Integer.parseInt(text);
    }

    private void failed(String why) {
        if (failing.compareAndSet(false, true)) {
            LOG.warn("{}: firing schedules failed: {} (logged once until it runs again)", name, why);
        } else {
            LOG.debug("{}: firing schedules failed again: {}", name, why);
        }
    }
}
