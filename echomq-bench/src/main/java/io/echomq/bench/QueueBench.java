package io.echomq.bench;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueLayout;
import io.echomq.queue.Worker;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code emq bench queue}: our queue against BullMQ on the same server.
 *
 * <ol>
 *   <li>Bulk enqueue: {@code --jobs} small jobs ({@code {"i":n}}) in calls of {@code --batch};
 *       jobs per second, and Redis bytes per pending job from {@code INFO memory}.</li>
 *   <li>No-op processing: one worker at {@code --concurrency} drains those jobs; jobs per second.</li>
 *   <li>Depth: claim+complete+enqueue cycles per second on {@code --depth-threads} threads with
 *       1,000 and with {@code --depth} jobs pending (each cycle puts one job back, so the depth
 *       holds), in alternating windows; their ratio shows whether a claim's cost grows with the
 *       depth.</li>
 *   <li>Idle: the commands per second a started worker sends to an empty queue, from the
 *       server's {@code total_commands_processed}.</li>
 * </ol>
 *
 * <p>{@code --layout zset} runs every queue of ours in the ZSET pending layout (every pending job in
 * the sorted set, for ZPOPMIN consumers) instead of the default LIST layout, so that the two can be
 * compared run against run; the layout is read back from the queue and printed.
 *
 * <p>The BullMQ peer (a Node script, {@code peers/bullmq/bench.mjs}) measures 1 and 2 the same
 * way. Each side first runs a warm-up round of a fifth of the jobs. 1 and 2 run in
 * {@code --rounds} A/B rounds that take turns to go first ({@link Rounds}), on fresh queues each
 * round; 3 and 4, ours alone, run once after them ({@link OurQueue}). {@code --load} runs it all
 * beside a {@link CpuHog}. {@link QueueTables} prints each round, then the medians and the median
 * of each per-round ratio with its range. Each side's server and client CPU µs per job of the
 * enqueue and of the processing are measured in every round ({@link PhaseCpu}), and the server's
 * commands during our last processing phase are printed per job ({@link CommandStats}). The last
 * line is {@code queue: process_jobs_per_s=<n> enqueue_jobs_per_s=<n> bytes_per_job=<n>
 * depth_ratio=<r> process_ratio=<r> enqueue_ratio=<r> server_cpu_us_per_job_process=<µs>
 * client_cpu_us_per_job_process=<µs> server_cpu_us_per_job_enqueue=<µs>
 * client_cpu_us_per_job_enqueue=<µs>} (our medians, and the median ratios to BullMQ, {@code n/a}
 * without it); scripts read its fields by name, and new ones are only ever appended.
 */
@Command(name = "queue", mixinStandardHelpOptions = true,
        description = "Queue: EchoMQ vs BullMQ: bulk enqueue, no-op processing, memory per job, depth, idle worker.")
final class QueueBench implements Callable<Integer> {
    static final Duration LEASE = Duration.ofSeconds(30);
    static final int SHALLOW = 1000;

    @Spec
    CommandSpec spec;

