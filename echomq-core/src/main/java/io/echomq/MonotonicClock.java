package io.echomq;

/**
 * A source of monotonic time in nanoseconds, used only for the client's own estimate of how long
 * it may still rely on a lease. Deadlines that other clients must agree on always come from the
 * Redis server's clock ({@code TIME} inside a script), never from this one.
 *
 * <p>Injected so that tests can advance time instead of sleeping, as Caffeine's {@code Ticker}.
 * Implementations must be thread-safe and never go backwards.
 */
@FunctionalInterface
public interface MonotonicClock {

    /** The JVM's monotonic clock, {@link System#nanoTime()}. */
    MonotonicClock SYSTEM = System::nanoTime;

    /** @return the current time in nanoseconds, from an arbitrary but fixed origin */
    long nanoTime();
}
