package io.echomq.bench;

import io.echomq.queue.SettleOutcome;
import io.echomq.queue.Job;
import io.echomq.queue.JobRequest;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.Worker;
import io.echomq.queue.WorkerListener;
import io.echomq.server.RawRedis;
import io.echomq.server.RedisCluster;
import io.echomq.server.RedisServer;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code emq bench scaling}: one logical queue of no-op jobs, sharded into K partitions, drained
 * on one master and on a three-master cluster, in the same run, by the same client code.
 *
 * <p>It starts echomq-server's servers itself, both from the same binary ({@code EMQ_REDIS_SERVER},
 * else the embedded one): one standalone {@code redis-server} and a {@code RedisCluster} of three
 * masters. Each round drains {@code --jobs} jobs on each topology, in alternating order, after one
 * warm-up run of each that is printed but not counted; the medians are compared. Around each drain
 * it reads {@code INFO cpu} and {@code INFO commandstats} of every master and the client's CPU
 * time ({@link ClientCpu}), so it prints, besides jobs per second, the inputs of the scaling model of
 * {@code docs/scaling.md}: server CPU per job, client CPU per job, script calls per job, and the
 * throughput the model predicts from them. The drain is timed with a worker listener, so the bench
 * sends Redis nothing of its own while it measures. Last, the same jobs drain unsharded on one
 * master, as the reference for the cost of sharding.
 *
 * <p>Figures go to stdout, progress to stderr. The last line is
 * {@code scaling: masters3/masters1=<r> masters1_jobs_per_s=<n> masters3_jobs_per_s=<n>
 * model_ratio=<r> masters_bound_ratio=<r>}: the measured ratio, the medians, the ratio the model
 * predicts (the lower of the masters bound and the cores bound, for each side), and the ratio of
 * the masters bounds alone (what masters with cores of their own would give). {@code --record FILE}
 * appends the same medians, each topology's figures and the three ratios, as {@code name<TAB>value}
 * lines ({@link Record}), for {@code run-all.sh} to take their medians across runs.
 */
@Command(name = "scaling", mixinStandardHelpOptions = true,
        description = "Scale-out: one sharded queue drained on 1 master and on a 3-master cluster, same run.")
final class ScalingBench implements Callable<Integer> {
    static final Duration LEASE = Duration.ofSeconds(60);
    static final int MASTERS = 3;
    static final int DRAIN_TIMEOUT_SECONDS = 600;

    @Spec
    CommandSpec spec;

    @Option(names = "--jobs", paramLabel = "N", defaultValue = "40000",
            description = "No-op jobs drained per run (default ${DEFAULT-VALUE}).")
    int jobs;

    @Option(names = "--partitions", paramLabel = "K", defaultValue = "6",
            description = "Partitions of the sharded queue (default ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--clients", paramLabel = "C", defaultValue = "2",
            description = "Clients, each its own QueueClient and Worker (default ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--concurrency", paramLabel = "H", defaultValue = "32",
            description = "Handlers per worker (default ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--rounds", paramLabel = "R", defaultValue = "5",
            description = "Measured rounds, each one run per topology; the medians are compared"
                + " (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--record", paramLabel = "FILE",
            description = "Append the medians and ratios as name<TAB>value lines to FILE (run-all.sh reads them).")
    java.nio.file.Path record;

