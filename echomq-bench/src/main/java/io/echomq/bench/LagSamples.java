package io.echomq.bench;

import io.echomq.lock.LossReason;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The renewal lags that {@link RenewalProbe}s measured, and the leases they saw lost. Thread-safe.
 *
 * <p>A renewal is <em>late</em> when its answer came more than a third of the ttl after it was
 * due: by then the next renewal would have been due too, so one renewal window was missed.
 */
final class LagSamples {
    private long[] sent = new long[256];
    private long[] answered = new long[256];
    private int count;
    private int late;
    private final Map<LossReason, Integer> lost = new EnumMap<>(LossReason.class);

    /** Adds one renewal: its send and answer lags after it was due, of a lease of {@code ttlNanos}. */
    synchronized void add(long sentLagNanos, long answerLagNanos, long ttlNanos) {
        if (count == sent.length) {
            sent = Arrays.copyOf(sent, count * 2);
            answered = Arrays.copyOf(answered, count * 2);
        }
        sent[count] = sentLagNanos;
        answered[count] = answerLagNanos;
        count++;
        if (answerLagNanos > ttlNanos / 3) {
            late++;
        }
    }

    /** Counts one lost lease. */
    synchronized void lost(LossReason reason) {
        lost.merge(reason, 1, Integer::sum);
    }

    /** @return how many renewals were measured */
    synchronized int count() {
        return count;
    }

    /** @return how many renewals were answered more than ttl/3 after they were due */
    synchronized int late() {
        return late;
    }

    /** @return how many leases were lost in all */
    synchronized int lostCount() {
        return lost.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** @return the largest answer lag, in ms; 0 when there is no sample */
    synchronized double maxAnswerMillis() {
        return count == 0 ? 0 : millis(percentile(answered, 1.0));
    }

    /**
     * @return one line per kind of lag: p50/p90/p99/max in ms, e.g.
     *     {@code sent     p50 0.4 p90 1.1 p99 3.0 max 4.2 ms}
     */
    synchronized String describe() {
        return "sent after due:      " + line(sent) + "\n"
                + "answered after due:  " + line(answered) + "\n"
                + "renewals: " + count + ", answered later than ttl/3 after due: " + late
                + ", leases lost: " + (lost.isEmpty() ? "0" : lost.toString());
    }

    /** @return the machine-readable fields of {@link #describe()} */
    synchronized String summary() {
        long[] a = sorted(answered);
        long[] s = sorted(sent);
        return String.format(java.util.Locale.ROOT,
                "renewals=%d sent_p50_ms=%.1f sent_p99_ms=%.1f sent_max_ms=%.1f answered_p50_ms=%.1f "
                        + "answered_p90_ms=%.1f answered_p99_ms=%.1f answered_max_ms=%.1f late=%d lost=%d",
                count, millis(at(s, 0.5)), millis(at(s, 0.99)), millis(at(s, 1.0)), millis(at(a, 0.5)), millis(at(a, 0.9)),
                millis(at(a, 0.99)), millis(at(a, 1.0)), late, lostCount());
    }

    private String line(long[] values) {
        if (count == 0) {
            return "no renewal measured";
        }
        long[] v = sorted(values);
        return String.format(java.util.Locale.ROOT, "p50 %7.1f  p90 %7.1f  p99 %7.1f  max %7.1f ms",
                millis(at(v, 0.5)), millis(at(v, 0.9)), millis(at(v, 0.99)), millis(at(v, 1.0)));
    }

    private long percentile(long[] values, double q) {
        return at(sorted(values), q);
    }

    private long[] sorted(long[] values) {
        long[] v = Arrays.copyOf(values, count);
        Arrays.sort(v);
        return v;
    }

    /** Nearest-rank percentile of sorted {@code v}; 0 when empty. */
    private static long at(long[] v, double q) {
        if (v.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(q * v.length);
        return v[Math.max(0, Math.min(v.length - 1, rank - 1))];
    }

    private static double millis(long nanos) {
        return nanos / (double) TimeUnit.MILLISECONDS.toNanos(1);
    }
}
