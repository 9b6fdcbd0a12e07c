package io.echomq.spring.queue;

import io.echomq.queue.MissedFires;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a recurring schedule that enqueues jobs for the {@link EchoJobHandler} method it sits
 * on: the schedule lives in the handler's queue, so each fire is handled by that method. Put it on
 * the same method as {@code @EchoJobHandler}; on any other method it fails startup.
 *
 * <pre>{@code
 * @EchoJobHandler(queue = "billing")
 * @EchoSchedule(name = "nightly-billing", cron = "0 0 2 * * *", zone = "Europe/Paris",
 *               missed = MissedFires.ONCE, payload = "{\"run\":\"nightly\"}")
 * public void bill(Run run, Job job) {
 *     Instant firedFor = job.scheduledFor().orElseThrow();
 * }
 * }</pre>
 *
 * <ul>
 *   <li><b>Startup</b>: every annotated schedule is upserted ({@code io.echomq.queue.Schedules#upsert})
 *       once the context is refreshed, just before the workers start. An upsert that changes
 *       nothing keeps the stored next fire time, so any number of instances starting together
 *       store one schedule and skip no fire time.</li>
 *   <li><b>Removal</b>: a schedule no longer declared stays in Redis unless
 *       {@code echomq.schedules.remove-unknown=true}, which removes, at startup, every schedule of
 *       the queues this application has handlers for that no {@code @EchoSchedule} names. Redis
 *       does not record which application created a schedule, so that includes schedules created
 *       by code or the CLI on those queues.</li>
 *   <li><b>When</b>: exactly one of {@link #cron()} and {@link #every()}. Cron needs the
 *       {@code echomq-cron} module on the class path.</li>
 *   <li><b>Checks</b>: a bad value (no or both of cron and every, a malformed cron, an unknown zone,
 *       an invalid name, a queue other than the handler's) fails startup with an
 *       {@link IllegalStateException} naming the method and the attribute.</li>
 * </ul>
 * Every text attribute resolves {@code ${...}} placeholders.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface EchoSchedule {
    /** @return the schedule's id, unique within its queue: no whitespace, '{' or '}', at most 200 bytes */
    String name();

    /** @return the queue, which must be the handler's own; empty (the default) for the handler's queue */
    String queue() default "";

    /** @return a cron expression, 5 fields or 6 (seconds first), read in {@link #zone()}; empty when {@link #every()} is given */
    String cron() default "";

    /** @return a fixed interval ({@code PT5M}, {@code 5m}, {@code 30s}), at least 100 ms; empty when {@link #cron()} is given */
    String every() default "";

    /** @return the time zone of {@link #cron()} (for example {@code Europe/Paris}); must stay UTC for {@link #every()} */
    String zone() default "UTC";

    /** @return what is done with fire times missed while no scheduler ran */
    MissedFires missed() default MissedFires.SKIP;

    /** @return the most missed fire times {@link MissedFires#ALL} fires, 1 to 1000 */
    int maxMissed() default 10;

    /** @return the payload of every job fired, as UTF-8 text (JSON for a typed parameter) */
    String payload() default "";

    /** @return the priority of every job fired */
    int priority() default 0;

    /** @return the max attempts of every job fired; 0 for the queue's default */
    int maxAttempts() default 0;
}
