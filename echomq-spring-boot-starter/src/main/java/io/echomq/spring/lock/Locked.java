package io.echomq.spring.lock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a bean method only while holding an EchoMQ lock, across every process that shares the
 * Redis server. On a {@code @Scheduled} method this makes the task run on one node at a time
 * (with {@link WhenBusy#SKIP}, the default), with renewal and a lost signal.
 *
 * <pre>{@code
 * @Locked("'invoice:' + #id")
 * public void bill(long id, Lease lease) {          // the lease is passed in; callers pass null
 *     jdbc.update("UPDATE invoice SET fence = ? WHERE id = ? AND fence < ?", lease.fence(), id, lease.fence());
 * }
 * }</pre>
 *
 * <ul>
 *   <li><b>Resource</b>: {@link #value()} is a SpEL expression over the arguments, by name
 *       ({@code #id}, when compiled with {@code -parameters}, as Spring Boot's build plugins do) or
 *       by position ({@code #p0}, {@code #a0}); {@code @bean} names other beans. A constant needs
 *       quotes: {@code @Locked("'nightly-report'")}. The result's {@code toString()} is the resource,
 *       which must follow the lock name rule ({@code io.echomq.Names#lockResource}).</li>
 *   <li><b>Lease</b>: fenced, for {@link #ttl()}; with {@link #watchdog()} (the default) it is
 *       renewed at about a third of the ttl for as long as the method runs. It is released when the
 *       method returns or throws, or, with {@link #lockAtLeastFor()}, left to expire once that
 *       time since the acquisition has passed.</li>
 *   <li><b>Lease parameter</b>: a parameter of type {@code io.echomq.lock.Lease} receives the
 *       lease (whatever the caller passed), so the method can write {@code lease.fence()} to a row in
 *       its transaction. The lock's advice runs outside {@code @Transactional}'s, so the lock is
 *       released after the commit.</li>
 *   <li><b>Loss</b>: when the lease is lost while the method runs, {@link LockedContext#checkHeld()}
 *       throws from then on and the lease's {@code lost()} future completes: the method stops
 *       cooperatively, between steps, or by attaching what ends its blocking call (a JDBC
 *       {@code Statement.cancel()}) to the lease's {@code onLost} listener. Its thread is not interrupted unless
 *       {@link #interruptOnLoss()} says so: on a virtual thread an interrupt closes the socket under
 *       a blocking call, which breaks a pooled connection the method borrowed. When the method
 *       returns (or throws) after a loss, its caller gets a {@link LockLostException}, never the
 *       result as though the lock had been held; an interrupt the loss caused is cleared then.</li>
 *   <li><b>Busy</b>: {@link #whenBusy()} says what happens when another holder has the lock.</li>
 * </ul>
 *
 * <p>Works through Spring AOP proxies: on public (or protected, with class proxies) methods of
 * beans, called from outside the bean. A method returning a {@code Future}, a
 * {@code CompletionStage} or a reactive {@code Publisher} is refused at startup, because its lock
 * would be released when the method returns, before the work ends. Settings that are not
 * durations, or an expression that does not parse, also fail at startup with an
 * {@link IllegalStateException} naming the method.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Locked {
    /** @return the SpEL expression whose value is the lock's resource */
    String value();

    /**
     * @return the lease's ttl: {@code 30s}, {@code 500ms}, {@code PT2M}, or a {@code ${property}}
     *     placeholder; 1 ms to 1 day
     */
    String ttl() default "30s";

    /**
     * How long the lock stays taken, at least, counted from when it was acquired, as ShedLock's
     * {@code lockAtLeastFor}: when the method returns (or throws) sooner, the lock is not deleted
     * but left to expire on the server at acquisition + this time, unrenewed (the watchdog stops
     * when the method returns). So a second node whose clock or schedule is slightly off finds it
     * taken and does not run the same task again right away. A method that ran longer is released
     * at once, as without it. A lease lost while the method ran is not lengthened.
     *
     * <p>Written as {@link #ttl()} is ({@code 10s}, {@code 500ms}, {@code PT1M}, or a
     * {@code ${property}} placeholder). Empty (the default) or zero: released at once. It must not
     * be negative nor longer than {@link #ttl()}; either fails at startup with an
     * {@link IllegalStateException} naming the method. A longer one is refused rather than cut
     * to the ttl, because a cut would quietly hold the lock for less than the annotation says,
     * which is the double run this setting exists to prevent; and the ttl is the longest a
     * crashed holder keeps the lock, so at-least cannot promise more than it.
     *
     * @return the shortest time the lock is held, from its acquisition; empty for none
     */
    String lockAtLeastFor() default "";

    /** @return how long {@link WhenBusy#WAIT} waits for the lock; ignored by the other policies */
    String maxWait() default "10s";

    /**
     * @return whether the lease is renewed while the method runs; without it, a method that
     *     outlives the ttl loses the lease at the ttl and is told as above
     */
    boolean watchdog() default true;

    /** @return what to do when another holder has the lock; {@link WhenBusy#SKIP} by default */
    WhenBusy whenBusy() default WhenBusy.SKIP;

    /**
     * @return whether a lost lease also interrupts the method's thread while it runs; false by
     *     default, because an interrupt closes the socket under a blocking call on a virtual thread
     *     (and an NIO channel on any thread), breaking a connection the method borrowed from a
     *     pool. Set it for methods whose blocking calls own what they use (a sleep, a wait).
     */
    boolean interruptOnLoss() default false;
}
