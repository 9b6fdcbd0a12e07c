package io.echomq.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Argument checks shared by the public API: each throws before Redis is touched. */
public final class Checks {
    /** Longest resource or key name accepted, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 1024;

    private Checks() {
    }

    /**
     * @return {@code name}, once known to be non-null, non-empty, well-formed UTF-16 (no unpaired
     *     surrogate) and at most {@link #MAX_NAME_BYTES} bytes of UTF-8
     * @throws IllegalArgumentException otherwise, naming {@code what}
     */
    public static String name(String name, String what) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be null or empty");
        }
        checkUtf16(name, what);
        if (name.length() <= MAX_NAME_BYTES / 3) {
            return name;   // a char is at most 3 bytes of UTF-8 (a surrogate pair 4 for 2), so it fits: no encoding needed
        }
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_NAME_BYTES) {
            throw new IllegalArgumentException(what + " is " + bytes + " bytes long; the maximum is "
                    + MAX_NAME_BYTES + " bytes");
        }
        return name;
    }

    /**
     * Checks a lock resource name. The resource becomes the hash tag of its keys
     * ({@code <ns>{<resource>}:lock}), so it may not hold a brace: a '}' would end the tag early
     * (a leading one empties it, and then the lock and its fence land in different cluster
     * slots), and a '{' makes the key ambiguous to read.
     *
     * @return {@code resource}, once known to be a valid {@link #name} without '{' or '}'
     * @throws IllegalArgumentException otherwise
     */
    public static String resource(String resource) {
        name(resource, "resource");
        int brace = indexOfBrace(resource);
        if (brace >= 0) {
            throw new IllegalArgumentException("resource must not contain '{' or '}' (it is the hash tag of the "
                    + "lock's keys); found '" + resource.charAt(brace) + "' at index " + brace);
        }
        return resource;
    }

    /**
     * Checks a job id given by a caller. Job keys are {@code emq:{q}:job:<id>} and lock subkeys
     * {@code emq:{q}:job:<id>:lock}, so an id holding ':' could name another job's lock subkey
     * (id {@code 7:lock} is job 7's lock); such ids are refused here and by the scripts.
     *
     * @return {@code id}, once known to be a valid {@link #name} without ':'
     * @throws IllegalArgumentException otherwise
     */
    public static String jobId(String id) {
        name(id, "job id");
        int colon = id.indexOf(':');
        if (colon >= 0) {
            throw new IllegalArgumentException("job id must not contain ':' (it would alias another job's keys); "
                    + "found at index " + colon);
        }
        return id;
    }

    /**
     * Refuses a string holding an unpaired surrogate. It has no UTF-8 form: the encoder writes
     * '?' in its place, so {@code "a\uD800"} and {@code "a?"} would name the same key.
     *
     * @throws IllegalArgumentException if {@code s} is not well-formed UTF-16, naming {@code what}
     */
    public static void checkUtf16(String s, String what) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException(what + " holds an unpaired surrogate U+"
                        + String.format("%04X", (int) c) + " at index " + i + "; it has no UTF-8 form");
            }
        }
    }

    private static int indexOfBrace(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '{' || c == '}') {
                return i;
            }
        }
        return -1;
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
