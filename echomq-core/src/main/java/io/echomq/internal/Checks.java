package io.echomq.internal;

import io.echomq.Names;
import java.time.Duration;

/**
 * Argument checks shared by the public API: each throws before Redis is touched. The naming rules
 * are {@link Names}', the public statement of them; the checks here that name them forward to it.
 */
public final class Checks {
    /** Longest resource or key name accepted, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = Names.MAX_BYTES;

    private Checks() {
    }

    /**
     * @return {@code name}, once known to follow the rule of every name ({@link Names#check})
     * @throws IllegalArgumentException otherwise, naming {@code what}
     */
    public static String name(String name, String what) {
        return Names.check(name, what);
    }

    /**
     * @return {@code resource}, once known to be a valid lock resource ({@link Names#lockResource})
     * @throws IllegalArgumentException otherwise
     */
    public static String resource(String resource) {
        return Names.lockResource(resource);
    }

    /**
     * @return {@code id}, once known to be a valid job id ({@link Names#jobId})
     * @throws IllegalArgumentException otherwise
     */
    public static String jobId(String id) {
        return Names.jobId(id);
    }

    /**
     * @return {@code ttl} in whole milliseconds
     * @throws IllegalArgumentException if null, under 1 ms, or over {@code max}
     */
    public static long ttlMillis(Duration ttl, Duration max, String what) {
        if (ttl == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + ttl);
        }
        if (ttl.compareTo(max) > 0) {
            throw new IllegalArgumentException(what + " " + ttl + " is above the maximum of " + max);
        }
        long ms = ttl.toMillis();
        if (ms < 1) {
            throw new IllegalArgumentException(what + " must be at least 1 ms, was " + ttl);
        }
        return ms;
    }

    /**
     * @return {@code wait} in nanoseconds, saturated at {@link Long#MAX_VALUE}
     * @throws IllegalArgumentException if null or negative
     */
    public static long waitNanos(Duration wait, String what) {
        if (wait == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        if (wait.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative, was " + wait);
        }
        try {
            return wait.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * @throws IllegalArgumentException if {@code value} is null, naming {@code what}
     */
    public static <T> T notNull(T value, String what) {
        if (value == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        return value;
    }
}
