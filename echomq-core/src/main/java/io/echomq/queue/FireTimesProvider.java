package io.echomq.queue;

import java.time.ZoneId;

/**
 * Parses the expressions of one kind of schedule ({@code cron} for the {@code echomq-cron}
 * module), found through {@link java.util.ServiceLoader}. Core itself knows only the fixed interval
 * ({@code every}); a process without a provider for a stored kind cannot compute its fire times, so
 * its schedulers log that once and leave such schedules to processes that can
 * ({@code docs/queue.md}, "Recurring schedules").
 *
 * <p>An implementation has a public no-argument constructor and is thread-safe.
 */
public interface FireTimesProvider {
    /** @return the kind this provider parses, the prefix of the stored spec before {@code ':'}, e.g. {@code cron} */
    String kind();

    /**
     * @param expression the spec after {@code <kind>:}
     * @param zone       the schedule's time zone, in which the expression is read
     * @return the fire times
     * @throws IllegalArgumentException if the expression is malformed, with a message that says why
     */
    FireTimes parse(String expression, ZoneId zone);
}
