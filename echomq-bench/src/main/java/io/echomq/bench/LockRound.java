package io.echomq.bench;

import io.echomq.bench.loop.LoadLoop;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The figures of one A/B round of {@code emq bench locks}: each row's pairs per second (or
 * handoffs) and acquire p50/p99, for ours (fenced, and plain on distinct resources), the bare
 * Lettuce limit, the scripted limit (distinct resources only) and Redisson. A side that did
 * not run is {@link Figure#MISSING}. Filled in by {@link LockBench}, read by {@link LockTables}.
 */
final class LockRound {
    /** One row's figures at one thread count. */
    record Figure(double perSecond, double p50Micros, double p99Micros) {
        static final Figure MISSING = new Figure(Double.NaN, Double.NaN, Double.NaN);

        static Figure of(LoadLoop.Stats s) {
            return new Figure(s.perSecond(), s.quantileMicros(0.5), s.quantileMicros(0.99));
        }

        static Figure of(Map<String, String> line) {
            return new Figure(Double.parseDouble(line.get("per_s")), Double.parseDouble(line.get("p50_us")),
                    Double.parseDouble(line.get("p99_us")));
        }
    }

    final Map<Integer, Figure> ours = new LinkedHashMap<>();
    final Map<Integer, Figure> limit = new LinkedHashMap<>();
    /** The scripted limit: one fenced acquire script, then the compare-and-delete; distinct resources only. */
    final Map<Integer, Figure> scripted = new LinkedHashMap<>();
    /** Ours in plain mode (one {@code SET NX PX}), distinct resources only. */
    final Map<Integer, Figure> plain = new LinkedHashMap<>();
    final Map<Integer, Figure> peer = new LinkedHashMap<>();
    Figure oursContended = Figure.MISSING;
    Figure limitContended = Figure.MISSING;
    Figure peerContended = Figure.MISSING;
    /** How the peer ran in this round: its version and setup, skipped, missing or failed. */
    String peerNote = "";

    /** @return ours at {@code threads}, or MISSING */
    Figure ours(int threads) {
        return ours.getOrDefault(threads, Figure.MISSING);
    }

    /** @return the limit at {@code threads}, or MISSING */
    Figure limit(int threads) {
        return limit.getOrDefault(threads, Figure.MISSING);
    }

    /** @return the scripted limit at {@code threads}, or MISSING */
    Figure scripted(int threads) {
        return scripted.getOrDefault(threads, Figure.MISSING);
    }

    /** @return ours in plain mode at {@code threads}, or MISSING */
    Figure plain(int threads) {
        return plain.getOrDefault(threads, Figure.MISSING);
    }

    /** @return Redisson at {@code threads}, or MISSING */
    Figure peer(int threads) {
        return peer.getOrDefault(threads, Figure.MISSING);
    }
}
