package io.echomq.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The figures one quantity took across the A/B rounds of a bench: their median, which the bench
 * reports, and their range (min–max), which says how far the machine's noise moved them. Its
 * duties:
 *
 * <ol>
 *   <li>the median of the rounds that measured the quantity (NaN, a round where a side was
 *       missing, is left out): the middle one of an odd count, the mean of the two middle ones
 *       of an even count;</li>
 *   <li>the smallest and largest of them;</li>
 *   <li>the text the tables print: {@code 3.66 (3.41–3.73)}, or {@code n/a} when no round
 *       measured it.</li>
 * </ol>
 *
 * <p>A median of the per-round ratios, rather than the ratio of the medians, keeps each ratio
 * to two figures measured seconds apart, under the same load.
 *
 * @param median the median, NaN when {@code n} is 0
 * @param min the smallest figure, NaN when {@code n} is 0
 * @param max the largest figure, NaN when {@code n} is 0
 * @param n how many rounds measured it
 */
record Spread(double median, double min, double max, int n) {
    /** No figure at all. */
    static final Spread NONE = new Spread(Double.NaN, Double.NaN, Double.NaN, 0);

    /**
     * @param figures one figure per round, NaN where the round did not measure it
     * @return their median and range
     */
    static Spread of(List<Double> figures) {
        List<Double> seen = new ArrayList<>();
        for (Double f : figures) {
            if (f != null && !Double.isNaN(f)) {
                seen.add(f);
            }
        }
        if (seen.isEmpty()) {
            return NONE;
        }
        Collections.sort(seen);
        int n = seen.size();
        double median = n % 2 == 1 ? seen.get(n / 2) : (seen.get(n / 2 - 1) + seen.get(n / 2)) / 2;
        return new Spread(median, seen.get(0), seen.get(n - 1), n);
    }

    /** @return the median per round of {@code a[i] / b[i]}, over the rounds where both were measured */
    static Spread ofRatios(List<Double> a, List<Double> b) {
        if (a.size() != b.size()) {
            throw new IllegalArgumentException("one figure per round on each side: " + a.size() + " vs " + b.size());
        }
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            double x = a.get(i);
            double y = b.get(i);
            ratios.add(Double.isNaN(x) || Double.isNaN(y) || y == 0 ? Double.NaN : x / y);
        }
        return of(ratios);
    }

    /** @return {@code median (min–max)} with two decimals, just the median for one round, or {@code n/a} */
    String ratioText() {
        if (n == 0) {
            return "n/a";
        }
        if (n == 1) {
            return String.format(Locale.ROOT, "%.2f", median);
        }
        return String.format(Locale.ROOT, "%.2f (%.2f–%.2f)", median, min, max);
    }

    /** @return the median with two decimals, or {@code n/a}: the form of the summary lines */
    String medianText() {
        return n == 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", median);
    }
}
