package io.echomq.queue;

import io.lettuce.core.Range;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;

/**
 * A queue's flow-control settings in Redis: the HASH {@code emq:{q}:flow}, which every claim of
 * every client reads ({@code includes/flow.lua}; docs/protocol.md, "Flow control").
 *
 * <ol>
 *   <li>The rate limit ({@link #setRateLimit}): at most N jobs started in any window, on the
 *       server's clock; fields {@code rate_max} and {@code rate_window_ms}, written in one
 *       {@code HSET}.</li>
 *   <li>The concurrency cap ({@link #setConcurrencyCap}): at most K jobs active at once across
 *       every worker process; field {@code cap}.</li>
 *   <li>Each checks its value before anything is sent, reads back (an absent or malformed field
 *       is "off", as the claim reads it) and clears.</li>
 * </ol>
 *
 * <p><b>Sharded queues: per partition.</b> Each partition has its own hash and enforces its own
 * limit on its own slot (no script spans two partitions). A setting is written to every partition
 * of the mark, so a sharded queue of K partitions with a rate limit of N per window starts at most
 * K × N per window, and with a cap of C runs at most K × C at once; divide by K for a total. A
 * partition added later has no limit until the setting is written again. Reads answer partition
 * 0's.
 *
 * <p>Thread-safe; each call is one command per queue or partition.
 * @see RateLimitedException a handler's own back-off, held in the same hash
 */
public final class FlowControl {
    /** The largest cap. */
    public static final int MAX_CAP = 1_000_000;
    static final String RATE_MAX = "rate_max";
    static final String RATE_WINDOW = "rate_window_ms";
    static final String CAP = "cap";
    static final String HOLD = "hold_until";

    private final Supplier<List<QueueWire>> span;   // read at each call: a sharded queue's span grows

    FlowControl(Supplier<List<QueueWire>> span) {
        this.span = span;
    }

