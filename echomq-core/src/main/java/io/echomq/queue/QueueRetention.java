package io.echomq.queue;

import io.echomq.internal.Checks;
import java.time.Duration;

/**
 * How long a queue keeps its completed and its dead jobs, stored with the queue in
 * {@code emq:{q}:retention} so that every client and every script agrees
 * ({@link QueueOperations#setRetention}). Immutable; each {@code with…} returns a copy.
 *
 * <ul>
 *   <li><b>Completed jobs</b> are kept at most {@link #doneAge()} after they finished, and only
 *       the last {@link #doneMax()} of them. A queue with no stored settings keeps them for the
 *       client's {@code QueueClient.Builder.retainCompleted}: by default not at all (the hash is
 *       deleted at completion; its result stays in the events stream), else for that time with
 *       no count cap ({@link #DEFAULT_DONE_MAX}). {@code doneMax} 0 or a zero age keeps none.</li>
 *   <li><b>The done index.</b> Only a queue with stored settings indexes its completed jobs
 *       (the ZSET {@code emq:{q}:done}), which the count cap and a listing of
 *       {@link JobState#DONE} read. The index costs one {@code ZADD} per completed job, about a
 *       tenth of a worker's throughput, so a queue that stores no settings does not keep it and
 *       lists no done jobs; its completed hashes still expire after the age.</li>
 *   <li><b>Dead jobs</b> are kept at most {@link #deadAge()} after their death, and only the last
 *       {@link #deadMax()}: by default {@link #DEFAULT_DEAD_MAX} and {@link #DEFAULT_DEAD_AGE},
 *       Sidekiq's figures, stored or not.</li>
 * </ul>
 *
 * <p>The caps are applied by the scripts that add to each set (a complete, a move to dead), a
 * bounded number of the oldest entries per call, so a set never grows past its cap under load
 * and a lowered cap is reached over the next calls (docs/queue.md, "Retention").
 */
public final class QueueRetention {
    /** Largest count cap accepted. */
    public static final long MAX_COUNT = 100_000_000;
    /**
     * Most completed jobs kept by default: {@link #MAX_COUNT}, no count cap in practice; the age
     * bounds them, so a queue keeps every job it completed within the age, as before it had caps.
     */
    public static final long DEFAULT_DONE_MAX = MAX_COUNT;
    /** How long completed jobs are kept by a queue that stores its settings, by default. */
    public static final Duration DEFAULT_DONE_AGE = Duration.ofHours(1);
    /** Most dead jobs kept by default. */
    public static final long DEFAULT_DEAD_MAX = 10_000;
    /** How long dead jobs are kept by default. */
    public static final Duration DEFAULT_DEAD_AGE = Duration.ofDays(180);
    /** Longest age accepted. */
    public static final Duration MAX_AGE = Duration.ofDays(3650);

    private final long doneMax;
    private final Duration doneAge;
    private final long deadMax;
    private final Duration deadAge;

    private QueueRetention(long doneMax, Duration doneAge, long deadMax, Duration deadAge) {
        this.doneMax = doneMax;
        this.doneAge = doneAge;
        this.deadMax = deadMax;
        this.deadAge = deadAge;
    }

    /** @return the defaults: completed jobs for 1 h (no count cap), 10,000 dead jobs for 180 days */
    public static QueueRetention defaults() {
        return new QueueRetention(DEFAULT_DONE_MAX, DEFAULT_DONE_AGE, DEFAULT_DEAD_MAX, DEFAULT_DEAD_AGE);
    }

    /**
     * @param max most completed jobs kept, 0..{@link #MAX_COUNT} (0 keeps none)
     * @throws IllegalArgumentException if out of range
     */
    public QueueRetention withDoneMax(long max) {
        return new QueueRetention(count(max, "doneMax"), doneAge, deadMax, deadAge);
    }

    /**
     * @param age how long a completed job is kept after it finished, 0..{@link #MAX_AGE}, whole ms
     * @throws IllegalArgumentException if null or out of range
     */
    public QueueRetention withDoneAge(Duration age) {
        return new QueueRetention(doneMax, age(age, "doneAge"), deadMax, deadAge);
    }

    /**
     * @param max most dead jobs kept, 0..{@link #MAX_COUNT} (0 keeps none)
     * @throws IllegalArgumentException if out of range
     */
    public QueueRetention withDeadMax(long max) {
        return new QueueRetention(doneMax, doneAge, count(max, "deadMax"), deadAge);
    }

    /**
     * @param age how long a dead job is kept after its death, 0..{@link #MAX_AGE}, whole ms
     * @throws IllegalArgumentException if null or out of range
     */
    public QueueRetention withDeadAge(Duration age) {
        return new QueueRetention(doneMax, doneAge, deadMax, age(age, "deadAge"));
    }

    /** @return most completed jobs kept */
    public long doneMax() {
        return doneMax;
    }

    /** @return how long a completed job is kept */
    public Duration doneAge() {
        return doneAge;
    }

    /** @return most dead jobs kept */
    public long deadMax() {
        return deadMax;
    }

    /** @return how long a dead job is kept */
    public Duration deadAge() {
        return deadAge;
    }

    /** @return the settings as stored: the four fields of {@code emq:{q}:retention} (package use) */
    static QueueRetention of(long doneMax, long doneAgeMs, long deadMax, long deadAgeMs) {
        return new QueueRetention(doneMax, Duration.ofMillis(doneAgeMs), deadMax, Duration.ofMillis(deadAgeMs));
    }

    private static long count(long max, String what) {
        if (max < 0 || max > MAX_COUNT) {
            throw new IllegalArgumentException(what + " must be in 0.." + MAX_COUNT + ", was " + max);
        }
        return max;
    }

    private static Duration age(Duration age, String what) {
        Checks.notNull(age, what);
        if (age.isNegative() || age.compareTo(MAX_AGE) > 0 || age.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException(what + " must be whole milliseconds in 0.." + MAX_AGE.toDays()
                    + " days, was " + age);
        }
        return age;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof QueueRetention r && r.doneMax == doneMax && r.doneAge.equals(doneAge)
                && r.deadMax == deadMax && r.deadAge.equals(deadAge);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(doneMax, doneAge, deadMax, deadAge);
    }

    @Override
    public String toString() {
        return "QueueRetention[doneMax=" + doneMax + ", doneAge=" + doneAge + ", deadMax=" + deadMax
                + ", deadAge=" + deadAge + "]";
    }
}
