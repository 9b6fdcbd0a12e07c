package io.echomq.bench;

import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.Worker;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code emq bench soak}: whether a queue's memory stays bounded under a sustained full-rate load
 * with the default settings. One worker at {@code --concurrency} runs a no-op handler with
 * everything a normal worker has on (heartbeats, throughput history, the queue's events stream at
 * its default cap), on a client with default settings (so completed jobs are kept as the
 * default says); {@link SoakFeeder} keeps the queue fed in bulk calls with the pending count
 * bounded, so the worker never waits and the pending jobs do not grow.
 *
 * <p>Every {@code --interval} seconds it prints a sample ({@link SoakSamples}): the server's
 * {@code used_memory} ({@code INFO memory}), {@code DBSIZE}, and the jobs per second completed
 * since the last sample. At the end it prints the second half's first and last
 * {@code used_memory}, its max/min ratio, and {@code PASS} when that ratio is within 10%, else
 * {@code FAIL}. The last line is {@code soak: seconds=… jobs=… jobs_per_s=… first_used_memory=…
 * last_used_memory=… max_min_ratio=… verdict=PASS|FAIL}. Exit code 0 on PASS, 1 on FAIL, 2 bad
 * input, 3 Redis failed.
 *
 * <p>{@code --retain-completed MS} gives the client that retention instead of the default, to
 * see what keeping completed hashes does to the memory.
 */
@Command(name = "soak", mixinStandardHelpOptions = true,
        description = "A full-rate no-op load for --minutes with default settings; samples Redis used_memory and "
            + "DBSIZE every --interval seconds and says PASS when the second half's memory stays within 10%%.")
final class SoakBench implements Callable<Integer> {
    /** Jobs per bulk enqueue call. */
    static final int BATCH = 1000;
    /** Producer threads feeding the queue. */
    static final int PRODUCERS = 2;

    @Spec
    CommandSpec spec;

    @Option(names = "--minutes", paramLabel = "M", defaultValue = "10",
            description = "How long the load runs (default ${DEFAULT-VALUE}).")
    int minutes;

    @Option(names = "--seconds", paramLabel = "S",
            description = "How long the load runs, in seconds, instead of --minutes (short runs and tests).")
    Integer seconds;

    @Option(names = "--concurrency", paramLabel = "C", defaultValue = "50",
            description = "Handlers of the one worker (default ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--interval", paramLabel = "S", defaultValue = "10",
            description = "Seconds between samples (default ${DEFAULT-VALUE}).")
    int interval;

    @Option(names = "--top-up", paramLabel = "N", defaultValue = "20000",
            description = "The producers enqueue while fewer jobs than this are pending (default ${DEFAULT-VALUE}).")
    int topUp;

    @Option(names = "--retain-completed", paramLabel = "MS",
            description = "Give the client this retainCompleted, in ms, instead of the default.")
    Long retainCompletedMs;

    @Option(names = "--redis", paramLabel = "URL",
            description = "Use this server; only the queue soak<4 chars> is touched, and deleted after. "
                + "Default: start the embedded redis-server.")
    String redis;