    @Override
    public Integer call() throws Exception {
        check();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int cores = Runtime.getRuntime().availableProcessors();
        out.printf(Locale.ROOT, "bench: one queue of %,d no-op jobs, K=%d partitions, %d client(s) x %d handlers,"
                + " %d round(s), %d core(s)%n", jobs, partitions, clients, concurrency, rounds, cores);
        out.flush();
        List<ScalingResult> one = new ArrayList<>();
        List<ScalingResult> three = new ArrayList<>();
        ScalingResult plain;
        err.println("bench: starting a standalone redis-server and a 3-master cluster…");
        err.flush();
        try (RedisServer single = RedisServer.start();
             RedisCluster cluster = RedisCluster.builder().masters(MASTERS).start()) {
            out.printf("server: Redis %s, one standalone and a %d-master cluster of the same binary, started for"
                    + " this run (%s)%n", single.version(), MASTERS, single.binary());
            out.printf("note: every master and this client share this machine's %d core(s); see the model below"
                    + " for what that means for the ratio%n", cores);
            out.println();
            out.println("runs (the two warm-up runs are not counted):");
            out.flush();
            // warm-up, not counted: the first runs of a JVM measure the JIT, not the queue
            print(out, run("warm-up, 1 master", single, null, partitions, err));
            print(out, run("warm-up, 3 masters", null, cluster, partitions, err));
            for (int r = 0; r < rounds; r++) {
                // alternating order, so that a change in the machine's load falls on both sides
                if (r % 2 == 0) {
                    one.add(print(out, run("1 master", single, null, partitions, err)));
                    three.add(print(out, run("3 masters", null, cluster, partitions, err)));
                } else {
                    three.add(print(out, run("3 masters", null, cluster, partitions, err)));
                    one.add(print(out, run("1 master", single, null, partitions, err)));
                }
            }
            plain = print(out, run("1 master, plain queue", single, null, 0, err));
        }
        ScalingResult m1 = median(one);
        ScalingResult m3 = median(three);
        summary(out, m1, m3, plain, cores);
        Record rec = new Record();
        m1.recordInto(rec, "masters1.");
        m3.recordInto(rec, "masters3.");
        plain.recordInto(rec, "plain.");
        rec.put("masters3_masters1", m3.jobsPerSecond() / m1.jobsPerSecond());
        rec.put("model_ratio", m3.predicted(cores) / m1.predicted(cores));
        rec.put("masters_bound_ratio", m3.mastersBound() / m1.mastersBound());
        rec.writeTo(record);
        return 0;
    }

    private void check() {
        rangeCheck(jobs, 1, 10_000_000, "--jobs");
        rangeCheck(partitions, 1, 1024, "--partitions");
        rangeCheck(clients, 1, 64, "--clients");
        rangeCheck(concurrency, 1, Worker.MAX_CONCURRENCY, "--concurrency");
        rangeCheck(rounds, 1, 100, "--rounds");
    }

    private void rangeCheck(int v, int min, int max, String name) {
        if (v < min || v > max) {
            throw new ParameterException(spec.commandLine(), name + " must be in " + min + ".." + max + ", was " + v);
        }
    }

