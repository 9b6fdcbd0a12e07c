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
 *       bytes per job, the round's ratios, each side's server and client CPU µs per job of
 *       both phases, and each side's client context switches per processed job;</li>
 *   <li>the server's commands in our last processing phase, per job ({@link CommandStats});</li>
 *   <li>then the table of medians, each ratio the median of the per-round ratios with its range
 *       ({@link Spread}), with the figures measured once (depth, idle worker) and the targets;</li>
 *   <li>the last line, {@code queue: process_jobs_per_s=… enqueue_jobs_per_s=… bytes_per_job=…
 *       depth_ratio=… process_ratio=… enqueue_ratio=… server_cpu_us_per_job_process=…
 *       client_cpu_us_per_job_process=… server_cpu_us_per_job_enqueue=…
 *       client_cpu_us_per_job_enqueue=… client_switches_per_job_process=…}, with our medians and the median ratios (scripts read its
 *       fields by name; new ones are only ever appended);</li>
 *   <li>the same figures as {@link Record} lines for {@code run-all.sh}.</li>
 * </ol>
 */
final class QueueTables {
    /** One round: both sides' figures, NaN for a side that did not run. */
    record Round(double enqueue, double bytes, double process, double peerEnqueue, double peerBytes,
                 double peerProcess, String peerNote, Cpu cpu) {
    }

    /** One round's CPU per job: ours and the peer's, enqueue and processing. */
    record Cpu(PhaseCpu enqueue, PhaseCpu process, PhaseCpu peerEnqueue, PhaseCpu peerProcess) {
    }

