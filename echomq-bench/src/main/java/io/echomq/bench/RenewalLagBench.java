package io.echomq.bench;

import io.echomq.lock.AcquireOptions;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code emq bench renewal-lag}: how late the lock watchdog renews under load. Holds
 * {@code --leases} watched leases of {@code --ttl}, each on its own client (so each has its own
 * watchdog and {@link RenewalProbe}), for {@code --seconds}, beside the chosen load: spinning
 * threads in this JVM ({@code --spin}), allocating threads ({@code --churn}), a busy loop in its
 * own process ({@code --load}). A lease that is lost is counted and acquired again.
 *
 * <p>Prints the distribution of each renewal's send and answer time after it was due (a third of
 * the ttl after the previous renewal was sent), and how many answers came later than a third of
 * the ttl after that. The last line is {@code renewal-lag: renewals=… answered_p99_ms=… late=… lost=…}.
 */
@Command(name = "renewal-lag", mixinStandardHelpOptions = true,
        description = "How late the lock watchdog renews leases under a CPU hog and GC pressure.")
final class RenewalLagBench implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "30", description = "How long to hold the leases (default ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--ttl", paramLabel = "MS", defaultValue = "3000", description = "The leases' ttl in ms (default ${DEFAULT-VALUE}).")
    long ttlMillis;

    @Option(names = "--leases", paramLabel = "N", defaultValue = "4", description = "Leases held, each on its own client (default ${DEFAULT-VALUE}).")
    int leases;

    @Option(names = "--spin", paramLabel = "N", defaultValue = "0",
            description = "Spinning threads in this JVM (a CPU hog); e.g. 4 x the cores (default ${DEFAULT-VALUE}).")
    int spin;

    @Option(names = "--churn", paramLabel = "N", defaultValue = "0",
            description = "Allocating threads in this JVM (GC pressure) (default ${DEFAULT-VALUE}).")
    int churn;

    @Option(names = "--load", description = "Also run a busy loop in its own process (as the other benches' --load).")
    boolean load;

    @Option(names = "--redis", paramLabel = "URL", description = "Use this server. Default: start the embedded redis-server.")
    String redis;

    @Override
    public Integer call() throws Exception {
        if (seconds < 1 || ttlMillis < 30 || leases < 1 || spin < 0 || churn < 0) {
            throw new ParameterException(spec.commandLine(),
                    "--seconds and --leases must be at least 1, --ttl at least 30, --spin and --churn not negative");
        }
        PrintWriter out = spec.commandLine().getOut();
        LagSamples samples = new LagSamples();
        try (BenchServer server = BenchServer.open(redis, out)) {
            String run = "emq-bench-lag-" + Long.toString(System.nanoTime(), 36);
            List<LockClient> clients = new ArrayList<>();
            List<RenewalProbe> probes = new ArrayList<>();
            List<Lease> held = new ArrayList<>();
            Duration ttl = Duration.ofMillis(ttlMillis);
            try {
                for (int i = 0; i < leases; i++) {
                    RenewalProbe probe = new RenewalProbe(samples);
                    clients.add(LockClient.builder().redisUrl(server.url()).instrumentation(probe).build());
                    probes.add(probe);
                    held.add(null);
                }
                try (CpuHog hog = load ? CpuHog.start() : null; JvmPressure pressure = JvmPressure.start(spin, churn)) {
                    out.printf("renewal-lag: %d lease(s) of %d ms for %d s; in-JVM load: %s; other process: %s%n",
                            leases, ttlMillis, seconds, pressure.description(), hog == null ? "none" : hog.description());
                    out.flush();
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
                    while (System.nanoTime() - end < 0) {
                        for (int i = 0; i < leases; i++) {
                            Lease l = held.get(i);
                            if (l == null || l.isLost()) {
                                if (l != null) {
                                    probes.get(i).finish();
                                }
                                Lease fresh = clients.get(i).tryAcquire(run + "-" + i, ttl,
                                        AcquireOptions.defaults().withWatchdog()).orElse(null);
                                if (fresh != null) {
                                    probes.get(i).watch(fresh);
                                }
                                held.set(i, fresh);
                            }
                        }
                        Thread.sleep(Math.min(100, ttlMillis / 10));
                    }
                }
            } finally {
                for (int i = 0; i < held.size(); i++) {
                    probes.get(i).finish();
                    if (held.get(i) != null) {
                        held.get(i).releaseAsync();
                    }
                }
                clients.forEach(LockClient::close);
            }
        }
        out.println(samples.describe());
        out.println("renewal-lag: " + samples.summary());
        return 0;
    }
}