    /** Enqueues the jobs, then starts the workers and measures their drain; {@code k} 0 is a plain queue. */
    private ScalingResult run(String topology, RedisServer single, RedisCluster cluster, int k, PrintWriter err)
            throws InterruptedException {
        err.printf("bench: %s, %,d jobs…%n", topology, jobs);
        err.flush();
        String url = cluster == null ? single.url() : cluster.url();
        List<RedisServer> masters = cluster == null ? List.of(single) : cluster.masters();
        List<QueueClient> open = new ArrayList<>();
        List<Worker> workers = new ArrayList<>();
        try {
            for (int c = 0; c < clients; c++) {
                open.add(QueueClient.builder().redisUrl(url).commandTimeout(Duration.ofSeconds(30)).build());
            }
            String name = balancedName(cluster, k);
            QueueOperations producer = k == 0 ? open.get(0).queue(name) : open.get(0).shardedQueue(name, k);
            List<JobRequest> batch = new ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                batch.add(JobRequest.of("x"));
                if (batch.size() == 5000 || i == jobs - 1) {
                    producer.enqueueAll(batch);
                    batch.clear();
                }
            }
            CountDownLatch done = new CountDownLatch(jobs);
            WorkerListener count = new WorkerListener() {
                @Override
                public void onSettled(Job job, SettleOutcome outcome, Throwable error) {
                    if (outcome == SettleOutcome.COMPLETED) {
                        done.countDown();
                    }
                }
            };
            double[] cpu0 = serverCpu(masters);
            long calls0 = scriptCalls(masters);
            ClientCpu.Reading client0 = ClientCpu.read();
            long start = System.nanoTime();
            for (QueueClient c : open) {
                Worker.Builder b = k == 0 ? c.worker(name, job -> { })
                        : c.worker(c.shardedQueue(name, k), job -> { });
                workers.add(b.concurrency(concurrency).lease(LEASE).listener(count).start());
            }
            if (!done.await(DRAIN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException(topology + ": the workers did not finish " + jobs + " jobs in "
                        + DRAIN_TIMEOUT_SECONDS + " s (" + done.getCount() + " left)");
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            long clientCpu = ClientCpu.nanosSince(client0);
            double[] cpu1 = serverCpu(masters);
            long calls = scriptCalls(masters) - calls0;
            double total = 0;
            double busiest = 0;
            for (int i = 0; i < cpu1.length; i++) {
                total += cpu1[i] - cpu0[i];
                busiest = Math.max(busiest, cpu1[i] - cpu0[i]);
            }
            long completed = producer.stats().completed();
            if (completed != jobs) {
                throw new IllegalStateException(topology + ": the queue counts " + completed + " completed jobs, not "
                        + jobs);
            }
            return new ScalingResult(topology, jobs, seconds, total, busiest, clientCpu / 1e9, calls);
        } finally {
            for (Worker w : workers) {
                w.shutdown(Duration.ofSeconds(5));
            }
            for (QueueClient c : open) {
                c.close();
            }
        }
    }

    private static ScalingResult print(PrintWriter out, ScalingResult r) {
        out.printf(Locale.ROOT, "%-22s %9s jobs/s  server CPU %6.1f us/job  client CPU %6.1f us/job"
                + "  script calls %.2f/job  CPUs obtained %.2f%n", r.topology(), Report.count(r.jobsPerSecond()),
                r.serverCpuPerJobUs(), r.clientCpuPerJobUs(), r.callsPerJob(), r.coresObtained());
        out.flush();
        return r;
    }

    private void summary(PrintWriter out, ScalingResult m1, ScalingResult m3, ScalingResult plain, int cores) {
        String measured = Report.ratio(m3.jobsPerSecond(), m1.jobsPerSecond());
        String boundRatio = Report.ratio(m3.mastersBound(), m1.mastersBound());
        out.println();
        out.printf("%-48s %-12s %-12s %s%n", "median of " + rounds + " round(s), K=" + partitions, "1 master",
                "3 masters", "3/1");
        out.printf("%-48s %-12s %-12s %s%n", "jobs/s", Report.count(m1.jobsPerSecond()),
                Report.count(m3.jobsPerSecond()), measured);
        row(out, "server CPU per job, all masters, us", m1.serverCpuPerJobUs(), m3.serverCpuPerJobUs());
        row(out, "client CPU per job, us", m1.clientCpuPerJobUs(), m3.clientCpuPerJobUs());
        out.printf(Locale.ROOT, "%-48s %-12.2f %-12.2f%n", "script calls per job", m1.callsPerJob(),
                m3.callsPerJob());
        out.printf(Locale.ROOT, "%-48s %-12.2f %-12.2f%n", "CPUs obtained (CPU time / wall time)",
                m1.coresObtained(), m3.coresObtained());
        out.printf("%-48s %-12s %-12s %s%n", "masters bound (busiest master's CPU), jobs/s",
                Report.count(m1.mastersBound()), Report.count(m3.mastersBound()), boundRatio);
        double shared1 = m1.coresBound(cores);
        double shared3 = m3.coresBound(cores);
        out.printf("%-48s %-12s %-12s %s%n", cores + "-core bound (all CPU per job), jobs/s", Report.count(shared1),
                Report.count(shared3), Report.ratio(shared3, shared1));
        double predicted1 = m1.predicted(cores);
        double predicted3 = m3.predicted(cores);
        String modelRatio = Report.ratio(predicted3, predicted1);
        out.printf(Locale.ROOT, "%-48s %-12s %-12s %s%n", "model: min of the two bounds, jobs/s",
                Report.count(predicted1), Report.count(predicted3), modelRatio);
        out.printf(Locale.ROOT, "%-48s %-12.0f %-12.0f%n", "measured, % of the model", 100 * m1.jobsPerSecond()
                / predicted1, 100 * m3.jobsPerSecond() / predicted3);
        out.printf(Locale.ROOT, "plain queue on 1 master (unsharded): %s jobs/s, %.2f script calls per job%n",
                Report.count(plain.jobsPerSecond()), plain.callsPerJob());
        out.println();
        explain(out, m1, m3, measured, modelRatio, shared1, shared3, cores);
        out.printf(Locale.ROOT, "scaling: masters3/masters1=%s masters1_jobs_per_s=%d masters3_jobs_per_s=%d"
                + " model_ratio=%s masters_bound_ratio=%s%n", measured, Math.round(m1.jobsPerSecond()),
                Math.round(m3.jobsPerSecond()), modelRatio, boundRatio);
        out.flush();
    }

    /** The model of docs/scaling.md applied to this run's figures, in words. */
    private static void explain(PrintWriter out, ScalingResult m1, ScalingResult m3, String measured,
                                String modelRatio, double shared1, double shared3, int cores) {
        out.printf(Locale.ROOT, "model: 1 master is bound by %s, 3 masters by %s; the model predicts a ratio of %s,"
                + " measured %s (the runs obtained %.2f and %.2f of the %d CPUs).%n",
                bound(m1, shared1, cores), bound(m3, shared3, cores), modelRatio, measured, m1.coresObtained(),
                m3.coresObtained(), cores);
        if (shared3 < m3.mastersBound()) {
            out.printf(Locale.ROOT, "model: so on this machine more masters cannot help: the masters, the clients and"
                    + " this bench share the same %d core(s), throughput is at most the CPUs obtained / CPU per job,"
                    + " and a job costs %.1f us of CPU on 3 masters against %.1f us on 1 (cluster slot checks,"
                    + " routing, claim rounds over partitions on other nodes).%n", cores, m3.cpuPerJobUs(),
                    m1.cpuPerJobUs());
        }
        out.printf(Locale.ROOT, "model: where each master has its own core, the masters bound rises %s times from 1"
                + " master to 3 (not 3 times: a cluster node spends %.1f us per job, a standalone %.1f us); the clients"
                + " then need about %.1f CPUs of worker processes to reach it.%n",
                Report.ratio(m3.mastersBound(), m1.mastersBound()), m3.serverCpuPerJobUs(), m1.serverCpuPerJobUs(),
                m3.mastersBound() * m3.clientCpuPerJobUs() / 1e6);
    }

    private static String bound(ScalingResult r, double shared, int cores) {
        return shared < r.mastersBound()
                ? String.format(Locale.ROOT, "the %d shared core(s) (%s jobs/s)", cores, Report.count(shared))
                : String.format(Locale.ROOT, "its busiest master (%s jobs/s)", Report.count(r.mastersBound()));
    }

    private static void row(PrintWriter out, String what, double a, double b) {
        out.printf(Locale.ROOT, "%-48s %-12.1f %-12.1f%n", what, a, b);
    }

    private static ScalingResult median(List<ScalingResult> rs) {
        List<ScalingResult> sorted = new ArrayList<>(rs);
        sorted.sort((a, b) -> Double.compare(a.jobsPerSecond(), b.jobsPerSecond()));
        return sorted.get(sorted.size() / 2);
    }

    /** @return used_cpu_sys + used_cpu_user of each server, in seconds */
    private static double[] serverCpu(List<RedisServer> servers) {
        double[] out = new double[servers.size()];
        for (int i = 0; i < out.length; i++) {
            String info = info(servers.get(i), "cpu");
            out[i] = number(info, "used_cpu_sys") + number(info, "used_cpu_user");
        }
        return out;
    }

    /**
     * @return a fresh queue name whose partitions fall as evenly as they can on the masters (their
     *     counts differ by at most one), as an operator would choose it with {@code CLUSTER KEYSLOT}
     */
    private static String balancedName(RedisCluster cluster, int partitions) {
        String stem = "bench-" + System.nanoTime() + "-";
        if (cluster == null || partitions == 0) {
            return stem;
        }
        for (int i = 0; ; i++) {
            int[] perMaster = new int[cluster.masters().size()];
            for (int p = 0; p < partitions; p++) {
                perMaster[cluster.ownerOf(RedisCluster.slot("emq:{" + stem + i + "#" + p + "}:pending"))]++;
            }
            int min = Integer.MAX_VALUE;
            int max = 0;
            for (int n : perMaster) {
                min = Math.min(min, n);
                max = Math.max(max, n);
            }
            if (max - min <= 1) {
                return stem + i;
            }
        }
    }

    /** @return EVALSHA and EVAL calls summed over the servers */
    private static long scriptCalls(List<RedisServer> servers) {
        long total = 0;
        for (RedisServer s : servers) {
            for (String line : info(s, "commandstats").split("\r?\n")) {
                if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                    String calls = line.substring(line.indexOf("calls=") + 6);
                    total += Long.parseLong(calls.substring(0, calls.indexOf(',')));
                }
            }
        }
        return total;
    }

    private static String info(RedisServer s, String section) {
        try (RawRedis raw = RawRedis.connect(s.host(), s.port())) {
            Object v = raw.call("INFO", section);
            return v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(v);
        }
    }

    private static double number(String info, String name) {
        String v = BenchServer.field(info, name);
        if ("?".equals(v)) {
            throw new IllegalStateException("INFO has no " + name);
        }
        return Double.parseDouble(v);
    }

}
