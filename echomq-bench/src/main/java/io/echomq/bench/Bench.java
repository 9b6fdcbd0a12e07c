package io.echomq.bench;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code emq bench}: our locks and queue against their peers, on one Redis server, in one run;
 * and one sharded queue on one master against three, in one run.
 *
 * <pre>
 * emq bench locks [--threads 1,16,64] [--seconds 5] [--rounds 3] [--load] [--redis URL]   # vs Redisson RLock and a bare Lettuce loop
 * emq bench queue [--jobs 100000] [--concurrency 50] [--rounds 3] [--load] [--redis URL]  # vs BullMQ
 * emq bench scaling [--jobs 40000] [--partitions 6] [--rounds 5]     # one sharded queue, 1 master vs 3
 * emq bench renewal-lag [--ttl 3000] [--seconds 30] [--spin N] [--churn N] [--load]   # the watchdog's lag under load
 * emq bench dashboard [--jobs 1000000] [--locks 1000000] [--rounds 7]   # every dashboard page's time on a large server
 * emq bench soak [--minutes 10] [--concurrency 50] [--interval 10]   # a queue's memory under a sustained full-rate load
 * </pre>
 *
 * <p>{@code locks} and {@code queue} run ours and the peer in A/B rounds that take turns to go
 * first ({@link Rounds}), and report each ratio as the median of the per-round ratios with its
 * range ({@link Spread}); {@code --load} runs them beside a CPU hog ({@link CpuHog}). Figures and
 * ratios go to stdout, progress to stderr. The last line of each bench is a
 * machine-readable summary ({@code locks: …}, {@code queue: …}, {@code scaling: …}, {@code soak: …}).
 * Exit codes: 0 done (a missing peer is reported, not an error), 1 a soak whose memory was not
 * bounded (FAIL), 2 bad input, 3 Redis failed or a measurement failed.
 */
@Command(name = "emq bench", mixinStandardHelpOptions = true,
        description = "Benchmarks EchoMQ against Redisson (locks) and BullMQ (queue) on the same Redis,"
            + " and one sharded queue on 1 master against 3 (scaling); a queue's memory under a sustained load (soak).",
        subcommands = {LockBench.class, QueueBench.class, ScalingBench.class, LockCostBench.class,
            RenewalLagBench.class, DashboardBench.class, SoakBench.class})
public final class Bench {
    Bench() {
    }

    /**
     * Runs {@code emq bench} and exits with its exit code.
     *
     * @param args the command line after {@code bench}
     */
    public static void main(String[] args) {
        CommandLine cli = commandLine();
        cli.setOut(new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true));
        cli.setErr(new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true));
        System.exit(cli.execute(args));
    }

    /**
     * @return the command tree, with a Redis or measurement failure mapped to exit code 3 (bad
     *     input is picocli's exit code 2)
     */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Bench());
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("emq bench: failed: " + e);
            if (!(e instanceof io.lettuce.core.RedisException) && !(e instanceof io.echomq.RedisCommandException)) {
                e.printStackTrace(cmd.getErr());
            }
            return 3;
        });
        return cli;
    }
}
