package io.echomq.queue;

import io.echomq.internal.Checks;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * How to enqueue one job. Immutable: each {@code with…} returns a copy. Every value is checked
 * when it is set, so a bad option fails before Redis is touched.
 *
 * <pre>{@code
 * EnqueueOptions.defaults()
 *     .withPriority(10)                                 // claimed before priority 0
 *     .withDelay(Duration.ofMinutes(5))                 // due in 5 minutes, server clock
 *     .withMaxAttempts(5)
 *     .withBackoff(Duration.ofSeconds(2), Duration.ofMinutes(10))
 *     .withIdempotencyKey("invoice-42", Duration.ofHours(1))
 *     .withTimeout(Duration.ofMinutes(2));                // a handler may run 2 minutes
 * }</pre>
 */
public final class EnqueueOptions {
    /** Lowest priority accepted. */
    public static final int MIN_PRIORITY = -1000;
    /** Highest priority accepted; higher priorities are claimed first. */
    public static final int MAX_PRIORITY = 1000;
    /** Attempts a job gets when none is given (also for jobs written by other clients). */
    public static final int DEFAULT_MAX_ATTEMPTS = 3;
    /** Most attempts accepted. */
    public static final int MAX_ATTEMPTS = 1000;
    /** Base retry delay when none is given: the first retry waits 0.5 to 1 times this. */
    public static final Duration DEFAULT_BACKOFF = Duration.ofSeconds(1);
    /** Retry delay cap when none is given. */
    public static final Duration DEFAULT_BACKOFF_CAP = Duration.ofHours(1);
    /** Longest delay, backoff or idempotency window accepted. */
    public static final Duration MAX_DELAY = Duration.ofDays(365);
    /** Longest timeout accepted, the same as {@link Worker.Builder#timeout}'s: one day. */
    public static final Duration MAX_TIMEOUT = Duration.ofDays(1);

    private static final EnqueueOptions DEFAULTS = new EnqueueOptions(0, 0, 0, 0, 0, 0, "", 0, 0, null);

    final int priority;
    final long delayMs;
    final long runAtMs;
    final int maxAttempts;
    final long backoffMs;
    final long backoffCapMs;
    final String idempotencyKey;
    final long idempotencyWindowMs;
    final long timeoutMs;   // 0: none
    final String group;     // null: none

    private EnqueueOptions(int priority, long delayMs, long runAtMs, int maxAttempts, long backoffMs,
                           long backoffCapMs, String idempotencyKey, long idempotencyWindowMs, long timeoutMs,
                           String group) {
        this.priority = priority;
        this.delayMs = delayMs;
        this.runAtMs = runAtMs;
        this.maxAttempts = maxAttempts;
        this.backoffMs = backoffMs;
        this.backoffCapMs = backoffCapMs;
        this.idempotencyKey = idempotencyKey;
        this.idempotencyWindowMs = idempotencyWindowMs;
        this.timeoutMs = timeoutMs;
        this.group = group;
    }

    /** @return priority 0, no delay, 3 attempts, 1 s backoff capped at 1 h, no idempotency key, no timeout */
    public static EnqueueOptions defaults() {
        return DEFAULTS;
    }

