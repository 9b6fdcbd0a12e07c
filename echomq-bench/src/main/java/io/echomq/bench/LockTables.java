package io.echomq.bench;

import io.echomq.bench.LockRound.Figure;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * What {@code emq bench locks} prints and records from its rounds:
 *
 * <ol>
 *   <li>each round's table as soon as the round ends (pairs/s with acquire p50/p99, and the
 *       round's ratios; the scripted limit and {@code echomq/scripted} in the last two columns);</li>
 *   <li>then the medians of every side and the median of each per-round ratio with its range
 *       ({@link Spread});</li>
 *   <li>the targets against those medians, and the last line, {@code locks: echomq/redisson=<median>
 *       echomq/limit=<median> plain/limit=<median> echomq/scripted=<median>}, at 16 threads (or the
 *       count nearest 16);</li>
 *   <li>the same figures as {@link Record} lines for {@code run-all.sh}.</li>
 * </ol>
 */
final class LockTables {
    private final List<Integer> threads;
    private final int contended;

    LockTables(List<Integer> threads, int contended) {
        this.threads = List.copyOf(threads);
        this.contended = contended;
    }

    /** Prints one round's table. */
    void printRound(PrintWriter out, String label, LockRound r) {
        out.println();
        out.println(label + ": " + r.peerNote);
        out.printf("%-8s %-24s %-24s %-24s %-16s %-12s %-24s %-12s %-24s %-16s%n", "threads", "echomq", "redisson",
                "limit", "echomq/redisson", "echomq/limit", "plain", "plain/limit", "scripted", "echomq/scripted");
        for (int t : threads) {
            Figure o = r.ours(t);
            out.printf("%-8d %-24s %-24s %-24s %-16s %-12s %-24s %-12s %-24s %-16s%n", t, cell(o), cell(r.peer(t)),
                    cell(r.limit(t)), Report.ratio(o.perSecond(), r.peer(t).perSecond()),
                    Report.ratio(o.perSecond(), r.limit(t).perSecond()), cell(r.plain(t)),
                    Report.ratio(r.plain(t).perSecond(), r.limit(t).perSecond()), cell(r.scripted(t)),
                    Report.ratio(o.perSecond(), r.scripted(t).perSecond()));
        }
        if (contended > 0) {
            out.printf("%-8s %-24s %-24s %-24s %-16s%n", "1 shared", cell(r.oursContended), cell(r.peerContended),
                    cell(r.limitContended), Report.ratio(r.oursContended.perSecond(), r.peerContended.perSecond()));
        }
        out.flush();
    }

    /** Prints the medians of all rounds, the targets and the summary line. */
    void printMedians(PrintWriter out, List<LockRound> rounds, String peerNote) {
        out.println();
        out.println("peers: " + peerNote);
        out.println("limit: bare Lettuce 7.7, SET NX PX + EVALSHA compare-and-delete, one shared connection");
        out.println("plain: echomq, AcquireOptions.plain() (one SET NX PX) + release, beside the limit in each round");
        out.println("scripted: the fenced ceiling, one EVALSHA (SET NX PX, then INCR of the fence) + the limit's "
                + "compare-and-delete, the limit's loop, beside echomq in each round");
        out.println();
        out.printf("medians of %d round(s); ratios: the median of the per-round ratios (min–max)%n", rounds.size());
        out.println("distinct resources: acquire+release pairs/s, acquire p50/p99 ms");
        out.printf("%-8s %-24s %-24s %-24s %-22s %-22s %-24s %-22s %-24s %-22s%n", "threads", "echomq", "redisson",
                "limit", "echomq/redisson", "echomq/limit", "plain", "plain/limit", "scripted", "echomq/scripted");
        for (int t : threads) {
            out.printf("%-8d %-24s %-24s %-24s %-22s %-22s %-24s %-22s %-24s %-22s%n", t,
                    cell(median(rounds, r -> r.ours(t))), cell(median(rounds, r -> r.peer(t))),
                    cell(median(rounds, r -> r.limit(t))), vsPeer(rounds, t).ratioText(), vsLimit(rounds, t).ratioText(),
                    cell(median(rounds, r -> r.plain(t))), plainVsLimit(rounds, t).ratioText(),
                    cell(median(rounds, r -> r.scripted(t))), vsScripted(rounds, t).ratioText());
        }
        if (contended > 0) {
            out.println();
            out.printf("one shared resource, %d threads: handoffs/s, acquire wait p50/p99 ms%n", contended);
            out.printf("%-8s %-24s %-24s %-24s %-22s %-22s%n", "", "echomq", "redisson", "limit (1 ms poll)",
                    "echomq/redisson", "wait p99 echomq/redisson");
            out.printf("%-8s %-24s %-24s %-24s %-22s %-22s%n", "", cell(median(rounds, r -> r.oursContended)),
                    cell(median(rounds, r -> r.peerContended)), cell(median(rounds, r -> r.limitContended)),
                    handoffs(rounds).ratioText(), waitP99(rounds).ratioText());
        }
        int at = summaryThreads();
        String peer = vsPeer(rounds, at).medianText();
        String limit = vsLimit(rounds, at).medianText();
        String plain = plainVsLimit(rounds, at).medianText();
        String scripted = vsScripted(rounds, at).medianText();
        out.println();
        out.println("targets (medians):");
        out.printf("  distinct, %d threads: echomq/redisson >= 5     %-6s %s%n", at, peer, Report.verdict(peer, 5, true));
        out.printf("  distinct, %d threads: echomq/limit    >= 0.9   %-6s %s%n", at, limit, Report.verdict(limit, 0.9, true));
        out.printf("  distinct, %d threads: plain/limit     >= 0.95  %-6s %s%n", at, plain, Report.verdict(plain, 0.95, true));
        out.printf("  distinct, %d threads: echomq/scripted >= 0.9   %-6s %s%n", at, scripted,
                Report.verdict(scripted, 0.9, true));
        if (contended > 0) {
            String h = handoffs(rounds).medianText();
            String p99 = waitP99(rounds).medianText();
            out.printf("  contended: handoffs echomq/redisson >= 1.5   %-6s %s%n", h, Report.verdict(h, 1.5, true));
            out.printf("  contended: wait p99 echomq/redisson <= 1     %-6s %s%n", p99, Report.verdict(p99, 1.0, false));
        }
        out.printf("locks: echomq/redisson=%s echomq/limit=%s plain/limit=%s echomq/scripted=%s%n", peer, limit, plain,
                scripted);
        out.flush();
    }

