package io.echomq.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * What {@code emq bench queue} prints and records from its rounds:
 *
 * <ol>
 *   <li>each round's line as soon as the round ends: enqueue and processing rates of both sides,
 *       bytes per job, and the round's ratios;</li>
 *   <li>then the table of medians, each ratio the median of the per-round ratios with its range
 *       ({@link Spread}), with the figures measured once (depth, idle worker) and the targets;</li>
 *   <li>the last line, {@code queue: process_jobs_per_s=… enqueue_jobs_per_s=… bytes_per_job=…
 *       depth_ratio=… process_ratio=… enqueue_ratio=…}, with our medians and the median ratios;</li>
 *   <li>the same figures as {@link Record} lines for {@code run-all.sh}.</li>
 * </ol>
 */
final class QueueTables {
    /** One round: both sides' figures, NaN for a side that did not run. */
    record Round(double enqueue, double bytes, double process, double peerEnqueue, double peerBytes,
                 double peerProcess, String peerNote) {
    }

    /** What is measured once, after the rounds; NaN where skipped. */
    record Once(double shallowPerS, double deepPerS, double idleCommandsPerS) {
    }

    private final int batch;
    private final int concurrency;
    private final int depthThreads;
    private final int depth;

    QueueTables(int batch, int concurrency, int depthThreads, int depth) {
        this.batch = batch;
        this.concurrency = concurrency;
        this.depthThreads = depthThreads;
        this.depth = depth;
    }

    /** Prints one round's line. */
    void printRound(PrintWriter out, String label, Round r) {
        out.printf("%s: enqueue %s vs %s jobs/s (%s), process %s vs %s jobs/s (%s), bytes/job %s vs %s%n", label,
                Report.count(r.enqueue()), Report.count(r.peerEnqueue()), Report.ratio(r.enqueue(), r.peerEnqueue()),
                Report.count(r.process()), Report.count(r.peerProcess()), Report.ratio(r.process(), r.peerProcess()),
                Report.count(r.bytes()), Report.count(r.peerBytes()));
        out.flush();
    }

    /** Prints the medians, the figures measured once, the targets and the summary line. */
    void printMedians(PrintWriter out, List<Round> rounds, Once once) {
        String depthName = String.format(Locale.ROOT, "%,d", depth);
        String depthRatio = Report.ratio(once.deepPerS(), once.shallowPerS());
        Spread enqueueRatio = ratio(rounds, Round::enqueue, Round::peerEnqueue);
        Spread processRatio = ratio(rounds, Round::process, Round::peerProcess);
        out.println();
        out.println("peers: " + rounds.get(rounds.size() - 1).peerNote());
        out.println();
        out.printf("medians of %d round(s); echomq/bullmq: the median of the per-round ratios (min–max)%n", rounds.size());
        out.printf("%-58s %-12s %-12s %-20s %s%n", "queue", "echomq", "bullmq", "echomq/bullmq", "target");
        row(out, "bulk enqueue, jobs/s (" + batch + " per call)", median(rounds, Round::enqueue),
                median(rounds, Round::peerEnqueue), enqueueRatio.ratioText(),
                ">= 8x bullmq: " + Report.verdict(enqueueRatio.medianText(), 8, true));
        row(out, "no-op processing, jobs/s (1 worker, concurrency " + concurrency + ")", median(rounds, Round::process),
                median(rounds, Round::peerProcess), processRatio.ratioText(),
                ">= 3x bullmq: " + Report.verdict(processRatio.medianText(), 3, true));
        row(out, "Redis bytes per pending job", median(rounds, Round::bytes), median(rounds, Round::peerBytes),
                ratio(rounds, Round::bytes, Round::peerBytes).ratioText(),
                "<= 100: " + Report.verdict(Report.ratio(median(rounds, Round::bytes), 100), 1, false));
        row(out, "claim cycles/s at depth 1,000 (" + depthThreads + " threads, once)", once.shallowPerS(), Double.NaN, "", "");
        row(out, "claim cycles/s at depth " + depthName + " (once)", once.deepPerS(), Double.NaN, "",
                "ratio " + depthRatio + " >= 0.90: " + Report.verdict(depthRatio, 0.9, true));
        out.printf("%-58s %-12s %-12s %-20s %s%n", "idle worker, commands/s (once)",
                Double.isNaN(once.idleCommandsPerS()) ? "-" : String.format(Locale.ROOT, "%.1f", once.idleCommandsPerS()),
                "-", "", "<= 5: " + Report.verdict(Report.ratio(once.idleCommandsPerS(), 5), 1, false));
        out.printf("queue: process_jobs_per_s=%s enqueue_jobs_per_s=%s bytes_per_job=%s depth_ratio=%s"
                + " process_ratio=%s enqueue_ratio=%s%n",
                whole(median(rounds, Round::process)), whole(median(rounds, Round::enqueue)),
                whole(median(rounds, Round::bytes)), depthRatio, processRatio.medianText(), enqueueRatio.medianText());
        out.flush();
    }

    /** @return every median, ratio and once-measured figure, as run-all.sh reads them */
    Record record(List<Round> rounds, Once once) {
        Record rec = new Record();
        rec.put("enqueue.echomq.per_s", median(rounds, Round::enqueue));
        rec.put("enqueue.bullmq.per_s", median(rounds, Round::peerEnqueue));
        put(rec, "enqueue.echomq/bullmq", ratio(rounds, Round::enqueue, Round::peerEnqueue));
        rec.put("process.echomq.per_s", median(rounds, Round::process));
        rec.put("process.bullmq.per_s", median(rounds, Round::peerProcess));
        put(rec, "process.echomq/bullmq", ratio(rounds, Round::process, Round::peerProcess));
        rec.put("bytes_per_job.echomq", median(rounds, Round::bytes));
        rec.put("bytes_per_job.bullmq", median(rounds, Round::peerBytes));
        rec.put("depth.1000.echomq.per_s", once.shallowPerS());
        rec.put("depth." + depth + ".echomq.per_s", once.deepPerS());
        rec.put("depth_ratio", once.deepPerS() / once.shallowPerS());
        rec.put("idle.echomq.commands_per_s", once.idleCommandsPerS());
        return rec;
    }

    private static Spread ratio(List<Round> rounds, ToDoubleFunction<Round> ours, ToDoubleFunction<Round> peer) {
        return Spread.ofRatios(each(rounds, ours), each(rounds, peer));
    }

    private static double median(List<Round> rounds, ToDoubleFunction<Round> figure) {
        return Spread.of(each(rounds, figure)).median();
    }

    private static List<Double> each(List<Round> rounds, ToDoubleFunction<Round> figure) {
        List<Double> out = new ArrayList<>();
        for (Round r : rounds) {
            out.add(figure.applyAsDouble(r));
        }
        return out;
    }

    private static void put(Record rec, String name, Spread s) {
        rec.put(name, s.median());
        rec.put(name + ".min", s.min());
        rec.put(name + ".max", s.max());
    }

    private static void row(PrintWriter out, String what, double ours, double peer, String ratio, String target) {
        out.printf("%-58s %-12s %-12s %-20s %s%n", what, Report.count(ours), Report.count(peer), ratio, target);
    }

    private static String whole(double v) {
        return Double.isNaN(v) ? "n/a" : Long.toString(Math.round(v));
    }
}
