package io.echomq.bench.loop;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The line format a peer process prints for each figure and the driver parses:
 * {@code RESULT key=value key=value …}, one line per measurement, values without spaces.
 * Anything else a peer prints is passed through as progress.
 *
 * <pre>
 * RESULT peer=redisson bench=distinct threads=16 ops=61234 seconds=5.001 per_s=12244.1 p50_us=1210.0 p99_us=3010.5
 * </pre>
 */
public final class ResultLine {
    /** The prefix of every result line. */
    public static final String PREFIX = "RESULT ";

    private ResultLine() {
    }

    /**
     * Formats {@code fields} as a result line.
     *
     * @throws IllegalArgumentException if a key or value is empty or holds a space or '='
     *     (values may hold '=' only after the first one)
     */
    public static String format(Map<String, ?> fields) {
        StringBuilder b = new StringBuilder(PREFIX);
        boolean first = true;
        for (Map.Entry<String, ?> e : fields.entrySet()) {
            String k = e.getKey();
            String v = value(e.getValue());
            if (k.isEmpty() || k.contains(" ") || k.contains("=") || v.isEmpty() || v.contains(" ")) {
                throw new IllegalArgumentException("bad result field '" + k + "'='" + v + "'");
            }
            if (!first) {
                b.append(' ');
            }
            b.append(k).append('=').append(v);
            first = false;
        }
        return b.toString();
    }

    /**
     * @return the fields of {@code line}, in order, or null if it is not a result line
     * @throws IllegalArgumentException if the line starts with {@link #PREFIX} but a field has no '='
     */
    public static Map<String, String> parse(String line) {
        if (line == null || !line.startsWith(PREFIX)) {
            return null;
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String part : line.substring(PREFIX.length()).trim().split(" +")) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("result field without '=': " + part + " in: " + line);
            }
            out.put(part.substring(0, eq), part.substring(eq + 1));
        }
        return out;
    }

    /**
     * The usual fields of one {@link LoadLoop} run, after {@code head} (peer, bench, threads, …).
     *
     * @return head, then ops, seconds, per_s, p50_us, p99_us
     */
    public static Map<String, Object> of(Map<String, ?> head, LoadLoop.Stats s) {
        Map<String, Object> m = new LinkedHashMap<>(head);
        m.put("ops", s.ops());
        m.put("seconds", String.format(Locale.ROOT, "%.3f", s.elapsedNanos() / 1e9));
        m.put("per_s", String.format(Locale.ROOT, "%.1f", s.perSecond()));
        m.put("p50_us", String.format(Locale.ROOT, "%.1f", s.quantileMicros(0.50)));
        m.put("p99_us", String.format(Locale.ROOT, "%.1f", s.quantileMicros(0.99)));
        return m;
    }

    private static String value(Object o) {
        if (o instanceof Double d) {
            return String.format(Locale.ROOT, "%.1f", d);
        }
        return String.valueOf(o);
    }
}
