package io.echomq.bench;

import java.util.Locale;

/** Formatting shared by the benches' tables. */
final class Report {
    private Report() {
    }

    /** @return {@code n} with thousands separators and no decimals, or {@code -} when NaN */
    static String count(double n) {
        return Double.isNaN(n) ? "-" : String.format(Locale.ROOT, "%,.0f", n);
    }

    /** @return microseconds as milliseconds with two decimals, or {@code -} when NaN */
    static String millis(double micros) {
        return Double.isNaN(micros) ? "-" : String.format(Locale.ROOT, "%.2f", micros / 1000.0);
    }

    /** @return {@code a / b} with two decimals, or {@code n/a} when either is missing */
    static String ratio(double a, double b) {
        if (Double.isNaN(a) || Double.isNaN(b) || b == 0) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%.2f", a / b);
    }

    /** @return "meets" or "MISSES" for a ratio against its target, or "n/a" */
    static String verdict(String ratio, double target, boolean atLeast) {
        if ("n/a".equals(ratio)) {
            return "n/a";
        }
        double r = Double.parseDouble(ratio);
        return (atLeast ? r >= target : r <= target) ? "meets" : "MISSES";
    }
}
