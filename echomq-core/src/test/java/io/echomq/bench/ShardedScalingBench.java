package io.echomq.bench;

import io.echomq.queue.JobRequest;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.ShardedQueue;
import io.echomq.queue.Worker;
import io.echomq.testkit.RawRedis;
import io.echomq.testkit.RedisCluster;
import io.echomq.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * Benchmark, not a test: one logical queue of no-op jobs, sharded into K partitions, processed on
 * one master and on a three-master cluster, in the same run, by the same client code. Prints the
 * jobs per second of each, their ratio, and the inputs of the scaling model in
 * {@code docs/scaling.md}: server CPU per job (from {@code INFO cpu} of every master), client CPU
 * per job, and script calls per job (from {@code INFO commandstats}), and the throughput the model
 * predicts from them.
 *
 * <p>Run from the repository root (the servers are the test kit's, so {@code EMQ_REDIS_SERVER}
 * picks the binary):
 *
 * <pre>
 * mvn -B -o -q test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.cp \
 *     -Dmdep.includeScope=test -pl echomq-core -am
 * java -cp echomq-core/target/test-classes:echomq-core/target/classes:$(cat echomq-core/target/bench.cp) \
 *     io.echomq.bench.ShardedScalingBench [jobs] [partitions] [clients] [concurrency] [rounds]
 * </pre>
 *
 * Defaults: 20000 jobs, 6 partitions, 2 clients (each its own QueueClient and Worker), 32
 * handlers per worker, 3 rounds (each round measures both topologies, in alternating order, after
 * one warm-up run of each that is printed but not counted). The medians are compared.
 */
public final class ShardedScalingBench {
    private ShardedScalingBench() {
    }

    /** What one measured drain cost. */
    record Result(String topology, int masters, long jobs, double seconds, double serverCpuSeconds,
                  double busiestMasterCpuSeconds, double clientCpuSeconds, long scriptCalls) {
        double jobsPerSecond() {
            return jobs / seconds;
        }

        double serverCpuPerJobUs() {
            return serverCpuSeconds * 1e6 / jobs;
        }

        /** @return the jobs/s at which the busiest master would use all of its one thread */
        double mastersBound() {
            return jobs / busiestMasterCpuSeconds;
        }

        double clientCpuPerJobUs() {
            return clientCpuSeconds * 1e6 / jobs;
        }

        double callsPerJob() {
            return (double) scriptCalls / jobs;
        }

        /** @return CPUs this run obtained: all its processes' CPU time over the elapsed time */
        double coresObtained() {
            return (serverCpuSeconds + clientCpuSeconds) / seconds;
        }
    }

    /**
     * @param args jobs, partitions, clients, concurrency, rounds (all optional, positional)
     * @throws Exception if a server cannot be started or Redis fails
     */
    public static void main(String[] args) throws Exception {
        int jobs = arg(args, 0, 20_000);
        int partitions = arg(args, 1, 6);
        int clients = arg(args, 2, 2);
        int concurrency = arg(args, 3, 32);
        int rounds = arg(args, 4, 3);
        int cores = Runtime.getRuntime().availableProcessors();
        System.out.printf(Locale.ROOT, "sharded queue bench: %d no-op jobs, K=%d partitions, %d clients x %d handlers,"
                + " %d rounds, %d cores%n", jobs, partitions, clients, concurrency, rounds, cores);
        List<Result> one = new ArrayList<>();
        List<Result> three = new ArrayList<>();
        try (RedisServer single = RedisServer.start(); RedisCluster cluster = RedisCluster.start()) {
            System.out.println("server: " + single.version());
            // warm-up, not counted: the first runs of a JVM measure the JIT, not the queue
            run("warm-up, 1 master", single, null, jobs, partitions, clients, concurrency);
            run("warm-up, 3 masters", null, cluster, jobs, partitions, clients, concurrency);
            for (int r = 0; r < rounds; r++) {
                if (r % 2 == 0) {
                    one.add(run("1 master", single, null, jobs, partitions, clients, concurrency));
                    three.add(run("3 masters", null, cluster, jobs, partitions, clients, concurrency));
                } else {
                    three.add(run("3 masters", null, cluster, jobs, partitions, clients, concurrency));
                    one.add(run("1 master", single, null, jobs, partitions, clients, concurrency));
                }
            }
            Result plain = run("1 master, plain queue", single, null, jobs, 0, clients, concurrency);
            print(plain);
        }
        Result m1 = median(one);
        Result m3 = median(three);
        System.out.printf(Locale.ROOT, "median 1 master : %,.0f jobs/s%n", m1.jobsPerSecond());
        System.out.printf(Locale.ROOT, "median 3 masters: %,.0f jobs/s%n", m3.jobsPerSecond());
        System.out.printf(Locale.ROOT, "ratio 3 masters / 1 master: %.2f%n", m3.jobsPerSecond() / m1.jobsPerSecond());
        // On a box where every process shares the same CPUs, the model predicts the ratio from the
        // CPU each job costs in all: (server + client) on 1 master over the same on 3 masters.
        double predictedRatio = (m1.serverCpuPerJobUs() + m1.clientCpuPerJobUs())
                / (m3.serverCpuPerJobUs() + m3.clientCpuPerJobUs());
        System.out.printf(Locale.ROOT, "model, shared CPUs: predicted ratio %.2f (CPU per job %.1f us vs %.1f us)%n",
                predictedRatio, m1.serverCpuPerJobUs() + m1.clientCpuPerJobUs(),
                m3.serverCpuPerJobUs() + m3.clientCpuPerJobUs());
        // The model: a master is one thread, so one master serves at most 1 / (server CPU per job)
        // jobs/s, and M masters M times that; on this machine every process shares `cores` CPUs,
        // so the whole run is also bounded by cores / (server + client CPU per job).
        for (Result m : List.of(m1, m3)) {
            double perMaster = m.mastersBound();
            double sharedCpu = cores * 1e6 / (m.serverCpuPerJobUs() + m.clientCpuPerJobUs());
            System.out.printf(Locale.ROOT, "model %-9s: masters bound %,.0f jobs/s, %d-core bound %,.0f jobs/s,"
                    + " predicted %,.0f, measured %,.0f (%.0f%% of predicted)%n", m.topology(), perMaster, cores,
                    sharedCpu, Math.min(perMaster, sharedCpu), m.jobsPerSecond(),
                    100 * m.jobsPerSecond() / Math.min(perMaster, sharedCpu));
        }
    }

