package io.echomq.queue;

import io.echomq.internal.Checks;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When a recurring schedule fires, in the form stored in Redis so that every client agrees: a
 * text {@code <kind>:<expression>} and a time zone.
 *
 * <ul>
 *   <li>{@code every:PT5M}: a fixed interval ({@link #every(Duration)}), firing at every whole
 *       multiple of it since the epoch; the zone is {@code UTC} and plays no part.</li>
 *   <li>{@code cron:0 9 * * MON-FRI} with a zone such as {@code Europe/Berlin}
 *       ({@link #cron(String, String)}): 5 fields (minute to day of week) or 6 (seconds first),
 *       read in the zone. Parsed by the {@code echomq-cron} module, which must be on the class
 *       path; its page describes the DST gap and overlap.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe. Every factory checks its input before anything touches Redis.
 */
public final class ScheduleSpec {
    /** The kind of fixed intervals, built into core. */
    public static final String EVERY = "every";
    /** The kind of cron expressions, provided by the {@code echomq-cron} module. */
    public static final String CRON = "cron";
    /** Shortest interval accepted: each fire is a job and an idempotency key, so a tighter loop is no schedule. */
    public static final Duration MIN_INTERVAL = Duration.ofMillis(100);
    /** Longest interval accepted. */
    public static final Duration MAX_INTERVAL = Duration.ofDays(365);

    private static final ZoneId UTC = ZoneId.of("UTC");
    private static final Map<String, FireTimesProvider> PROVIDERS = new ConcurrentHashMap<>();
    private static volatile boolean loaded;

    private final String kind;
    private final String expression;
    private final ZoneId zone;
    private final FireTimes times;

    private ScheduleSpec(String kind, String expression, ZoneId zone, FireTimes times) {
        this.kind = kind;
        this.expression = expression;
        this.zone = zone;
        this.times = times;
    }

    /**
     * @param interval {@link #MIN_INTERVAL}..{@link #MAX_INTERVAL}, in whole milliseconds
     * @return a fixed interval, firing at every multiple of it since the epoch
     * @throws IllegalArgumentException if null, not positive, out of range or not whole milliseconds
     */
    public static ScheduleSpec every(Duration interval) {
        long ms = Checks.ttlMillis(interval, MAX_INTERVAL, "interval");
        if (interval.compareTo(MIN_INTERVAL) < 0) {
            throw new IllegalArgumentException("interval must be at least " + MIN_INTERVAL.toMillis() + " ms, was "
                    + interval);
        }
        if (!Duration.ofMillis(ms).equals(interval)) {
            throw new IllegalArgumentException("interval must be whole milliseconds, was " + interval);
        }
        return new ScheduleSpec(EVERY, Duration.ofMillis(ms).toString(), UTC, new FixedInterval(ms));
    }

    /**
     * @param expression 5 fields ({@code minute hour day-of-month month day-of-week}) or 6 (seconds
     *     first)
     * @param zone a time-zone id such as {@code Europe/Berlin} or {@code UTC}
     * @return a cron schedule read in that zone
     * @throws IllegalArgumentException if the expression is malformed or the zone unknown
     * @throws IllegalStateException if no cron provider (the {@code echomq-cron} module) is on the class path
     */
    public static ScheduleSpec cron(String expression, String zone) {
        return of(CRON, expression, zone(zone));
    }

    /**
     * @return a cron schedule read in {@code zone}; as {@link #cron(String, String)}
     * @throws IllegalArgumentException if the expression is malformed or the zone null
     * @throws IllegalStateException if no cron provider is on the class path
     */
    public static ScheduleSpec cron(String expression, ZoneId zone) {
        return of(CRON, expression, Checks.notNull(zone, "zone"));
    }

    /**
     * Reads the stored form.
     *
     * @param text {@code every:<ISO-8601 duration>} or {@code <kind>:<expression>}
     * @param zone the stored zone id ({@code UTC} for {@code every})
     * @return the spec
     * @throws IllegalArgumentException if the text or the zone is malformed, or the kind unknown to
     *     core and to every provider on the class path
     * @throws IllegalStateException if the kind is {@code cron} and no cron provider is on the class path
     */
    public static ScheduleSpec parse(String text, String zone) {
        Checks.notNull(text, "schedule spec");
        int colon = text.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("schedule spec must be every:<duration> or cron:<expression>, was '"
                    + text + "'");
        }
        String kind = text.substring(0, colon);
        String expression = text.substring(colon + 1);
        if (kind.equals(EVERY)) {
            Duration d;
            try {
                d = Duration.parse(expression.strip());
            } catch (DateTimeException e) {
                throw new IllegalArgumentException("interval '" + expression + "' is no ISO-8601 duration such as "
                        + "PT5M or PT1H");
            }
            return every(d);
        }
        return of(kind, expression, zone(zone));
    }

    private static ScheduleSpec of(String kind, String expression, ZoneId zone) {
        if (expression == null || expression.isBlank()) {
            throw new IllegalArgumentException(kind + " expression must not be null or blank");
        }
        String expr = expression.strip().replaceAll("\\s+", " ");
        FireTimesProvider p = provider(kind);
        return new ScheduleSpec(kind, expr, zone, p.parse(expr, zone));
    }

    private static FireTimesProvider provider(String kind) {
        if (!loaded) {
            synchronized (PROVIDERS) {
                if (!loaded) {
                    for (FireTimesProvider p : ServiceLoader.load(FireTimesProvider.class,
                            ScheduleSpec.class.getClassLoader())) {
                        PROVIDERS.putIfAbsent(p.kind(), p);
                    }
                    loaded = true;
                }
            }
        }
        FireTimesProvider p = PROVIDERS.get(kind);
        if (p != null) {
            return p;
        }
        if (kind.equals(CRON)) {
            throw new IllegalStateException("cron schedules need the echomq-cron module on the class path");
        }
        throw new IllegalArgumentException("unknown schedule kind '" + kind + "': use every:<duration> or "
                + "cron:<expression>");
    }

    /**
     * @param zone a zone id
     * @return the zone
     * @throws IllegalArgumentException if null, blank or unknown
     */
    static ZoneId zone(String zone) {
        if (zone == null || zone.isBlank()) {
            throw new IllegalArgumentException("time zone must not be null or blank");
        }
        try {
            return ZoneId.of(zone.strip());
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("unknown time zone '" + zone + "': use an id such as Europe/Berlin "
                    + "or UTC");
        }
    }

    /** @return the stored form, {@code <kind>:<expression>}, for example {@code every:PT5M} or {@code cron:0 9 * * *} */
    public String text() {
        return kind + ":" + expression;
    }

    /** @return {@link #EVERY}, {@link #CRON} or another provider's kind */
    public String kind() {
        return kind;
    }

    /** @return the expression after the kind: an ISO-8601 duration for {@code every} */
    public String expression() {
        return expression;
    }

    /** @return the zone the expression is read in ({@code UTC} for {@code every}) */
    public ZoneId zone() {
        return zone;
    }

    /**
     * @return the first fire time strictly after {@code after}, or empty when the schedule never
     *     fires again
     * @throws IllegalArgumentException if {@code after} is null
     */
    public Optional<Instant> nextAfter(Instant after) {
        Checks.notNull(after, "after");
        return times.nextAfter(after);
    }

    FireTimes fireTimes() {
        return times;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScheduleSpec && ((ScheduleSpec) o).text().equals(text())
                && ((ScheduleSpec) o).zone.equals(zone);
    }

    @Override
    public int hashCode() {
        return text().hashCode() * 31 + zone.hashCode();
    }

    @Override
    public String toString() {
        return text() + (kind.equals(EVERY) ? "" : " (" + zone.getId() + ")");
    }
}
