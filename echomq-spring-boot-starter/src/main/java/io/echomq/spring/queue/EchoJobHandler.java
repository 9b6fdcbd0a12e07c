package io.echomq.spring.queue;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a bean method the handler of a queue: a {@code Worker} runs it for each job from the time
 * the application context starts until it stops (gracefully, within
 * {@code echomq.worker.shutdown-grace}). Named apart from the core's {@code io.echomq.queue.JobHandler}
 * interface, which it adapts.
 *
 * <pre>{@code
 * @EchoJobHandler(queue = "emails", concurrency = 8, lease = "2m")
 * public void send(Email email, Job job) { ... }
 * }</pre>
 *
 * <ul>
 *   <li><b>Parameters</b>, each optional, in any order: one payload parameter, {@code byte[]} (as
 *       stored), {@code String} (UTF-8) or any type the {@link PayloadCodec} reads (JSON through the
 *       application's Jackson mapper by default); and an {@code io.echomq.queue.Job}, for the id,
 *       the attempt, {@code extend} and {@code progress}.</li>
 *   <li><b>Outcome</b>: returning completes the job; the return value is ignored. An exception
 *       fails it under the queue's retry rules (the job's backoff and attempts, or the
 *       {@link #retryPolicy()} bean's rules); {@code io.echomq.queue.NonRetryableException} sends it to
 *       dead at once, and so does a payload that does not decode as the parameter's type.</li>
 *   <li><b>Stop</b>: when the job's lease is lost (a cancel, a shutdown past its grace) or its
 *       timeout fires, the method is asked to stop through its {@code Job} parameter
 *       ({@code job.stopRequested()}, {@code job.stopSignal()}), as with any worker; its thread is
 *       interrupted only with {@code echomq.worker.interrupt-handlers=true}.</li>
 * </ul>
 * A method with an invalid setting or an unreadable parameter type fails startup with an
 * {@link IllegalStateException} naming it.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface EchoJobHandler {
    /** @return the queue's name; {@code ${...}} placeholders are resolved */
    String queue();

    /** @return how many jobs this method handles at once, 1 to 10 000 */
    int concurrency() default 1;

    /** @return each job's lease, renewed at a third while the method runs: {@code 30s}, {@code PT2M}, or a placeholder */
    String lease() default "30s";

    /** @return the name of a {@code io.echomq.queue.RetryPolicy} bean, or empty for the default rules */
    String retryPolicy() default "";
}
