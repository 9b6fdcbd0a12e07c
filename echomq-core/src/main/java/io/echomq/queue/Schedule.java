package io.echomq.queue;

import io.echomq.internal.Checks;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One recurring schedule of a queue: its id, when it fires ({@link ScheduleSpec}), the payload of
 * every job it enqueues, what to do with missed fire times ({@link MissedFires}), and the jobs'
 * priority and attempts. Immutable: each {@code with…} returns a copy, checked when it is set, so
 * a bad value fails before Redis is touched.
 *
 * <pre>{@code
 * Schedule.of("nightly-report", ScheduleSpec.cron("0 2 * * *", "Europe/Berlin"), "{\"report\":\"daily\"}")
 *     .withMissed(MissedFires.ONCE)
 *     .withPriority(5);
 * }</pre>
 */
public final class Schedule {
    /** Longest schedule id accepted, in UTF-8 bytes. */
    public static final int MAX_ID_BYTES = 200;
    /** Missed fire times fired by {@link MissedFires#ALL} when no bound is given. */
    public static final int DEFAULT_MAX_MISSED = 10;
    /** Largest bound of {@link MissedFires#ALL}. */
    public static final int MAX_MISSED = 1000;

    private final String id;
    private final ScheduleSpec spec;
    private final byte[] payload;
    private final MissedFires missed;
    private final int maxMissed;
    private final int priority;
    private final int maxAttempts;   // 0: the queue's default

    private Schedule(String id, ScheduleSpec spec, byte[] payload, MissedFires missed, int maxMissed, int priority,
                     int maxAttempts) {
        this.id = id;
        this.spec = spec;
        this.payload = payload;
        this.missed = missed;
        this.maxMissed = maxMissed;
        this.priority = priority;
        this.maxAttempts = maxAttempts;
    }

    /**
     * @param id      1..{@value #MAX_ID_BYTES} bytes of UTF-8, without whitespace, control characters, '{' or '}'
     * @param spec    when it fires
     * @param payload the payload of every job it enqueues, as UTF-8
     * @return a schedule that skips missed fire times, at priority 0 and the default attempts
     * @throws IllegalArgumentException if any is null or the id is invalid
     */
    public static Schedule of(String id, ScheduleSpec spec, String payload) {
        Checks.notNull(payload, "payload");
        return of(id, spec, payload.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @return as {@link #of(String, ScheduleSpec, String)}, with a payload of any bytes (copied)
     * @throws IllegalArgumentException if any is null or the id is invalid
     */
    public static Schedule of(String id, ScheduleSpec spec, byte[] payload) {
        checkId(id);
        Checks.notNull(spec, "spec");
        Checks.notNull(payload, "payload");
        return new Schedule(id, spec, payload.clone(), MissedFires.SKIP, DEFAULT_MAX_MISSED, 0, 0);
    }

    /**
     * @return {@code id}, once known to be valid
     * @throws IllegalArgumentException if null, empty, over {@value #MAX_ID_BYTES} bytes, or holding
     *     whitespace, a control character, '{' or '}'
     */
    public static String checkId(String id) {
        Checks.name(id, "schedule id");
        int bytes = id.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_ID_BYTES) {
            throw new IllegalArgumentException("schedule id is " + bytes + " bytes long; the maximum is "
                    + MAX_ID_BYTES + " bytes");
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c == '{' || c == '}' || Character.isWhitespace(c) || Character.isISOControl(c)) {
                throw new IllegalArgumentException("schedule id must not contain '{', '}', whitespace or control "
                        + "characters; found one at index " + i);
            }
        }
        return id;
    }

    /**
     * @param policy what to do with missed fire times
     * @throws IllegalArgumentException if null
     */
    public Schedule withMissed(MissedFires policy) {
        Checks.notNull(policy, "missed-fire policy");
        return new Schedule(id, spec, payload, policy, maxMissed, priority, maxAttempts);
    }

    /**
     * @param max 1..{@value #MAX_MISSED}: the most missed fire times {@link MissedFires#ALL} fires
     *     after one downtime (ignored by the other policies)
     * @throws IllegalArgumentException if out of range
     */
    public Schedule withMaxMissed(int max) {
        if (max < 1 || max > MAX_MISSED) {
            throw new IllegalArgumentException("maxMissed must be in 1.." + MAX_MISSED + ", was " + max);
        }
        return new Schedule(id, spec, payload, missed, max, priority, maxAttempts);
    }

    /**
     * @param priority of every job fired, as {@link EnqueueOptions#withPriority(int)}
     * @throws IllegalArgumentException if out of range
     */
    public Schedule withPriority(int priority) {
        EnqueueOptions.defaults().withPriority(priority);
        return new Schedule(id, spec, payload, missed, maxMissed, priority, maxAttempts);
    }

    /**
     * @param maxAttempts of every job fired, as {@link EnqueueOptions#withMaxAttempts(int)}
     * @throws IllegalArgumentException if out of range
     */
    public Schedule withMaxAttempts(int maxAttempts) {
        EnqueueOptions.defaults().withMaxAttempts(maxAttempts);
        return new Schedule(id, spec, payload, missed, maxMissed, priority, maxAttempts);
    }

    /** @return the id, unique within its queue */
    public String id() {
        return id;
    }

    /** @return when it fires */
    public ScheduleSpec spec() {
        return spec;
    }

    /** @return a copy of the payload of every job it enqueues */
    public byte[] payload() {
        return payload.clone();
    }

    /** @return the payload as UTF-8 text */
    public String payloadUtf8() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    /** @return what is done with missed fire times */
    public MissedFires missed() {
        return missed;
    }

    /** @return the most missed fire times {@link MissedFires#ALL} fires */
    public int maxMissed() {
        return maxMissed;
    }

    /** @return the priority of every job fired */
    public int priority() {
        return priority;
    }

    /** @return the max attempts of every job fired, 0 for the default */
    public int maxAttempts() {
        return maxAttempts;
    }

    byte[] rawPayload() {
        return payload;
    }

    /** Rebuilt from a stored hash, whose values were checked when they were written. */
    static Schedule stored(String id, ScheduleSpec spec, byte[] payload, MissedFires missed, int maxMissed,
                           int priority, int maxAttempts) {
        return new Schedule(id, spec, payload, missed, maxMissed, priority, maxAttempts);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Schedule)) {
            return false;
        }
        Schedule s = (Schedule) o;
        return id.equals(s.id) && spec.equals(s.spec) && Arrays.equals(payload, s.payload) && missed == s.missed
                && maxMissed == s.maxMissed && priority == s.priority && maxAttempts == s.maxAttempts;
    }

    @Override
    public int hashCode() {
        return id.hashCode() * 31 + spec.hashCode();
    }

    @Override
    public String toString() {
        return "Schedule[" + id + " " + spec + ", missed " + missed.text()
                + (missed == MissedFires.ALL ? " (at most " + maxMissed + ")" : "") + "]";
    }
}