    private static Result run(String topology, RedisServer single, RedisCluster cluster, int jobs, int partitions,
                              int clients, int concurrency) throws Exception {
        String url = cluster == null ? single.url() : cluster.url();
        List<RedisServer> masters = cluster == null ? List.of(single) : cluster.masters();
        List<QueueClient> open = new ArrayList<>();
        List<Worker> workers = new ArrayList<>();
        try {
            for (int c = 0; c < clients; c++) {
                open.add(QueueClient.builder().redisUrl(url).commandTimeout(Duration.ofSeconds(30)).build());
            }
            String name = balancedName(cluster, partitions);
            QueueOperations producer = partitions == 0 ? open.get(0).queue(name) : open.get(0).shardedQueue(name, partitions);
            List<JobRequest> batch = new ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                batch.add(JobRequest.of("x"));
                if (batch.size() == 5000 || i == jobs - 1) {
                    producer.enqueueAll(batch);
                    batch.clear();
                }
            }
            double[] cpu0 = serverCpu(masters);
            long calls0 = scriptCalls(masters);
            long client0 = processCpuNanos();
            long start = System.nanoTime();
            for (QueueClient c : open) {
                Worker.Builder b = partitions == 0 ? c.worker(name, job -> { })
                        : c.worker(c.shardedQueue(name, partitions), job -> { });
                workers.add(b.concurrency(concurrency).lease(Duration.ofSeconds(60)).start());
            }
            while (producer.stats().completed() < jobs) {
                LockSupport.parkNanos(2_000_000);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            long clientCpu = processCpuNanos() - client0;
            double[] cpu1 = serverCpu(masters);
            double total = 0;
            double busiest = 0;
            for (int i = 0; i < cpu1.length; i++) {
                total += cpu1[i] - cpu0[i];
                busiest = Math.max(busiest, cpu1[i] - cpu0[i]);
            }
            Result r = new Result(topology, masters.size(), jobs, seconds, total, busiest, clientCpu / 1e9,
                    scriptCalls(masters) - calls0);
            if (partitions != 0) {
                print(r);
            }
            return r;
        } finally {
            for (Worker w : workers) {
                w.shutdown(Duration.ofSeconds(5));
            }
            for (QueueClient c : open) {
                c.close();
            }
        }
    }

    private static void print(Result r) {
        System.out.printf(Locale.ROOT, "%-22s %,9.0f jobs/s  server CPU %6.1f us/job  client CPU %6.1f us/job"
                + "  script calls %.2f/job  CPUs obtained %.2f%n", r.topology(), r.jobsPerSecond(), r.serverCpuPerJobUs(),
                r.clientCpuPerJobUs(), r.callsPerJob(), r.coresObtained());
    }

    private static Result median(List<Result> rs) {
        List<Result> sorted = new ArrayList<>(rs);
        sorted.sort((a, b) -> Double.compare(a.jobsPerSecond(), b.jobsPerSecond()));
        return sorted.get(sorted.size() / 2);
    }

    /** @return used_cpu_sys + used_cpu_user of each server, in seconds */
    private static double[] serverCpu(List<RedisServer> servers) {
        double[] out = new double[servers.size()];
        for (int i = 0; i < out.length; i++) {
            String info = info(servers.get(i), "cpu");
            out[i] = field(info, "used_cpu_sys") + field(info, "used_cpu_user");
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
            return v instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8) : String.valueOf(v);
        }
    }

    private static double field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return Double.parseDouble(line.substring(name.length() + 1).trim());
            }
        }
        throw new IllegalStateException("INFO has no " + name);
    }

    private static long processCpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration()
                .orElseThrow(() -> new IllegalStateException("this OS does not report the process CPU time"))
                .toNanos();
    }

    private static int arg(String[] args, int i, int fallback) {
        if (args.length <= i) {
            return fallback;
        }
        int v = Integer.parseInt(args[i]);
        if (v < 1) {
            throw new IllegalArgumentException("argument " + (i + 1) + " must be positive, was " + v);
        }
        return v;
    }
}
