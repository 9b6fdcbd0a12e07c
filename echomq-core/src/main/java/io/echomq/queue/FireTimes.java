package io.echomq.queue;

import java.time.Instant;
import java.util.Optional;

/**
 * The fire times of one recurring schedule: the service interface that every kind of
 * {@link ScheduleSpec} implements. Core implements the fixed interval ({@code every:}); the
 * {@code echomq-cron} module implements {@code cron:} through a {@link FireTimesProvider}.
 *
 * <p>An implementation is immutable, thread-safe, and a pure function of its spec: every client
 * that reads the same stored spec must compute the same fire times, since exactly-once firing keys
 * each job by the schedule id and its fire time.
 */
public interface FireTimes {
    /**
     * @param after an instant
     * @return the first fire time strictly after {@code after}, in whole milliseconds, or empty when
     *     the schedule never fires again
     * @throws IllegalArgumentException if {@code after} is null
     */
    Optional<Instant> nextAfter(Instant after);
}
