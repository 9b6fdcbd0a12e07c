package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScoredValue;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The recurring schedules of one queue, stored in Redis under the queue's own hash tag so that
 * every client and every scheduler agrees: upsert, remove, list with next fire times, and fire the
 * due ones now. Workers of the queue fire them in their maintenance, and {@link Scheduler} (the
 * {@code emq scheduler} command) fires them where no worker runs.
 *
 * <pre>{@code
 * Schedules schedules = client.schedules("reports");
 * schedules.upsert(Schedule.of("hourly", ScheduleSpec.every(Duration.ofHours(1)), "{\"kind\":\"hourly\"}"));
 * schedules.list().forEach(s -> System.out.println(s.schedule().id() + " next " + s.nextFire()));
 * }</pre>
 *
 * <ul>
 *   <li><b>Exactly once per fire time.</b> Each fire enqueues with the idempotency key
 *       {@code schedule:<id>:<fire time ms>}, then moves the next fire time on by a
 *       compare-and-set; see {@code docs/queue.md}, "Recurring schedules".</li>
 *   <li><b>Sharded queues.</b> The schedules of a sharded queue live with its partition 0
 *       ({@code emq:{<q>#0}:…}) and fire into partition 0, so one fire time's key is always looked
 *       up in the same place whatever partition counts clients declare.</li>
 *   <li><b>Time.</b> Fire times are computed by the client from the stored spec, after the server's
 *       now: the due test, the first fire time of an upsert and the missed-fire cutoff all use the
 *       server's clock.</li>
 * </ul>
 *
 * <p>Obtained from {@link QueueClient#schedules(String)}; thread-safe. Every method checks its
 * arguments before Redis is touched and throws {@link IllegalArgumentException} for bad ones, and
 * throws {@link io.echomq.RedisCommandException} when Redis fails.
 */
public final class Schedules {
    /**
     * The default catch-up threshold: a fire time more than this before the server's now is
     * <em>missed</em> and follows the schedule's {@link MissedFires} policy; a later one is on time
     * and always fires. A client sets its own with {@link QueueClient.Builder#missedFiresAfter(Duration)}.
     */
    public static final Duration MISSED_AFTER = ScheduleFirer.MISSED_AFTER;
    /**
     * How long the idempotency key of each fire lives. A fire time enqueued again within it (a
     * scheduler crashed between the enqueue and the advance, and another retried) adds nothing.
     */
    public static final Duration FIRE_KEY_WINDOW = ScheduleFirer.FIRE_KEY_WINDOW;
    /** Most fire times {@link #next(String, int)} computes. */
    public static final int MAX_NEXT = 1000;
    /** Most schedules {@link #list(int)} reads at once. */
    public static final int MAX_LIST = 1000;

    private final int maxPayloadBytes;
    private final Partition target;
    private final String name;
    private final ScheduleStore store;
    private final ScheduleFirer firer;

    Schedules(int maxPayloadBytes, String name, Partition target) {
        this.maxPayloadBytes = maxPayloadBytes;
        this.name = name;
        this.target = target;
        this.store = new ScheduleStore(target.context().engine(), target.keys());
        this.firer = new ScheduleFirer(target);
    }


    /** @return the queue's name */
    public String queueName() {
        return name;
    }

    /**
     * Creates the schedule, or replaces the one with its id. When its spec and zone are unchanged,
     * the stored next fire time is kept, so declaring the same schedule again (as every process may
     * at start) skips no fire time; otherwise the next fire time is the first after the server's now.
     * A scheduler that read the old definition enqueues nothing more from it once this returns,
     * except a fire time it had already enqueued (it fires with the old payload, and only once).
     *
     * @return the schedule as stored, with its next fire time and new version
     * @throws IllegalArgumentException if the schedule is null or its payload over the client's limit
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public ScheduleInfo upsert(Schedule schedule) {
        Checks.notNull(schedule, "schedule");
        int limit = maxPayloadBytes;
        if (schedule.rawPayload().length > limit) {
            throw new IllegalArgumentException("payload is " + schedule.rawPayload().length + " bytes; the limit is "
                    + limit + " bytes");
        }
        long now = RedisEngine.await(store.due(0), Scripts.SCHEDULE_DUE.label(), name).now();
        long next = schedule.spec().nextAfter(Instant.ofEpochMilli(now)).map(Instant::toEpochMilli).orElse(-1L);
        List<Object> r = RedisEngine.await(store.upsert(schedule, next), Scripts.SCHEDULE_UPSERT.label(), name);
        String stored = QueueWire.text(r.get(0));
        return new ScheduleInfo(schedule, ScheduleStore.nextOf(stored), (Long) r.get(1));
    }

    /**
     * Removes a schedule; the jobs it already fired stay.
     *
     * @return true if it existed
     * @throws IllegalArgumentException if the id is invalid
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public boolean remove(String id) {
        Schedule.checkId(id);
        return RedisEngine.await(store.remove(id), Scripts.SCHEDULE_REMOVE.label(), name) == 1L;
    }

    /**
     * Lists every schedule, earliest next fire time first. Read with one call for the ids and one
     * per schedule, so the listing is not one atomic snapshot. A stored schedule this process
     * cannot read (a cron schedule without the {@code echomq-cron} module) is left out.
     *
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public List<ScheduleInfo> list() {
        List<ScheduleInfo> out = new ArrayList<>();
        for (ScoredValue<byte[]> e : store.ids()) {
            read(QueueWire.text(e.getValue()), e.getScore()).ifPresent(out::add);
        }
        return out;
    }

    /**
     * Lists the first schedules, earliest next fire time first, as {@link #list()} does but with a
     * bounded read (one {@code ZRANGE} of at most {@code limit} ids), for a page that must stay fast
     * whatever the number of schedules.
     *
     * @param limit how many ids to read, 1..{@value #MAX_LIST}; fewer schedules are returned when
     *              some of them cannot be read by this process
     * @return the schedules, earliest next fire time first
     * @throws IllegalArgumentException if limit is outside 1..{@value #MAX_LIST}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public List<ScheduleInfo> list(int limit) {
        if (limit < 1 || limit > MAX_LIST) {
            throw new IllegalArgumentException("limit must be in 1.." + MAX_LIST + ", was " + limit);
        }
        List<ScheduleInfo> out = new ArrayList<>();
        for (ScoredValue<byte[]> e : store.ids(limit)) {
            read(QueueWire.text(e.getValue()), e.getScore()).ifPresent(out::add);
        }
        return out;
    }

    /**
     * @return how many schedules the queue stores, readable by this process or not (one {@code ZCARD})
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public long count() {
        return store.count();
    }

    /**
     * @return the schedule of that id, if it exists and this process can read it
     * @throws IllegalArgumentException if the id is invalid
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public Optional<ScheduleInfo> get(String id) {
        Schedule.checkId(id);
        Double score = store.score(id);
        return score == null ? Optional.empty() : read(id, score);
    }

    /**
     * The next {@code count} fire times of a schedule, from its stored next fire time on.
     *
     * @param count 1..{@value #MAX_NEXT}
     * @return the fire times, fewer when the schedule ends; empty when it does not exist
     * @throws IllegalArgumentException if the id or count is invalid
     * @throws IllegalStateException if the schedule is stored but this process cannot read it
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public List<Instant> next(String id, int count) {
        Schedule.checkId(id);
        if (count < 1 || count > MAX_NEXT) {
            throw new IllegalArgumentException("count must be in 1.." + MAX_NEXT + ", was " + count);
        }
        Optional<ScheduleInfo> info = get(id);
        List<Instant> out = new ArrayList<>();
        Optional<Instant> t = info.flatMap(ScheduleInfo::nextFire);
        while (t.isPresent() && out.size() < count) {
            out.add(t.get());
            t = info.get().schedule().spec().nextAfter(t.get());
        }
        return out;
    }

    /**
     * Fires the due schedules now, as a worker's maintenance or a {@link Scheduler} does: safe to
     * call from any number of processes at once.
     *
     * @return how many jobs this call created
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public int fireDue() {
        return RedisEngine.await(firer.runAsync(), Scripts.SCHEDULE_DUE.label(), name).created();
    }

    ScheduleFirer firer() {
        return firer;
    }

    Partition target() {
        return target;
    }

    private Optional<ScheduleInfo> read(String id, double score) {
        byte[][] f = store.fields(id);
        if (f == null) {
            return Optional.empty();
        }
        try {
            Schedule s = ScheduleFirer.decode(new ScheduleStore.Due(id, "", 0, f));
            long version = f[7] == null ? 0 : Long.parseLong(QueueWire.text(f[7]));
            return Optional.of(new ScheduleInfo(s, ScheduleStore.nextOf(score), version));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return "Schedules[" + name + "]";
    }
}