    /** The commands listed in the breakdown of our processing phase, before the script overhead. */
    static final int TOP_COMMANDS = 10;

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
        Cpu c = r.cpu();
        out.printf("  CPU µs/job, echomq vs bullmq: server enqueue %s vs %s, process %s vs %s; "
                + "client enqueue %s vs %s, process %s vs %s%n",
                micros(c.enqueue().serverUsPerJob()), micros(c.peerEnqueue().serverUsPerJob()),
                micros(c.process().serverUsPerJob()), micros(c.peerProcess().serverUsPerJob()),
                micros(c.enqueue().clientUsPerJob()), micros(c.peerEnqueue().clientUsPerJob()),
                micros(c.process().clientUsPerJob()), micros(c.peerProcess().clientUsPerJob()));
        out.printf("  client context switches/job, echomq vs bullmq: process %s vs %s%n",
                hundredths(c.process().clientSwitchesPerJob()), hundredths(c.peerProcess().clientSwitchesPerJob()));
        out.flush();
    }

    /**
     * Prints where the server's time went in our last processing phase: the commands with the most
     * server time, as calls and µs per job, then the scripts' own time.
     */
    void printCommands(PrintWriter out, java.util.Map<String, CommandStats.Stat> delta, long jobs) {
        if (delta.isEmpty()) {
            return;
        }
        out.println();
        out.printf("echomq processing, last round: the server's commands per job (INFO commandstats deltas;"
                + " scripts' µs include the commands they ran)%n");
        out.printf("  %-44s %10s %10s%n", "command", "calls/job", "µs/job");
        for (CommandStats.Row row : CommandStats.rows(delta, jobs, TOP_COMMANDS)) {
            out.println(CommandStats.format(row));
        }
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
        cpuRow(out, "server CPU µs/job, processing", rounds, c -> c.process().serverUsPerJob(),
                c -> c.peerProcess().serverUsPerJob());
        cpuRow(out, "client CPU µs/job, processing", rounds, c -> c.process().clientUsPerJob(),
                c -> c.peerProcess().clientUsPerJob());
        out.printf("%-58s %-12s %-12s %-20s %s%n", "client context switches/job, processing",
                hundredths(median(rounds, r -> r.cpu().process().clientSwitchesPerJob())),
                hundredths(median(rounds, r -> r.cpu().peerProcess().clientSwitchesPerJob())),
                ratio(rounds, r -> r.cpu().process().clientSwitchesPerJob(),
                        r -> r.cpu().peerProcess().clientSwitchesPerJob()).ratioText(), "");
        cpuRow(out, "server CPU µs/job, enqueue", rounds, c -> c.enqueue().serverUsPerJob(),
                c -> c.peerEnqueue().serverUsPerJob());
        cpuRow(out, "client CPU µs/job, enqueue", rounds, c -> c.enqueue().clientUsPerJob(),
                c -> c.peerEnqueue().clientUsPerJob());
        out.printf("%-58s %-12s %-12s %-20s %s%n", "idle worker, commands/s (once)",
                Double.isNaN(once.idleCommandsPerS()) ? "-" : String.format(Locale.ROOT, "%.1f", once.idleCommandsPerS()),
                "-", "", "<= 5: " + Report.verdict(Report.ratio(once.idleCommandsPerS(), 5), 1, false));
        double switchesMedian = median(rounds, r -> r.cpu().process().clientSwitchesPerJob());
        String switches = Double.isNaN(switchesMedian) ? "n/a" : hundredths(switchesMedian);
        out.printf("queue: process_jobs_per_s=%s enqueue_jobs_per_s=%s bytes_per_job=%s depth_ratio=%s"
                + " process_ratio=%s enqueue_ratio=%s server_cpu_us_per_job_process=%s client_cpu_us_per_job_process=%s"
                + " server_cpu_us_per_job_enqueue=%s client_cpu_us_per_job_enqueue=%s client_switches_per_job_process=%s%n",
                whole(median(rounds, Round::process)), whole(median(rounds, Round::enqueue)),
                whole(median(rounds, Round::bytes)), depthRatio, processRatio.medianText(), enqueueRatio.medianText(),
                tenths(median(rounds, r -> r.cpu().process().serverUsPerJob())),
                tenths(median(rounds, r -> r.cpu().process().clientUsPerJob())),
                tenths(median(rounds, r -> r.cpu().enqueue().serverUsPerJob())),
                tenths(median(rounds, r -> r.cpu().enqueue().clientUsPerJob())),
                switches);
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
        cpuRecord(rec, rounds, "process", Cpu::process, Cpu::peerProcess);
        cpuRecord(rec, rounds, "enqueue", Cpu::enqueue, Cpu::peerEnqueue);
        rec.put("switches.client.process.echomq.per_job", median(rounds, r -> r.cpu().process().clientSwitchesPerJob()));
        rec.put("switches.client.process.bullmq.per_job",
                median(rounds, r -> r.cpu().peerProcess().clientSwitchesPerJob()));
        put(rec, "switches.client.process.echomq/bullmq", ratio(rounds, r -> r.cpu().process().clientSwitchesPerJob(),
                r -> r.cpu().peerProcess().clientSwitchesPerJob()));
        return rec;
    }

    private static void cpuRecord(Record rec, List<Round> rounds, String phase,
                                  java.util.function.Function<Cpu, PhaseCpu> ours,
                                  java.util.function.Function<Cpu, PhaseCpu> peer) {
        for (String side : List.of("server", "client")) {
            ToDoubleFunction<PhaseCpu> f = side.equals("server") ? PhaseCpu::serverUsPerJob : PhaseCpu::clientUsPerJob;
            String name = "cpu." + side + "." + phase;
            rec.put(name + ".echomq.us_per_job", median(rounds, r -> f.applyAsDouble(ours.apply(r.cpu()))));
            rec.put(name + ".bullmq.us_per_job", median(rounds, r -> f.applyAsDouble(peer.apply(r.cpu()))));
            put(rec, name + ".echomq/bullmq", ratio(rounds, r -> f.applyAsDouble(ours.apply(r.cpu())),
                    r -> f.applyAsDouble(peer.apply(r.cpu()))));
        }
    }

    /** A CPU row of the medians: each side's median µs per job, and the median per-round ratio. */
    private static void cpuRow(PrintWriter out, String what, List<Round> rounds, ToDoubleFunction<Cpu> ours,
                               ToDoubleFunction<Cpu> peer) {
        out.printf("%-58s %-12s %-12s %-20s %s%n", what, micros(median(rounds, r -> ours.applyAsDouble(r.cpu()))),
                micros(median(rounds, r -> peer.applyAsDouble(r.cpu()))),
                ratio(rounds, r -> ours.applyAsDouble(r.cpu()), r -> peer.applyAsDouble(r.cpu())).ratioText(), "");
    }

    /** @return µs with one decimal, or {@code -} when NaN */
    static String micros(double us) {
        return Double.isNaN(us) ? "-" : String.format(Locale.ROOT, "%.1f", us);
    }

    /** @return {@code v} with two decimals, "-" when not measured */
    static String hundredths(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String tenths(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.1f", v);
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
