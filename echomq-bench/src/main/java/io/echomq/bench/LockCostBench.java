package io.echomq.bench;

import io.echomq.lock.AcquireOptions;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code emq bench lock-cost}: what one uncontended {@code tryAcquire} + {@code release()} pair
 * costs the client, fenced and plain, on one thread and one resource (see {@link PairCost}):
 * bytes allocated per pair, process CPU µs per pair (net of the idle rate) with the load
 * average, and, when the JVM runs with Epsilon, objects per pair by class. Then the same for the
 * bare Lettuce pair of the locks bench's limit row ({@link Limit#pair}: {@code SET NX PX} and a
 * compare-and-delete, on a client of Lettuce's default options), so that our cost reads against
 * what the driver alone costs.
 *
 * <p>Not a throughput bench: one thread waits for every reply, so wall time is mostly the round
 * trips. The last line is {@code lock-cost: fenced_bytes=<b> plain_bytes=<b> fenced_cpu_us=<µs>
 * plain_cpu_us=<µs> limit_bytes=<b> limit_cpu_us=<µs>}.
 */
@Command(name = "lock-cost", mixinStandardHelpOptions = true,
        description = "Client cost of one uncontended acquire+release pair: bytes, CPU µs, objects (with Epsilon).")
final class LockCostBench implements Callable<Integer> {
    private static final Duration TTL = Duration.ofSeconds(30);

    @Spec
    CommandSpec spec;

    @Option(names = "--pairs", paramLabel = "N", defaultValue = "100000",
            description = "Measured pairs per mode (default ${DEFAULT-VALUE}).")
    long pairs;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "50000",
            description = "Pairs run first in each mode, unmeasured, so the JIT has compiled the path (default ${DEFAULT-VALUE}).")
    long warmup;

    @Option(names = "--idle-ms", paramLabel = "MS", defaultValue = "1000",
            description = "How long to measure the idle CPU rate before each mode (default ${DEFAULT-VALUE}).")
    long idleMillis;

    @Option(names = "--redis", paramLabel = "URL",
            description = "Use this server (keys under emq:lock:{emq-cost-…). Default: start the embedded redis-server.")
    String redis;

    @Override
    public Integer call() throws Exception {
        if (pairs < 1 || warmup < 0 || idleMillis < 0) {
            throw new ParameterException(spec.commandLine(), "--pairs must be at least 1, --warmup and --idle-ms not negative");
        }
        PrintWriter out = spec.commandLine().getOut();
        boolean histogram = PairCost.histogramCountsAll();
        try (BenchServer server = BenchServer.open(redis, out);
             LockClient locks = LockClient.create(server.url())) {
            out.printf("lock-cost: %d pairs per mode after %d warm-up pairs, one thread, ttl %d ms; objects by class: %s%n",
                    pairs, warmup, TTL.toMillis(), histogram ? "yes (Epsilon)" : "no (run with -XX:+UnlockExperimentalVMOptions -XX:+UseEpsilonGC)");
            String run = Long.toString(System.nanoTime(), 36);
            PairCost.Figures fenced = mode(out, locks, "fenced", "emq-cost-" + run + "-f", AcquireOptions.defaults(), histogram);
            PairCost.Figures plain = mode(out, locks, "plain", "emq-cost-" + run + "-p", AcquireOptions.defaults().plain(), histogram);
            PairCost.Figures limit;
            try (Limit bare = new Limit(server.url())) {
                limit = measure(out, "limit", bare.pair("emq-bench:cost-" + run + ":limit"), histogram);
            }
            out.printf("lock-cost: fenced_bytes=%.0f plain_bytes=%.0f fenced_cpu_us=%.1f plain_cpu_us=%.1f"
                            + " limit_bytes=%.0f limit_cpu_us=%.1f%n",
                    fenced.totalBytesPerCall(), plain.totalBytesPerCall(), fenced.cpuMicrosPerCall(), plain.cpuMicrosPerCall(),
                    limit.totalBytesPerCall(), limit.cpuMicrosPerCall());
        }
        return 0;
    }

    private PairCost.Figures mode(PrintWriter out, LockClient locks, String name, String resource,
                                  AcquireOptions options, boolean histogram) throws Exception {
        Runnable pair = () -> {
            Lease lease = locks.tryAcquire(resource, TTL, options)
                    .orElseThrow(() -> new IllegalStateException("'" + resource + "' was held: is another run using it?"));
            lease.release();
        };
        return measure(out, name, pair, histogram);
    }

    private PairCost.Figures measure(PrintWriter out, String name, Runnable pair, boolean histogram) throws Exception {
        for (long i = 0; i < warmup; i++) {
            pair.run();
        }
        PairCost.Figures f = PairCost.measure(pair, pairs, idleMillis, histogram);
        out.printf("%-6s  bytes/pair %,8.0f (caller thread %,6.0f)  objects/pair %s  client CPU µs/pair %6.1f"
                        + "  wall µs/pair %6.1f  load average %.1f%n",
                name, f.totalBytesPerCall(), f.threadBytesPerCall(),
                histogram ? String.format("%.1f", f.objectsPerCallTotal()) : "n/a",
                f.cpuMicrosPerCall(), f.wallMicrosPerCall(), f.loadAverage());
        for (Map.Entry<String, Double> e : f.objectsPerCall().entrySet()) {
            out.printf("          %6.2f  %s%n", e.getValue(), e.getKey());
        }
        out.flush();
        return f;
    }
}