    /** @return every median and ratio, as run-all.sh reads them */
    Record record(List<LockRound> rounds) {
        Record rec = new Record();
        for (int t : threads) {
            put(rec, "distinct." + t + ".echomq", median(rounds, r -> r.ours(t)));
            put(rec, "distinct." + t + ".redisson", median(rounds, r -> r.peer(t)));
            put(rec, "distinct." + t + ".limit", median(rounds, r -> r.limit(t)));
            put(rec, "distinct." + t + ".echomq/redisson", vsPeer(rounds, t));
            put(rec, "distinct." + t + ".echomq/limit", vsLimit(rounds, t));
            put(rec, "distinct." + t + ".plain", median(rounds, r -> r.plain(t)));
            put(rec, "distinct." + t + ".plain/limit", plainVsLimit(rounds, t));
            put(rec, "distinct." + t + ".scripted", median(rounds, r -> r.scripted(t)));
            put(rec, "distinct." + t + ".echomq/scripted", vsScripted(rounds, t));
        }
        if (contended > 0) {
            put(rec, "contended." + contended + ".echomq", median(rounds, r -> r.oursContended));
            put(rec, "contended." + contended + ".redisson", median(rounds, r -> r.peerContended));
            put(rec, "contended." + contended + ".limit", median(rounds, r -> r.limitContended));
            put(rec, "contended." + contended + ".echomq/redisson", handoffs(rounds));
            put(rec, "contended." + contended + ".p99.echomq/redisson", waitP99(rounds));
        }
        return rec;
    }

    /** @return the thread count of the summary line: 16, or the one asked for nearest to it */
    int summaryThreads() {
        return threads.contains(16) ? 16 : threads.stream().min((a, b) -> Math.abs(a - 16) - Math.abs(b - 16)).get();
    }

    Spread vsPeer(List<LockRound> rounds, int t) {
        return Spread.ofRatios(each(rounds, r -> r.ours(t).perSecond()), each(rounds, r -> r.peer(t).perSecond()));
    }

    Spread vsLimit(List<LockRound> rounds, int t) {
        return Spread.ofRatios(each(rounds, r -> r.ours(t).perSecond()), each(rounds, r -> r.limit(t).perSecond()));
    }

    /** @return the median per round of our plain row over the limit, at {@code t} threads */
    Spread plainVsLimit(List<LockRound> rounds, int t) {
        return Spread.ofRatios(each(rounds, r -> r.plain(t).perSecond()), each(rounds, r -> r.limit(t).perSecond()));
    }

    /** @return the median per round of our fenced row over the scripted limit, at {@code t} threads */
    Spread vsScripted(List<LockRound> rounds, int t) {
        return Spread.ofRatios(each(rounds, r -> r.ours(t).perSecond()), each(rounds, r -> r.scripted(t).perSecond()));
    }

    private static Spread handoffs(List<LockRound> rounds) {
        return Spread.ofRatios(each(rounds, r -> r.oursContended.perSecond()), each(rounds, r -> r.peerContended.perSecond()));
    }

    private static Spread waitP99(List<LockRound> rounds) {
        return Spread.ofRatios(each(rounds, r -> r.oursContended.p99Micros()), each(rounds, r -> r.peerContended.p99Micros()));
    }

    /** @return each side's median rate and latencies over the rounds, each median taken on its own */
    private static Figure median(List<LockRound> rounds, Function<LockRound, Figure> side) {
        return new Figure(Spread.of(each(rounds, r -> side.apply(r).perSecond())).median(),
                Spread.of(each(rounds, r -> side.apply(r).p50Micros())).median(),
                Spread.of(each(rounds, r -> side.apply(r).p99Micros())).median());
    }

    private static List<Double> each(List<LockRound> rounds, Function<LockRound, Double> figure) {
        List<Double> out = new ArrayList<>();
        for (LockRound r : rounds) {
            out.add(figure.apply(r));
        }
        return out;
    }

    private static void put(Record rec, String name, Figure f) {
        rec.put(name + ".per_s", f.perSecond());
        rec.put(name + ".p50_ms", f.p50Micros() / 1000);
        rec.put(name + ".p99_ms", f.p99Micros() / 1000);
    }

    private static void put(Record rec, String name, Spread s) {
        rec.put(name, s.median());
        rec.put(name + ".min", s.min());
        rec.put(name + ".max", s.max());
    }

    private static String cell(Figure f) {
        if (Double.isNaN(f.perSecond())) {
            return "-";
        }
        return Report.count(f.perSecond()) + " " + Report.millis(f.p50Micros()) + "/" + Report.millis(f.p99Micros());
    }
}
