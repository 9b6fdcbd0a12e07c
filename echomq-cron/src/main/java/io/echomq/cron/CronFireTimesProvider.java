package io.echomq.cron;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinition;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import io.echomq.queue.FireTimes;
import io.echomq.queue.FireTimesProvider;
import io.echomq.queue.ScheduleSpec;
import java.time.ZoneId;

/**
 * The {@code cron:} kind of {@link ScheduleSpec}, parsed by cron-utils; found by
 * {@link java.util.ServiceLoader} (nothing to call: put this module on the class path).
 *
 * <ul>
 *   <li><b>5 fields</b> ({@code minute hour day-of-month month day-of-week}) are read as Unix cron;
 *       <b>6 fields</b> put seconds first and are read as Spring's cron (which also takes
 *       {@code L}, {@code W}, {@code #} and {@code ?}). Day of week 0 and 7 are Sunday, and names
 *       ({@code MON-FRI}, {@code JAN}) are accepted.</li>
 *   <li>The expression is read in the schedule's zone; DST is handled by {@link CronFireTimes}.</li>
 * </ul>
 *
 * <p>Thread-safe: the parsers are built once.
 */
public final class CronFireTimesProvider implements FireTimesProvider {
    private static final CronParser FIVE = parser(CronType.UNIX);
    private static final CronParser SIX = parser(CronType.SPRING53);

    /** For {@link java.util.ServiceLoader}. */
    public CronFireTimesProvider() {
    }

    private static CronParser parser(CronType type) {
        CronDefinition d = CronDefinitionBuilder.instanceDefinitionFor(type);
        return new CronParser(d);
    }

    /** @return {@value ScheduleSpec#CRON} */
    @Override
    public String kind() {
        return ScheduleSpec.CRON;
    }

    /**
     * @param expression 5 or 6 fields separated by blanks
     * @param zone       the zone the expression is read in
     * @return its fire times
     * @throws IllegalArgumentException if the expression does not have 5 or 6 fields or does not parse,
     *     with the parser's reason
     */
    @Override
    public FireTimes parse(String expression, ZoneId zone) {
        if (expression == null || zone == null) {
            throw new IllegalArgumentException("cron expression and zone must not be null");
        }
        String expr = expression.strip();
        int fields = expr.isEmpty() ? 0 : expr.split("\\s+").length;
        if (fields != 5 && fields != 6) {
            throw new IllegalArgumentException("cron expression '" + expr + "' has " + fields
                    + " fields; use 5 (minute hour day-of-month month day-of-week) or 6 (seconds first)");
        }
        Cron cron;
        try {
            cron = (fields == 5 ? FIVE : SIX).parse(expr).validate();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("bad cron expression '" + expr + "': " + e.getMessage());
        }
        return new CronFireTimes(ExecutionTime.forCron(cron), zone, fields == 6);
    }
}