    /**
     * Sets the rate limit: from each claim on, at most {@code limit.max()} jobs start in any
     * {@code limit.window()} (per partition of a sharded queue). A worker held by it sleeps until
     * the window lets a job in.
     *
     * @throws IllegalArgumentException if limit is null; nothing is written
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public void setRateLimit(RateLimit limit) {
        if (limit == null) {
            throw new IllegalArgumentException("a rate limit must not be null (clearRateLimit() removes it)");
        }
        for (QueueWire w : span.get()) {
            w.await(w.async().hset(key(w), Map.of(RATE_MAX, bytes(Integer.toString(limit.max())),
                    RATE_WINDOW, bytes(Long.toString(limit.windowMillis())))).toCompletableFuture(), "HSET flow");
        }
    }

    /**
     * {@link #setRateLimit(RateLimit)} with {@code new RateLimit(max, window)}.
     *
     * @throws IllegalArgumentException if max is not in 1..{@value RateLimit#MAX_JOBS} or the window is not in
     *     1 ms..1 day; nothing is written
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public void setRateLimit(int max, Duration window) {
        setRateLimit(new RateLimit(max, window));
    }

    /**
     * @return the rate limit (partition 0's, for a sharded queue); empty when none is set or the stored fields
     *     are not positive integers in range, which the claim ignores too
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public Optional<RateLimit> rateLimit() {
        List<String> f = read(RATE_MAX, RATE_WINDOW);
        long max = positive(f.get(0));
        long window = positive(f.get(1));
        if (max < 1 || max > RateLimit.MAX_JOBS || window < 1 || window > RateLimit.MAX_WINDOW.toMillis()) {
            return Optional.empty();
        }
        return Optional.of(new RateLimit((int) max, Duration.ofMillis(window)));
    }

    /**
     * Removes the rate limit (from every partition).
     *
     * @return true if one was stored (in any partition)
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public boolean clearRateLimit() {
        return clear(RATE_MAX, RATE_WINDOW);
    }

    /**
     * Sets the concurrency cap: from each claim on, a claim takes a job only while fewer than
     * {@code cap} jobs of the queue (of the partition, for a sharded queue) are active. Jobs
     * already active are not touched, so a lowered cap is reached as they settle.
     *
     * @param cap 1..{@value #MAX_CAP}
     * @throws IllegalArgumentException if cap is not in 1..{@value #MAX_CAP}; nothing is written
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public void setConcurrencyCap(int cap) {
        if (cap < 1 || cap > MAX_CAP) {
            throw new IllegalArgumentException("a concurrency cap must be in 1.." + MAX_CAP
                    + " active jobs, was " + cap + " (clearConcurrencyCap() removes it)");
        }
        for (QueueWire w : span.get()) {
            w.await(w.async().hset(key(w), CAP, bytes(Integer.toString(cap))).toCompletableFuture(),
                    "HSET flow");
        }
    }

    /**
     * @return the cap (partition 0's, for a sharded queue); empty when none is set or the stored value is not a
     *     positive integer in range
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public OptionalInt concurrencyCap() {
        long cap = positive(read(CAP).get(0));
        return cap < 1 || cap > MAX_CAP ? OptionalInt.empty() : OptionalInt.of((int) cap);
    }

    /**
     * Removes the cap (from every partition).
     *
     * @return true if one was stored (in any partition)
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public boolean clearConcurrencyCap() {
        return clear(CAP);
    }

    /**
     * @return how long the back-off hold a handler set ({@link RateLimitedException}) still holds claims, on
     *     the server's clock (partition 0's, for a sharded queue); zero when none holds
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public Duration holdRemaining() {
        QueueWire w = span.get().get(0);
        long until = positive(read(HOLD).get(0));
        if (until < 1) {
            return Duration.ZERO;
        }
        return Duration.ofMillis(Math.max(0, until - serverMillis(w)));
    }

    /**
     * How many claims the rate limit counts in its window now: the entries of the rate log within
     * the last window on the server's clock, as the claim counts them (partition 0's, for a sharded
     * queue). Equal to the limit's {@code max}, the queue is throttled by its rate limit until the
     * oldest leaves the window.
     *
     * @return the claims in the current window; 0 when no rate limit is set
     * @throws io.echomq.RedisCommandException if Redis fails; a rate log of another type answers its
     *     WRONGTYPE error here, where the claim treats it as no rate limit
     */
    public long startedInWindow() {
        Optional<RateLimit> limit = rateLimit();
        if (limit.isEmpty()) {
            return 0;
        }
        QueueWire w = span.get().get(0);
        long now = serverMillis(w);
        Range<Long> window = Range.from(Range.Boundary.excluding(now - limit.get().windowMillis()),
                Range.Boundary.unbounded());
        return w.<Long>await(w.async().zcount(w.keys().rate(), window).toCompletableFuture(), "ZCOUNT rate");
    }

    /** @return the server's clock in ms */
    private static long serverMillis(QueueWire w) {
        return w.await(w.async().time().toCompletableFuture().thenApply(t ->
                Long.parseLong(new String(t.get(0), StandardCharsets.US_ASCII)) * 1000
                        + Long.parseLong(new String(t.get(1), StandardCharsets.US_ASCII)) / 1000), "TIME");
    }

    private List<String> read(String... fields) {
        QueueWire w = span.get().get(0);
        return w.await(w.async().hmget(key(w), fields).toCompletableFuture(), "HMGET flow").stream()
                .map(kv -> kv.hasValue() ? new String(kv.getValue(), StandardCharsets.US_ASCII) : null).toList();
    }

    private boolean clear(String... fields) {
        boolean cleared = false;
        for (QueueWire w : span.get()) {
            cleared |= w.<Long>await(w.async().hdel(key(w), fields).toCompletableFuture(), "HDEL flow") > 0;
        }
        return cleared;
    }

    /** @return the value as the claim reads it: a positive integer of at most 15 digits, else -1 */
    private static long positive(String v) {
        return v != null && v.length() <= 15 && v.matches("[1-9][0-9]*") ? Long.parseLong(v) : -1;
    }

    private static String key(QueueWire w) {
        return w.keys().flow();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
