package io.echomq.spring.queue;

import io.echomq.queue.Schedule;
import io.echomq.queue.ScheduleSpec;
import java.util.function.UnaryOperator;
import org.springframework.boot.convert.DurationStyle;

/**
 * One checked {@link EchoSchedule}: the core {@link Schedule} it declares and the queue it goes to.
 * Each attribute is checked by the core's own factory, so the starter accepts exactly what
 * {@code Schedule} and {@code ScheduleSpec} accept; a refusal names the method and the attribute.
 *
 * @param queue    the handler's queue
 * @param schedule the schedule to upsert there
 */
record ScheduleDeclaration(String queue, Schedule schedule) {

    /**
     * @param a            the annotation
     * @param handlerQueue the queue of the handler method it sits on
     * @param method       the method, as messages name it
     * @param resolve      resolves {@code ${...}} placeholders
     * @throws IllegalStateException naming the method and the attribute if a value is refused
     */
    static ScheduleDeclaration of(EchoSchedule a, String handlerQueue, String method, UnaryOperator<String> resolve) {
        String name = resolve.apply(a.name());
        String at = "@EchoSchedule on " + method + ": ";
        try {
            Schedule.checkId(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(at + "name: " + e.getMessage(), e);
        }
        at = "@EchoSchedule(name = \"" + name + "\") on " + method + ": ";
        String queue = resolve.apply(a.queue());
        if (!queue.isEmpty() && !queue.equals(handlerQueue)) {
            throw new IllegalStateException(at + "queue: '" + queue + "' is not the handler's queue '" + handlerQueue
                    + "'; leave it empty or give the handler's");
        }
        String cron = resolve.apply(a.cron()).strip();
        String every = resolve.apply(a.every()).strip();
        String zone = resolve.apply(a.zone()).strip();
        if (cron.isEmpty() == every.isEmpty()) {
            throw new IllegalStateException(at + "cron, every: give exactly one of them, "
                    + (cron.isEmpty() ? "neither was given" : "both were given"));
        }
        ScheduleSpec spec;
        if (!every.isEmpty()) {
            if (!zone.equals("UTC")) {
                throw new IllegalStateException(at + "zone: an 'every' interval ignores the zone; leave it UTC, was '"
                        + zone + "'");
            }
            spec = every(every, at);
        } else {
            spec = cron(cron, zone, at);
        }
        Schedule s = Schedule.of(name, spec, resolve.apply(a.payload())).withMissed(a.missed());
        s = apply(at + "maxMissed: ", s, x -> x.withMaxMissed(a.maxMissed()));
        s = apply(at + "priority: ", s, x -> x.withPriority(a.priority()));
        if (a.maxAttempts() != 0) {
            s = apply(at + "maxAttempts: ", s, x -> x.withMaxAttempts(a.maxAttempts()));
        }
        return new ScheduleDeclaration(handlerQueue, s);
    }

    private static ScheduleSpec every(String text, String at) {
        java.time.Duration d;
        try {
            d = DurationStyle.detectAndParse(text);
        } catch (RuntimeException e) {
            throw new IllegalStateException(at + "every: '" + text + "' is not a duration (PT5M, 5m, 30s)", e);
        }
        try {
            return ScheduleSpec.every(d);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(at + "every: " + e.getMessage(), e);
        }
    }

    private static ScheduleSpec cron(String expression, String zone, String at) {
        java.time.ZoneId id;
        try {
            id = java.time.ZoneId.of(zone);
        } catch (java.time.DateTimeException e) {
            throw new IllegalStateException(at + "zone: unknown time zone '" + zone
                    + "'; use an id such as Europe/Paris or UTC", e);
        }
        try {
            return ScheduleSpec.cron(expression, id);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new IllegalStateException(at + "cron: '" + expression + "': " + e.getMessage(), e);
        }
    }

    private static Schedule apply(String at, Schedule s, UnaryOperator<Schedule> set) {
        try {
            return set.apply(s);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(at + e.getMessage(), e);
        }
    }
}
