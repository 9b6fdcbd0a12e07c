package io.echomq.cron;

import com.cronutils.model.time.ExecutionTime;
import io.echomq.queue.FireTimes;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.util.Optional;

/**
 * The fire times of one cron expression in one zone, with a rule for each DST change:
 *
 * <ul>
 *   <li><b>Gap</b> (clocks jump forward, e.g. 02:00 → 03:00 in Europe/Berlin on the last Sunday
 *       of March): a wall-clock time the expression names inside the gap does not exist. The
 *       schedule fires once at the instant of the jump (03:00 local), as Vixie cron does, instead
 *       of skipping the day: {@code 30 2 * * *} fires at 03:00 that day. A time the jump lands on
 *       anyway (an hourly {@code 0 * * * *} at 03:00) fires once, not twice.</li>
 *   <li><b>Overlap</b> (clocks go back, 03:00 → 02:00 on the last Sunday of October): cron-utils'
 *       own rule. An expression that fixes the hour ({@code 30 2 * * *}) fires once, at the first
 *       02:30 (summer time); one whose hour field is {@code *} ({@code 0 * * * *}) fires in every
 *       real hour, the repeated one included, as a fixed interval would.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
final class CronFireTimes implements FireTimes {
    private final ExecutionTime times;
    private final ZoneId zone;
    private final ChronoUnit unit;

    CronFireTimes(ExecutionTime times, ZoneId zone, boolean seconds) {
        this.times = times;
        this.zone = zone;
        this.unit = seconds ? ChronoUnit.SECONDS : ChronoUnit.MINUTES;
    }

    @Override
    public Optional<Instant> nextAfter(Instant after) {
        if (after == null) {
            throw new IllegalArgumentException("after must not be null");
        }
        Optional<Instant> next = times.nextExecution(after.atZone(zone)).map(t -> t.toInstant().truncatedTo(unit));
        if (next.isEmpty()) {
            return next;   // the expression names no date at all (Feb 30): no gap can hold one either
        }
        // A gap before the next fire time that swallowed a fire time: fire at the jump instead.
        ZoneOffsetTransition t = zone.getRules().nextTransition(after);
        while (t != null && !t.getInstant().isAfter(next.get())) {
            if (t.isGap() && t.getInstant().isAfter(after) && matchesWithin(t.getDateTimeBefore(), t.getDateTimeAfter(), t)) {
                return Optional.of(t.getInstant());
            }
            t = zone.getRules().nextTransition(t.getInstant());
        }
        return next;
    }

    /** @return whether the expression names a wall-clock time in [from, to), read as if the clocks had not moved */
    private boolean matchesWithin(LocalDateTime from, LocalDateTime to, ZoneOffsetTransition t) {
        ZonedDateTime start = from.minus(1, unit).atOffset(t.getOffsetBefore()).atZoneSameInstant(t.getOffsetBefore());
        return times.nextExecution(start).map(n -> n.toLocalDateTime().isBefore(to)).orElse(false);
    }

    @Override
    public String toString() {
        return "cron in " + zone;
    }
}
