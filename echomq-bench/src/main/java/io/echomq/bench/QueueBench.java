package io.echomq.bench;

import io.echomq.bench.loop.LoadLoop;
import io.echomq.queue.SettleOutcome;
import io.echomq.queue.Job;
import io.echomq.queue.JobRequest;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueLayout;
import io.echomq.queue.QueueEventSettings;
import io.echomq.queue.Worker;
import io.echomq.queue.WorkerListener;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
 * way. Each side first runs a warm-up round of a fifth of the jobs. The last line is
 * {@code queue: process_jobs_per_s=<n> enqueue_jobs_per_s=<n> bytes_per_job=<n> depth_ratio=<r>}.
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

    /** Our figures; NaN where a part was skipped. */
    record Ours(double enqueuePerS, double bytesPerJob, double processPerS, double shallowPerS, double deepPerS,
                double idleCommandsPerS) {
    }

    @Override
    public Integer call() throws Exception {
        check();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Ours ours;
        double peerEnqueue = Double.NaN;
        double peerBytes = Double.NaN;
        double peerProcess = Double.NaN;
        String peerNote;
        try (BenchServer server = BenchServer.open(redis, out)) {
            out.printf("bench: %,d jobs of ~10 bytes, bulk calls of %,d, one worker at concurrency %d, our layout %s, events %s%n",
                    jobs, batch, concurrency, QueueLayout.parse(layout).wireName(), events);
            out.flush();
            // A short queue name, the same for both sides (their keys differ by prefix): key names
            // are part of the bytes per job, and a real queue is rarely named like a UUID.
            String run = "bench" + Long.toString(System.nanoTime() % 1_679_616, 36);
            StringBuilder why = new StringBuilder();
            Optional<Peer> bullmq = noPeer ? Optional.empty() : Peer.bullmq(List.of("--redis", server.url(),
                    "--jobs", Integer.toString(jobs), "--batch", Integer.toString(batch),
                    "--concurrency", Integer.toString(concurrency), "--queue", run), err, why);
            if (noPeer) {
                peerNote = "BullMQ: skipped (--no-peer)";
            } else if (bullmq.isEmpty()) {
                peerNote = "BullMQ: MISSING, " + why;
            } else {
                err.println("bench: bullmq, in node…");
                err.flush();
                String version = "?";
                String failure = null;
                try {
                    for (Map<String, String> line : bullmq.get().run(err, 600)) {
                        switch (line.getOrDefault("bench", "")) {
                            case "version" -> version = line.get("version") + " (node " + line.get("node") + ")";
                            case "enqueue" -> {
                                peerEnqueue = Double.parseDouble(line.get("per_s"));
                                peerBytes = Double.parseDouble(line.get("bytes_per_job"));
                            }
                            case "process" -> peerProcess = Double.parseDouble(line.get("per_s"));
                            default -> { }
                        }
                    }
                } catch (IllegalStateException e) {
                    failure = e.getMessage();
                }
                peerNote = failure == null ? "BullMQ " + version + ": Queue.addBulk, one Worker, default options"
                        : "BullMQ: FAILED, " + failure;
                server.deleteKeys("bull:" + run + ":");
                server.deleteKeys("bull:" + run + "-warm:");
            }
            ours = measureOurs(server, run, err);
        }
        print(out, ours, peerEnqueue, peerBytes, peerProcess, peerNote);
        Record rec = new Record();
        rec.put("enqueue.echomq.per_s", ours.enqueuePerS());
        rec.put("enqueue.bullmq.per_s", peerEnqueue);
        rec.put("enqueue.echomq/bullmq", ours.enqueuePerS() / peerEnqueue);
        rec.put("process.echomq.per_s", ours.processPerS());
        rec.put("process.bullmq.per_s", peerProcess);
        rec.put("process.echomq/bullmq", ours.processPerS() / peerProcess);
        rec.put("bytes_per_job.echomq", ours.bytesPerJob());
        rec.put("bytes_per_job.bullmq", peerBytes);
        rec.put("depth.1000.echomq.per_s", ours.shallowPerS());
        rec.put("depth." + depth + ".echomq.per_s", ours.deepPerS());
        rec.put("depth_ratio", ours.deepPerS() / ours.shallowPerS());
        rec.put("idle.echomq.commands_per_s", ours.idleCommandsPerS());
        rec.writeTo(record);
        return 0;
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

    private Ours measureOurs(BenchServer server, String run, PrintWriter err) throws InterruptedException {
        try (QueueClient client = QueueClient.create(server.url())) {
            int warm = Math.max(1, jobs / 5);
            err.printf("bench: echomq, warm-up round of %,d jobs…%n", warm);
            err.flush();
            enqueue(open(client, run + "-warm"), warm);
            process(client, run + "-warm", warm);
            server.deleteKeys("emq:{" + run + "-warm}");

            err.printf("bench: echomq, bulk enqueue of %,d jobs…%n", jobs);
            err.flush();
            Queue q = open(client, run);
            err.printf("bench: echomq, pending layout %s (read back from the queue)%n", q.layout().wireName());
            server.awaitLazyFree();
            long before = server.infoLong("memory", "used_memory");
            double enqueuePerS = enqueue(q, jobs);
            long after = server.infoLong("memory", "used_memory");
            double bytesPerJob = (after - before) / (double) jobs;

            err.printf("bench: echomq, one worker at concurrency %d drains them…%n", concurrency);
            err.flush();
            double processPerS = process(client, run, jobs);

            double idle = Double.NaN;
            if (idleSeconds > 0) {
                err.printf("bench: echomq, an idle worker watched for %d s…%n", idleSeconds);
                err.flush();
                idle = idleCommands(server, client, run);
            }
            server.deleteKeys("emq:{" + run + "}");

            double shallow = Double.NaN;
            double deep = Double.NaN;
            if (depth > 0) {
                // Both queues stay filled and the windows alternate (shallow, deep, shallow, deep),
                // so that a change in the machine's load during the run falls on both sides.
                Queue small = fill(client, run + "-d" + SHALLOW, SHALLOW, err);
                Queue big = fill(client, run + "-d" + depth, depth, err);
                double[] s = new double[2];
                double[] d = new double[2];
                for (int round = 0; round < 2; round++) {
                    s[round] = cycles(small, SHALLOW, err);
                    d[round] = cycles(big, depth, err);
                }
                shallow = (s[0] + s[1]) / 2;
                deep = (d[0] + d[1]) / 2;
                server.deleteKeys("emq:{" + run + "-d");
            }
            return new Ours(enqueuePerS, bytesPerJob, processPerS, shallow, deep, idle);
        }
    }

    /** @return the queue {@code name}, set to {@code --layout} before anything is enqueued */
    private Queue open(QueueClient client, String name) {
        if (events.equals("off")) {
            QueueEventSettings.off().store(client, name);
        }
        Queue q = client.queue(name);
        QueueLayout wanted = QueueLayout.parse(layout);
        if (wanted != QueueLayout.LIST) {
            q.setLayout(wanted);
        }
        return q;
    }

    private double enqueue(Queue q, int n) {
        long start = System.nanoTime();
        List<JobRequest> chunk = new ArrayList<>(batch);
        for (int i = 0; i < n; i++) {
            chunk.add(JobRequest.of(payload(i)));
            if (chunk.size() == batch || i == n - 1) {
                q.enqueueAll(chunk);
                chunk = new ArrayList<>(batch);
            }
        }
        return n * 1e9 / (System.nanoTime() - start);
    }

    private static byte[] payload(int i) {
        return ("{\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8);
    }

    private double process(QueueClient client, String queue, int n) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(n);
        long start = System.nanoTime();
        try (Worker worker = client.worker(queue, job -> { }).concurrency(concurrency).lease(LEASE)
                .listener(new WorkerListener() {
                    @Override
                    public void onSettled(Job job, SettleOutcome outcome, Throwable error) {
                        if (outcome == SettleOutcome.COMPLETED) {
                            done.countDown();
                        }
                    }
                }).start()) {
            if (!done.await(600, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the worker did not finish " + n + " jobs in 600 s ("
                        + done.getCount() + " left)");
            }
            return n * 1e9 / (System.nanoTime() - start);
        }
    }

    private double idleCommands(BenchServer server, QueueClient client, String queue) throws InterruptedException {
        try (Worker worker = client.worker(queue, job -> { }).start()) {
            TimeUnit.SECONDS.sleep(1);   // let its first claim and subscription settle
            long before = server.infoLong("stats", "total_commands_processed");
            long start = System.nanoTime();
            TimeUnit.SECONDS.sleep(idleSeconds);
            long after = server.infoLong("stats", "total_commands_processed");
            double elapsed = (System.nanoTime() - start) / 1e9;
            return Math.max(0, after - before - 1) / elapsed;   // - 1: our own first INFO
        }
    }

    /** @return the queue {@code name}, its events switched off first when {@code --events off} */

    private Queue fill(QueueClient client, String queue, int pending, PrintWriter err) {
        Queue q = open(client, queue);
        err.printf("bench: echomq, filling a queue to %,d pending…%n", pending);
        err.flush();
        List<JobRequest> fill = new ArrayList<>(10_000);
        for (int i = 0; i < pending; i++) {
            fill.add(JobRequest.of(payload(i)));
            if (fill.size() == 10_000 || i == pending - 1) {
                q.enqueueAll(fill);
                fill = new ArrayList<>(10_000);
            }
        }
        return q;
    }

    /** Claim+complete+enqueue cycles per second on {@code q}, whose depth each cycle restores. */
    private double cycles(Queue q, int pending, PrintWriter err) throws InterruptedException {
        err.printf("bench: echomq, claim+complete+enqueue at depth %,d, %d threads…%n", pending, depthThreads);
        err.flush();
        byte[] body = payload(0);
        LoadLoop.Stats s = LoadLoop.run(depthThreads, Duration.ofSeconds(1), Duration.ofSeconds(Math.max(1, seconds / 2)),
                t -> {
                    long start = System.nanoTime();
                    Job job = q.claim(LEASE).orElseThrow(() -> new IllegalStateException("queue ran dry"));
                    long latency = System.nanoTime() - start;
                    if (job.complete() != SettleOutcome.COMPLETED) {
                        throw new IllegalStateException("complete refused for " + job);
                    }
                    q.enqueue(body);
                    return latency;
                });
        return s.perSecond();
    }

    private void print(PrintWriter out, Ours o, double pEnq, double pBytes, double pProc, String peerNote) {
        String depthName = String.format(Locale.ROOT, "%,d", depth);
        String depthRatio = Report.ratio(o.deepPerS(), o.shallowPerS());
        out.println();
        out.println("peers: " + peerNote);
        out.println();
        out.printf("%-58s %-12s %-12s %-14s %s%n", "queue", "echomq", "bullmq", "echomq/bullmq", "target");
        row(out, "bulk enqueue, jobs/s (" + batch + " per call)", o.enqueuePerS(), pEnq,
                ">= 80,000/s: " + Report.verdict(Report.ratio(o.enqueuePerS(), 80_000), 1, true));
        row(out, "no-op processing, jobs/s (1 worker, concurrency " + concurrency + ")", o.processPerS(), pProc,
                ">= 60,000/s: " + Report.verdict(Report.ratio(o.processPerS(), 60_000), 1, true)
                + ", >= 2x bullmq: " + Report.verdict(Report.ratio(o.processPerS(), pProc), 2, true));
        row(out, "Redis bytes per pending job", o.bytesPerJob(), pBytes,
                "<= 200: " + Report.verdict(Report.ratio(o.bytesPerJob(), 200), 1, false));
        row(out, "claim cycles/s at depth 1,000 (" + depthThreads + " threads)", o.shallowPerS(), Double.NaN, "");
        row(out, "claim cycles/s at depth " + depthName, o.deepPerS(), Double.NaN,
                "ratio " + depthRatio + " >= 0.90: " + Report.verdict(depthRatio, 0.9, true));
        out.printf("%-58s %-12s %-12s %-14s %s%n", "idle worker, commands/s",
                Double.isNaN(o.idleCommandsPerS()) ? "-" : String.format(Locale.ROOT, "%.1f", o.idleCommandsPerS()),
                "-", "", "<= 5: " + Report.verdict(Report.ratio(o.idleCommandsPerS(), 5), 1, false));
        out.printf("queue: process_jobs_per_s=%s enqueue_jobs_per_s=%s bytes_per_job=%s depth_ratio=%s%n",
                whole(o.processPerS()), whole(o.enqueuePerS()), whole(o.bytesPerJob()), depthRatio);
        out.flush();
    }

    private static void row(PrintWriter out, String what, double ours, double peer, String target) {
        out.printf("%-58s %-12s %-12s %-14s %s%n", what, Report.count(ours), Report.count(peer),
                Report.ratio(ours, peer), target);
    }

    private static String whole(double v) {
        return Double.isNaN(v) ? "n/a" : Long.toString(Math.round(v));
    }
}
