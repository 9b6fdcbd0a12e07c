package io.echomq.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Hostile inputs for bad-input suites: strings with braces, colons, blanks, line breaks, control
 * characters, unicode (including unpaired surrogates), binary-looking text and huge lengths, and
 * numbers at and around every boundary. Generation is seeded, so a failing case reproduces: the
 * seed is {@value #DEFAULT_SEED} unless the system property {@value #SEED_PROPERTY} names another,
 * and {@link #cases} puts the seed and the case number in every case's name.
 *
 * <pre>{@code
 * static Stream<Arguments> resources() {
 *     return Garbage.cases(200, g -> Arguments.of(g.string()));
 * }
 * }</pre>
 *
 * <p>Not thread-safe: one instance per generating thread.
 */
public final class Garbage {
    /** The seed used when {@value #SEED_PROPERTY} is not set. */
    public static final long DEFAULT_SEED = 20261130L;
    /** System property that overrides the seed, to explore or to reproduce another run. */
    public static final String SEED_PROPERTY = "emq.garbage.seed";

    private static final char[] NASTY = {
        '{', '}', ':', ' ', '\n', '\r', '\t', '\0', '*', '?', '[', ']', '\\', '"', '\'', '-', '=', '@', '/',
        '\u00e9', '\u4e2d', '\u200b', '\u007f', '\u0085', '\u00a0', '\u2028', '\ufeff', '\uD800', '\uDC00',
    };
    private static final String[] WHOLE = {
        "", " ", "{", "}", "{}", "}{", ":", "::", "a}b", "{a}", "}x", "x{", "7:lock", "1:lock", "job:1", "\n",
        "a b", "\uD83D\uDE00", "a\uD83D\uDE00}b", "\uD800", "a\uDC00", "null", "-1", "0", "--help", "-", "*",
        "emq:{q}:pending", "\u0000\u0001\u0002", "\u00ff\u00fe",
    };

    private final SplittableRandom random;
    private final long seed;

    /**
     * @param seed the seed of this generator's sequence
     */
    public Garbage(long seed) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
    }

    /**
     * @return the seed named by {@value #SEED_PROPERTY}, or {@link #DEFAULT_SEED}
     * @throws NumberFormatException if the property is set to something that is not a long
     */
    public static long seed() {
        String s = System.getProperty(SEED_PROPERTY);
        return s == null || s.isBlank() ? DEFAULT_SEED : Long.parseLong(s.trim());
    }

    /**
     * Generates {@code count} cases from one generator seeded with {@link #seed()}, for a
     * {@code @MethodSource}. Each case is built by {@code build}; put {@link #show} of the input
     * in assertion messages, and name the seed ({@link #seedValue()}) when reporting a failure.
     *
     * @param count how many cases, at least 1
     * @param build makes one case from the generator
     * @return the cases, in generation order
     * @throws IllegalArgumentException if count is below 1
     * @throws NullPointerException if build is null
     */
    public static <T> Stream<T> cases(int count, Function<Garbage, T> build) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        Objects.requireNonNull(build, "build");
        Garbage g = new Garbage(seed());
        List<T> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(build.apply(g));
        }
        return out.stream();
    }

    /** @return the seed this generator started from */
    public long seedValue() {
        return seed;
    }

    /** @return a uniformly drawn int in {@code [min, max]} */
    public int between(int min, int max) {
        return (int) betweenLong(min, max);
    }

    /** @return a uniformly drawn long in {@code [min, max]} (the whole range when min is Long.MIN_VALUE and max Long.MAX_VALUE) */
    public long betweenLong(long min, long max) {
        if (min == Long.MIN_VALUE && max == Long.MAX_VALUE) {
            return random.nextLong();
        }
        return random.nextLong(min, max == Long.MAX_VALUE ? max : max + 1);
    }

    /** @return true with probability {@code p} */
    public boolean chance(double p) {
        return random.nextDouble() < p;
    }

    /** @return one of {@code options}, uniformly */
    @SafeVarargs
    public final <T> T oneOf(T... options) {
        return options[random.nextInt(options.length)];
    }

    /**
     * A number near a boundary more often than not: one of {@code boundaries} plus -2..2, else any
     * long, else any int.
     *
     * @param boundaries the values the code under test treats specially (limits, zero)
     * @return the number
     */
    public long around(long... boundaries) {
        int pick = random.nextInt(10);
        if (pick < 7 && boundaries.length > 0) {
            long b = boundaries[random.nextInt(boundaries.length)];
            long delta = random.nextInt(5) - 2;
            long v = b + delta;
            // no wrap-around: near Long.MIN_VALUE/MAX_VALUE stay at the edge
            return (delta > 0 && v < b) || (delta < 0 && v > b) ? b : v;
        }
        return pick < 9 ? random.nextLong() : random.nextInt();
    }

    /**
     * A hostile string: a known troublemaker, a mix of hostile and plain characters, any UTF-16
     * units (unpaired surrogates included), or a long run near 1 KiB or 64 KiB.
     *
     * @return the string; may be empty
     */
    public String string() {
        switch (random.nextInt(6)) {
            case 0:
                return oneOf(WHOLE);
            case 1:
                return mixed(random.nextInt(40));
            case 2:
                return anyUnits(random.nextInt(30));
            case 3:
                return plain(1 + random.nextInt(12)) + NASTY[random.nextInt(NASTY.length)] + plain(random.nextInt(6));
            case 4:
                return "x".repeat(1000 + random.nextInt(100)) + (chance(0.5) ? "\u00e9" : "");
            default:
                return plain(1 + random.nextInt(30));
        }
    }

    /** @return {@code length} characters mixing hostile ones with a, b and c */
    public String mixed(int length) {
        StringBuilder b = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            b.append(chance(0.5) ? NASTY[random.nextInt(NASTY.length)] : (char) ('a' + random.nextInt(3)));
        }
        return b.toString();
    }

    /** @return {@code length} arbitrary UTF-16 code units, any of 0..0xFFFF */
    public String anyUnits(int length) {
        StringBuilder b = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            b.append((char) random.nextInt(0x10000));
        }
        return b.toString();
    }

    /** @return {@code length} characters from a-z, 0-9, '-' and '_' */
    public String plain(int length) {
        String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-_";
        StringBuilder b = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            b.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return b.toString();
    }

    /** @return {@code length} random bytes */
    public byte[] bytes(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) random.nextInt(256);
        }
        return b;
    }

    /**
     * @param s any string, or null
     * @return {@code s} quoted, with every character outside printable ASCII written as {@code \\uXXXX},
     *     shortened to its first 80 characters plus its length when longer: safe in test names and messages
     */
    public static String show(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < Math.min(s.length(), 80); i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
                b.append(c);
            } else {
                b.append(String.format("\\u%04x", (int) c));
            }
        }
        b.append('"');
        if (s.length() > 80) {
            b.append("... (").append(s.length()).append(" chars)");
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return "Garbage[seed=" + seed + "]";
    }
}