    /**
     * @param priority -1000..1000; higher is claimed first, FIFO within one priority
     * @throws IllegalArgumentException if out of range
     */
    public EnqueueOptions withPriority(int priority) {
        if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
            throw new IllegalArgumentException("priority must be in " + MIN_PRIORITY + ".." + MAX_PRIORITY
                    + ", was " + priority);
        }
        return new EnqueueOptions(priority, delayMs, runAtMs, maxAttempts, backoffMs, backoffCapMs,
                idempotencyKey, idempotencyWindowMs, timeoutMs, group);
    }

    /**
     * @param delay how long after enqueue (on the server clock) the job becomes due; zero for none
     * @throws IllegalArgumentException if null, negative or over {@link #MAX_DELAY}
     */
    public EnqueueOptions withDelay(Duration delay) {
        Checks.notNull(delay, "delay");
        if (delay.isNegative() || delay.compareTo(MAX_DELAY) > 0) {
            throw new IllegalArgumentException("delay must be in 0.." + MAX_DELAY + ", was " + delay);
        }
        return new EnqueueOptions(priority, delay.toMillis(), 0, maxAttempts, backoffMs, backoffCapMs,
                idempotencyKey, idempotencyWindowMs, timeoutMs, group);
    }

    /**
     * @param runAt when the job becomes due, compared with the server's clock; a time in the past
     *     makes it due at once. Replaces any delay.
     * @throws IllegalArgumentException if null, before 1970 or more than {@link #MAX_DELAY} past now
     */
    public EnqueueOptions withRunAt(Instant runAt) {
        Checks.notNull(runAt, "runAt");
        if (runAt.isBefore(Instant.EPOCH) || runAt.isAfter(Instant.now().plus(MAX_DELAY))) {
            throw new IllegalArgumentException("runAt must be between 1970 and now + " + MAX_DELAY + ", was " + runAt);
        }
        return new EnqueueOptions(priority, 0, Math.max(1, runAt.toEpochMilli()), maxAttempts, backoffMs,
                backoffCapMs, idempotencyKey, idempotencyWindowMs, timeoutMs, group);
    }

    /**
     * @param maxAttempts 1..1000 attempts before the job goes to dead; a lease that expires counts
     * @throws IllegalArgumentException if out of range
     */
    public EnqueueOptions withMaxAttempts(int maxAttempts) {
        if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS) {
            throw new IllegalArgumentException("maxAttempts must be in 1.." + MAX_ATTEMPTS + ", was " + maxAttempts);
        }
        return new EnqueueOptions(priority, delayMs, runAtMs, maxAttempts, backoffMs, backoffCapMs,
                idempotencyKey, idempotencyWindowMs, timeoutMs, group);
    }

    /**
     * Exponential backoff with jitter: retry n waits between half and all of
     * {@code min(cap, base * 2^(n-1))}, on the server clock.
     *
     * @param base the first retry's full delay, at least 1 ms
     * @param cap  the largest delay, at least {@code base}
     * @throws IllegalArgumentException if either is null, under 1 ms, over {@link #MAX_DELAY}, or cap &lt; base
     */
    public EnqueueOptions withBackoff(Duration base, Duration cap) {
        long b = Checks.ttlMillis(base, MAX_DELAY, "backoff base");
        long c = Checks.ttlMillis(cap, MAX_DELAY, "backoff cap");
        if (c < b) {
            throw new IllegalArgumentException("backoff cap " + cap + " is below its base " + base);
        }
        return new EnqueueOptions(priority, delayMs, runAtMs, maxAttempts, b, c, idempotencyKey, idempotencyWindowMs,
                timeoutMs, group);
    }

    /**
     * Enqueue once per key within the window: a second enqueue with the same key while the window
     * runs adds nothing and returns the first job's id.
     *
     * @param key    1..1024 bytes of UTF-8
     * @param window how long the key is remembered, 1 ms..{@link #MAX_DELAY}
     * @throws IllegalArgumentException if the key or window is invalid
     */
    public EnqueueOptions withIdempotencyKey(String key, Duration window) {
        Checks.name(key, "idempotency key");
        long w = Checks.ttlMillis(window, MAX_DELAY, "idempotency window");
        return new EnqueueOptions(priority, delayMs, runAtMs, maxAttempts, backoffMs, backoffCapMs, key, w, timeoutMs, group);
    }

    /**
     * How long a {@link Worker}'s handler may run on this job, from its start, before the worker
     * asks it to stop ({@link Job#stopSignal()}) and fails the attempt with a {@link JobTimeoutException} (retried as its retry
     * policy says). Stored with the job, so every worker applies it; it wins over the queue's
     * default ({@link QueueOperations#setDefaultTimeout}) and the worker's own
     * ({@link Worker.Builder#timeout}). None by default: no bytes are stored for it.
     *
     * @param timeout 1 ms..{@link #MAX_TIMEOUT} (one day)
     * @throws IllegalArgumentException if null, zero, negative, under 1 ms or over {@link #MAX_TIMEOUT}
     */
    public EnqueueOptions withTimeout(Duration timeout) {
        long t = Checks.ttlMillis(timeout, MAX_TIMEOUT, "timeout");
        return new EnqueueOptions(priority, delayMs, runAtMs, maxAttempts, backoffMs, backoffCapMs, idempotencyKey,
                idempotencyWindowMs, t, group);
    }

    /**
     * Puts the job in a fair group ({@link FairGroups}): claims take the queue's groups in turn, and
     * at most the queue's per-group concurrency (default 1) of a group's jobs run at once. Within
     * a group jobs are claimed oldest first; a grouped job's priority does not order it.
     *
     * @param group the group key, {@link GroupKeys#check}'s rule: 1..128 of {@code A-Z a-z 0-9 . _ - @ + = / #}
     * @throws IllegalArgumentException if the key breaks that rule; nothing is sent
     */
    public EnqueueOptions withGroup(String group) {
        GroupKeys.check(group);
        return new EnqueueOptions(priority, delayMs, runAtMs, maxAttempts, backoffMs, backoffCapMs, idempotencyKey,
                idempotencyWindowMs, timeoutMs, group);
    }

    /** @return the job's group key, or empty for none */
    public Optional<String> group() {
        return Optional.ofNullable(group);
    }

    /** @return the priority */
    public int priority() {
        return priority;
    }

    /** @return the delay in ms, 0 for none */
    public long delayMillis() {
        return delayMs;
    }

    /** @return when the job becomes due ({@link #withRunAt}), or empty when none was set (a delay may be) */
    public Optional<Instant> runAt() {
        return runAtMs == 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(runAtMs));
    }

    /**
     * @return the retry backoff's base ({@link #withBackoff}), or empty for the default
     *     ({@link #DEFAULT_BACKOFF}); set together with {@link #backoffCap()}
     */
    public Optional<Duration> backoffBase() {
        return backoffMs == 0 ? Optional.empty() : Optional.of(Duration.ofMillis(backoffMs));
    }

    /**
     * @return the retry backoff's cap ({@link #withBackoff}), or empty for the default
     *     ({@link #DEFAULT_BACKOFF_CAP}); set together with {@link #backoffBase()}
     */
    public Optional<Duration> backoffCap() {
        return backoffCapMs == 0 ? Optional.empty() : Optional.of(Duration.ofMillis(backoffCapMs));
    }

    /** @return the max attempts, 0 meaning {@link #DEFAULT_MAX_ATTEMPTS} */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** @return the idempotency key, empty for none */
    public String idempotencyKey() {
        return idempotencyKey;
    }

    /** @return the job's own timeout, or empty for none (then the queue's default, else the worker's, applies) */
    public Optional<Duration> timeout() {
        return timeoutMs == 0 ? Optional.empty() : Optional.of(Duration.ofMillis(timeoutMs));
    }

    /** Appends this job's ten values of {@code enqueue-5.lua} to {@code args}. */
    void appendArgs(byte[] payload, java.util.List<byte[]> args) {
        args.add(payload);
        args.add(QueueWire.num(priority));
        args.add(QueueWire.num(delayMs));
        args.add(QueueWire.num(runAtMs));
        args.add(QueueWire.num(maxAttempts));
        args.add(QueueWire.num(backoffMs));
        args.add(QueueWire.num(backoffCapMs));
        args.add(idempotencyKey.getBytes(StandardCharsets.UTF_8));
        args.add(QueueWire.num(idempotencyWindowMs));
        args.add(QueueWire.num(timeoutMs));
    }

    @Override
    public String toString() {
        return "EnqueueOptions[priority=" + priority + ", delayMs=" + delayMs + ", runAtMs=" + runAtMs
                + ", maxAttempts=" + maxAttempts + ", backoffMs=" + backoffMs + ", backoffCapMs=" + backoffCapMs
                + ", idempotencyKey=" + idempotencyKey + ", windowMs=" + idempotencyWindowMs + ", timeoutMs=" + timeoutMs + (group == null ? "" : ", group=" + group) + "]";
    }
}