    @Override
    public Integer call() throws Exception {
        long runSeconds = check();
        PrintWriter out = spec.commandLine().getOut();
        SoakSamples samples = new SoakSamples();
        long runMs = TimeUnit.SECONDS.toMillis(runSeconds);
        long jobs;
        try (BenchServer server = BenchServer.open(redis, out)) {
            String name = "soak" + Long.toString(System.nanoTime() % 1_679_616, 36);
            QueueClient.Builder b = QueueClient.builder().redisUrl(server.url());
            if (retainCompletedMs != null) {
                b.retainCompleted(Duration.ofMillis(retainCompletedMs));
            }
            out.printf("soak: %d s, one worker at concurrency %d, no-op handler; events on (the queue's default cap), "
                    + "heartbeats and throughput history on; client retainCompleted %s; the producers keep "
                    + "pending under %,d + %d x %,d%n", runSeconds, concurrency,
                    retainCompletedMs == null ? "default (" + QueueClient.DEFAULT_RETAIN_COMPLETED.toMillis() + " ms)"
                            : retainCompletedMs + " ms (--retain-completed)", topUp, PRODUCERS, BATCH);
            out.flush();
            try (QueueClient client = b.build()) {
                Queue q = client.queue(name);
                try (Worker worker = client.worker(name, job -> { }).concurrency(concurrency).start();
                     SoakFeeder feeder = SoakFeeder.start(q, PRODUCERS, BATCH, topUp)) {
                    long start = System.nanoTime();
                    for (long next = interval; next <= runSeconds; next += interval) {
                        long due = start + TimeUnit.SECONDS.toNanos(next);
                        while (System.nanoTime() - due < 0 && feeder.failure() == null) {
                            TimeUnit.MILLISECONDS.sleep(Math.min(100, Math.max(1, (due - System.nanoTime()) / 1_000_000)));
                        }
                        if (feeder.failure() != null) {
                            break;   // the feeder's close rethrows it
                        }
                        long used = server.infoLong("memory", "used_memory");
                        long keys = server.sync().dbsize();
                        long completed = q.stats().completed();
                        out.println(samples.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), used, keys,
                                completed).line());
                        out.flush();
                    }
                    jobs = q.stats().completed();
                }
            } finally {
                server.deleteKeys("emq:{" + name + "}");
            }
        }
        SoakSamples.Verdict v = samples.verdict(runMs);
        out.printf("second half: first used_memory %,d (t=%d s), last %,d (t=%d s); min %,d, max %,d%n",
                v.first().usedMemory(), v.first().atMs() / 1000, v.last().usedMemory(), v.last().atMs() / 1000,
                v.min(), v.max());
        out.printf(Locale.ROOT, "%s: the second half's used_memory max/min is %.3f, %s%n", v.word(),
                v.ratio(), v.pass() ? "within 10%" : "not within 10%");
        out.printf(Locale.ROOT, "soak: seconds=%d jobs=%d jobs_per_s=%.0f first_used_memory=%d last_used_memory=%d "
                + "max_min_ratio=%.3f verdict=%s%n", runSeconds, jobs, jobs * 1000.0 / runMs, v.first().usedMemory(),
                v.last().usedMemory(), v.ratio(), v.word());
        return v.pass() ? 0 : 1;
    }

    /** @return the run's length in seconds, after checking every option */
    private long check() {
        long run = seconds != null ? seconds : TimeUnit.MINUTES.toSeconds(minutes);
        if (seconds == null && (minutes < 1 || minutes > 24 * 60)) {
            throw new ParameterException(spec.commandLine(), "--minutes must be in 1..1440, was " + minutes);
        }
        if (interval < 1 || interval > 3600) {
            throw new ParameterException(spec.commandLine(), "--interval must be in 1..3600, was " + interval);
        }
        if (run < 2L * interval || run > TimeUnit.DAYS.toSeconds(1)) {
            throw new ParameterException(spec.commandLine(), "the run must last 2 x --interval (" + 2 * interval
                    + " s) .. 1 day, so that its second half holds 2 samples; was " + run + " s");
        }
        if (concurrency < 1 || concurrency > Worker.MAX_CONCURRENCY) {
            throw new ParameterException(spec.commandLine(), "--concurrency must be in 1.." + Worker.MAX_CONCURRENCY
                    + ", was " + concurrency);
        }
        if (topUp < 1 || topUp > 10_000_000) {
            throw new ParameterException(spec.commandLine(), "--top-up must be in 1..10000000, was " + topUp);
        }
        if (retainCompletedMs != null && (retainCompletedMs < 0 || retainCompletedMs > Duration.ofDays(365).toMillis())) {
            throw new ParameterException(spec.commandLine(), "--retain-completed must be in 0.."
                    + Duration.ofDays(365).toMillis() + " ms, was " + retainCompletedMs);
        }
        if (redis != null && !(redis.startsWith("redis://") || redis.startsWith("rediss://"))) {
            throw new ParameterException(spec.commandLine(), "--redis must be a redis:// or rediss:// URL");
        }
        return run;
    }
}