    @Option(names = "--jobs", paramLabel = "N", defaultValue = "100000",
            description = "Jobs enqueued, then processed (default ${DEFAULT-VALUE}).")
    int jobs;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "1000",
            description = "Jobs per bulk enqueue call, both sides (default ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--concurrency", paramLabel = "C", defaultValue = "50",
            description = "Handlers of the one worker, both sides (default ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--depth", paramLabel = "N", defaultValue = "1000000",
            description = "The deep queue of the depth run; 0 skips the depth run (default ${DEFAULT-VALUE}).")
    int depth;

    @Option(names = "--depth-threads", paramLabel = "N", defaultValue = "8",
            description = "Threads of the depth run (default ${DEFAULT-VALUE}).")
    int depthThreads;

    @Option(names = "--seconds", paramLabel = "N", defaultValue = "5",
            description = "Measured seconds at each depth, in two alternating windows (default ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--idle-seconds", paramLabel = "N", defaultValue = "10",
            description = "How long the idle worker is watched; 0 skips it (default ${DEFAULT-VALUE}).")
    int idleSeconds;

    @Option(names = "--redis", paramLabel = "URL",
            description = "Use this server; only queues named bench<4 chars> are touched, and deleted after. "
                + "Default: start the embedded redis-server.")
    String redis;

    @Option(names = "--layout", paramLabel = "list|zset", defaultValue = "list",
            description = "Our queues' pending layout: list (the default: priority 0 in a LIST) or zset (every "
                + "pending job in the sorted set, as ZPOPMIN consumers need). Default: ${DEFAULT-VALUE}.")
    String layout;

    @Option(names = "--events", paramLabel = "on|off", defaultValue = "on",
            description = "Our queues' events stream (emq:{q}:events): on, the queue's default, or off, stored "
                + "with each bench queue before it is used, to measure what events cost per job "
                + "(default ${DEFAULT-VALUE}).")
    String events;

    @Option(names = "--no-peer", description = "Skip BullMQ (ours only).")
    boolean noPeer;

    @Option(names = "--record", paramLabel = "FILE",
            description = "Also append every figure to FILE as name<TAB>value lines (for run-all.sh).")
    java.nio.file.Path record;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "" + Rounds.DEFAULT,
            description = "A/B rounds of ours and BullMQ (enqueue, bytes, processing), taking turns to go first; "
                + "the ratios printed last are the medians of the per-round ratios, with their range. Depth and "
                + "the idle worker are measured once, after them (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--load", description = "Run with a CPU hog beside the bench: a busy loop in its own process, "
            + "pinned to the last CPU with taskset where there is one.")
    boolean load;

    @Override
    public Integer call() throws Exception {
        check();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        QueueTables tables = new QueueTables(batch, concurrency, depthThreads, depth);
        List<QueueTables.Round> done = new ArrayList<>();
        Map<String, CommandStats.Stat> lastCommands = Map.of();
        QueueTables.Once once;
        try (CpuHog hog = load ? CpuHog.start() : null; BenchServer server = BenchServer.open(redis, out)) {
            out.printf("bench: %,d jobs of ~10 bytes, bulk calls of %,d, one worker at concurrency %d, our layout %s,"
                    + " events %s; %d A/B round(s), echomq first in rounds 1, 3, …%n",
                    jobs, batch, concurrency, QueueLayout.parse(layout).wireName(), events, rounds);
            out.println("load: " + (hog == null ? "none added (--load adds a CPU hog)" : hog.description()));
            out.flush();
            // A short queue name, the same for both sides (their keys differ by prefix): key names
            // are part of the bytes per job, and a real queue is rarely named like a UUID.
            String run = "bench" + Long.toString(System.nanoTime() % 1_679_616, 36);
            OurQueue.Settings settings = new OurQueue.Settings(batch, concurrency, QueueLayout.parse(layout),
                    events.equals("on"), depthThreads, seconds, idleSeconds);
            try (QueueClient client = QueueClient.create(server.url())) {
                OurQueue ours = new OurQueue(client, server, settings, err);
                for (int i = 0; i < rounds; i++) {
                    String label = Rounds.label(i, rounds, "bullmq");
                    err.println("bench: " + label);
                    String name = run + i;
                    OurQueue.Compared o;
                    Peered p;
                    if (Rounds.oursFirst(i)) {
                        o = ours.compared(name, jobs);
                        p = peer(server, name, err);
                    } else {
                        p = peer(server, name, err);
                        o = ours.compared(name, jobs);
                    }
                    QueueTables.Round round = new QueueTables.Round(o.enqueuePerS(), o.bytesPerJob(), o.processPerS(),
                            p.enqueue, p.bytes, p.process, p.note, new QueueTables.Cpu(o.enqueueCpu(), o.processCpu(),
                                    p.enqueueCpu, p.processCpu));
                    tables.printRound(out, label, round);
                    done.add(round);
                    lastCommands = o.processCommands();
                }
                double idle = idleSeconds > 0 ? ours.idle(run + "-idle") : Double.NaN;
                double[] depths = depth > 0 ? ours.depth(run, depth) : new double[] {Double.NaN, Double.NaN};
                once = new QueueTables.Once(depths[0], depths[1], idle);
            }
        }
        tables.printCommands(out, lastCommands, jobs);
        tables.printMedians(out, done, once);
        tables.record(done, once).writeTo(record);
        return 0;
    }

    /** BullMQ's figures of one round; NaN when it did not run. */
    private static final class Peered {
        double enqueue = Double.NaN;
        double bytes = Double.NaN;
        double process = Double.NaN;
        PhaseCpu enqueueCpu = PhaseCpu.NONE;
        PhaseCpu processCpu = PhaseCpu.NONE;
        String note;
    }

    /** BullMQ's round, in node, on the queue {@code name}; a missing or failed peer is noted, never an error. */
    private Peered peer(BenchServer server, String name, PrintWriter err) throws InterruptedException {
        Peered p = new Peered();
        if (noPeer) {
            p.note = "BullMQ: skipped (--no-peer)";
            return p;
        }
        StringBuilder why = new StringBuilder();
        Optional<Peer> bullmq = Peer.bullmq(List.of("--redis", server.url(), "--jobs", Integer.toString(jobs),
                "--batch", Integer.toString(batch), "--concurrency", Integer.toString(concurrency), "--queue", name),
                err, why);
        if (bullmq.isEmpty()) {
            p.note = "BullMQ: MISSING, " + why;
            return p;
        }
        err.println("bench: bullmq, in node…");
        err.flush();
        String version = "?";
        try {
            for (Map<String, String> line : bullmq.get().run(err, 600)) {
                switch (line.getOrDefault("bench", "")) {
                    case "version" -> version = line.get("version") + " (node " + line.get("node") + ")";
                    case "enqueue" -> {
                        p.enqueue = Double.parseDouble(line.get("per_s"));
                        p.bytes = Double.parseDouble(line.get("bytes_per_job"));
                        p.enqueueCpu = cpu(line);
                    }
                    case "process" -> {
                        p.process = Double.parseDouble(line.get("per_s"));
                        p.processCpu = cpu(line);
                    }
                    default -> { }
                }
            }
            p.note = "BullMQ " + version + ": Queue.addBulk, one Worker, default options";
        } catch (IllegalStateException e) {
            p.note = "BullMQ: FAILED, " + e.getMessage();
        }
        server.deleteKeys("bull:" + name + ":");
        server.deleteKeys("bull:" + name + "-warm:");
        return p;
    }

    /** @return the CPU figures of a peer's result line, NaN where it gave none */
    private static PhaseCpu cpu(Map<String, String> line) {
        return new PhaseCpu(number(line.get("server_cpu_us_per_job")), number(line.get("client_cpu_us_per_job")),
                number(line.get("client_switches_per_job")));
    }

    private static double number(String value) {
        return value == null ? Double.NaN : Double.parseDouble(value);
    }

    private void check() {
        rangeCheck(jobs, 1, 10_000_000, "--jobs");
        rangeCheck(batch, 1, 10_000, "--batch");
        rangeCheck(concurrency, 1, Worker.MAX_CONCURRENCY, "--concurrency");
        rangeCheck(depth, 0, 50_000_000, "--depth");
        if (depth > 0 && depth < SHALLOW) {
            throw new ParameterException(spec.commandLine(), "--depth must be 0 or at least " + SHALLOW);
        }
        rangeCheck(depthThreads, 1, 256, "--depth-threads");
        rangeCheck(seconds, 1, 3600, "--seconds");
        rangeCheck(idleSeconds, 0, 3600, "--idle-seconds");
        try {
            QueueLayout.parse(layout);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--layout must be list or zset, was " + layout);
        }
        rangeCheck(rounds, 1, Rounds.MAX, "--rounds");
        if (!events.equals("on") && !events.equals("off")) {
            throw new ParameterException(spec.commandLine(), "--events must be on or off, was '" + events + "'");
        }
        if (redis != null && !(redis.startsWith("redis://") || redis.startsWith("rediss://"))) {
            throw new ParameterException(spec.commandLine(), "--redis must be a redis:// or rediss:// URL");
        }
    }

    private void rangeCheck(int v, int min, int max, String name) {
        if (v < min || v > max) {
            throw new ParameterException(spec.commandLine(), name + " must be in " + min + ".." + max + ", was " + v);
        }
    }
}
