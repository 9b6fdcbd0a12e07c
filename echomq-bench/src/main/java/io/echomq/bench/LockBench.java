package io.echomq.bench;

import io.echomq.bench.loop.LoadLoop;
import io.echomq.lock.AcquireOptions;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * {@code emq bench locks}: fenced acquire+release pairs per second and acquire latency on
 * distinct resources, and handoffs per second with the acquire wait on one shared resource, for
 * rows measured with the same loop on the same server:
 *
 * <ol>
 *   <li>{@code echomq}: {@link LockClient#tryAcquire} (fenced) then {@link Lease#release()};
 *       contended: {@link LockClient#acquire} with a wait, then release.</li>
 *   <li>{@code redisson}: {@code RLock.tryLock(0, ttl)} then {@code unlock()}, in its own JVM.</li>
 *   <li>{@code limit}: bare Lettuce, {@code SET NX PX} then an {@code EVALSHA} compare-and-delete,
 *       on one shared connection, as ours; contended, it polls every millisecond.</li>
 *   <li>{@code scripted} (distinct resources only): the ceiling of a fenced lock, one
 *       {@code EVALSHA} that runs {@code SET NX PX} and takes the next fence ({@code INCR}), then
 *       the limit's compare-and-delete, in the limit's loop ({@link ScriptedLimit}); so
 *       {@code echomq/scripted} compares like with like.</li>
 *   <li>{@code plain} (distinct resources only): ours in plain mode,
 *       {@link AcquireOptions#plain()} (exactly one {@code SET NX PX}) then {@link Lease#release()}:
 *       the same commands as the limit, so {@code plain/limit} is the library's own cost.</li>
 * </ol>
 *
 * <p>Ours (with the limit, row by row) and Redisson run in {@code --rounds} A/B rounds that take
 * turns to go first ({@link Rounds}); each round's table is printed as it ends, then the medians
 * and the median of each per-round ratio with its range ({@link LockTables}). {@code --load}
 * runs it all beside a {@link CpuHog}. The last line is
 * {@code locks: echomq/redisson=<median> echomq/limit=<median> plain/limit=<median>
 * echomq/scripted=<median>} at 16 threads
 * on distinct resources (the thread count nearest 16 when 16 was not asked for); scripts read
 * its fields by name, and new ones are only ever appended.
 */
@Command(name = "locks", mixinStandardHelpOptions = true,
        description = "Locks: EchoMQ vs Redisson RLock vs a bare Lettuce loop and a scripted fenced one, "
            + "distinct and contended.")
final class LockBench implements Callable<Integer> {
    static final Duration TTL = Duration.ofSeconds(30);
    static final Duration MAX_WAIT = Duration.ofSeconds(10);
    /** The plain row's options: exactly one {@code SET NX PX} per acquire, no fence. */
    static final AcquireOptions PLAIN = AcquireOptions.defaults().plain();
    @Spec
    CommandSpec spec;

    @Option(names = "--threads", split = ",", paramLabel = "N,N,…", hideParamSyntax = true, defaultValue = "1,16,64",
            description = "Thread counts for the distinct-resources run (default ${DEFAULT-VALUE}).")
    List<Integer> threads;

    @Option(names = "--contended", paramLabel = "N", defaultValue = "16",
            description = "Threads on the one shared resource; 0 skips it (default ${DEFAULT-VALUE}).")
    int contended;

    @Option(names = "--seconds", paramLabel = "N", defaultValue = "5",
            description = "Measured seconds per row (default ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "2",
            description = "Warm-up seconds before each row (default ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--redis", paramLabel = "URL",
            description = "Use this server; its keys under emq-bench: and emq:lock:{emq-bench… are used. "
                + "Default: start the embedded redis-server.")
    String redis;

    @Option(names = "--no-peer", description = "Skip Redisson (ours and the limit only).")
    boolean noPeer;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "" + Rounds.DEFAULT,
            description = "A/B rounds of ours and Redisson, taking turns to go first; the ratios printed last "
                + "are the medians of the per-round ratios, with their range (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--load", description = "Run with a CPU hog beside the bench: a busy loop in its own process, "
            + "pinned to the last CPU with taskset where there is one.")
    boolean load;

    @Option(names = "--record", paramLabel = "FILE",
            description = "Also append every figure to FILE as name<TAB>value lines (for run-all.sh).")
    java.nio.file.Path record;

    @Override
    public Integer call() throws Exception {
        check();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        LockTables tables = new LockTables(threads, contended);
        List<LockRound> done = new ArrayList<>();
        try (CpuHog hog = load ? CpuHog.start() : null; BenchServer server = BenchServer.open(redis, out)) {
            out.printf("bench: %d measured s + %d warm-up s per row; ttl %d ms; fenced acquire (acquire-2.lua), "
                    + "plain (SET NX PX), and the bare and scripted limits on distinct resources; "
                    + "%d A/B round(s), echomq first in rounds 1, 3, …%n", seconds, warmup, TTL.toMillis(), rounds);
            out.println("load: " + (hog == null ? "none added (--load adds a CPU hog)" : hog.description()));
            out.flush();
            String run = Long.toString(System.nanoTime(), 36);
            // -Demq.bench.holderLabel=<label>: the echomq client labels its holders (longer tokens)
            String holderLabel = System.getProperty("emq.bench.holderLabel");
            if (holderLabel != null) {
                out.println("holder label: " + holderLabel);
            }
            try (LockClient locks = LockClient.builder().redisUrl(server.url()).holderLabel(holderLabel).build();
                 Limit bare = new Limit(server.url());
                 ScriptedLimit scripted = new ScriptedLimit(server.url())) {
                for (int i = 0; i < rounds; i++) {
                    LockRound round = new LockRound();
                    String label = Rounds.label(i, rounds, "redisson");
                    err.println("bench: " + label);
                    if (Rounds.oursFirst(i)) {
                        ours(locks, bare, scripted, run + "-" + i, round, err);
                        peer(server, round, err);
                    } else {
                        peer(server, round, err);
                        ours(locks, bare, scripted, run + "-" + i, round, err);
                    }
                    tables.printRound(out, label, round);
                    done.add(round);
                }
            }
            if (server.isEmbedded()) {
                server.sync().flushall();
            } else {
                server.deleteKeys("emq-bench:");
                server.deleteKeys("emq:lock:{emq-bench:");
            }
        }
        tables.printMedians(out, done, done.get(done.size() - 1).peerNote);
        tables.record(done).writeTo(record);
        return 0;
    }

    /**
     * Our rows and the limits', taking turns row by row (fenced, scripted limit, bare limit, plain,
     * at each thread count) so that a change of load falls on all of them.
     */
    private void ours(LockClient locks, Limit bare, ScriptedLimit scripted, String run, LockRound round,
                      PrintWriter err) throws InterruptedException {
        Duration warm = Duration.ofSeconds(warmup);
        Duration measure = Duration.ofSeconds(seconds);
        for (int t : threads) {
            err.printf("bench: echomq, distinct resources, %d thread(s)…%n", t);
            round.ours.put(t, LockRound.Figure.of(ourDistinct(locks, run, t, warm, measure)));
            err.printf("bench: scripted limit (SET NX PX + INCR fence), distinct resources, %d thread(s)…%n", t);
            round.scripted.put(t, LockRound.Figure.of(scripted.distinct(run, t, warm, measure)));
            err.printf("bench: limit (bare Lettuce), distinct resources, %d thread(s)…%n", t);
            round.limit.put(t, LockRound.Figure.of(bare.distinct(run, t, warm, measure)));
            err.printf("bench: echomq plain (SET NX PX), distinct resources, %d thread(s)…%n", t);
            round.plain.put(t, LockRound.Figure.of(ourDistinct(locks, run + "-plain", t, warm, measure, PLAIN)));
        }
        if (contended > 0) {
            err.printf("bench: echomq, one shared resource, %d threads…%n", contended);
            round.oursContended = LockRound.Figure.of(ourContended(locks, run, contended, warm, measure));
            err.printf("bench: limit (bare Lettuce, 1 ms poll), one shared resource, %d threads…%n", contended);
            round.limitContended = LockRound.Figure.of(bare.contended(run, contended, warm, measure));
        }
        err.flush();
    }

    /** Redisson's rows, in its own JVM; a missing or failed peer is noted, never an error. */
    private void peer(BenchServer server, LockRound round, PrintWriter err) throws InterruptedException {
        StringBuilder why = new StringBuilder();
        List<String> args = new ArrayList<>(List.of("--redis", server.url(), "--threads", join(threads),
                "--seconds", Integer.toString(seconds), "--warmup", Integer.toString(warmup),
                "--contended", Integer.toString(contended)));
        Optional<Peer> redisson = noPeer ? Optional.empty() : Peer.redisson(args, why);
        if (noPeer) {
            round.peerNote = "Redisson: skipped (--no-peer)";
            return;
        }
        if (redisson.isEmpty()) {
            round.peerNote = "Redisson: MISSING, " + why;
            return;
        }
        err.println("bench: redisson, in its own JVM…");
        err.flush();
        String version = "?";
        try {
            long budget = 120L + (long) (threads.size() + 1) * (seconds + warmup) * 3;
            for (Map<String, String> line : redisson.get().run(err, budget)) {
                switch (line.getOrDefault("bench", "")) {
                    case "version" -> version = line.get("version");
                    case "distinct" -> round.peer.put(Integer.parseInt(line.get("threads")), LockRound.Figure.of(line));
                    case "contended" -> round.peerContended = LockRound.Figure.of(line);
                    default -> { }
                }
            }
            round.peerNote = "Redisson " + version + ": RLock.tryLock(0, ttl)/unlock(), own JVM, default single-server pool";
        } catch (IllegalStateException e) {
            round.peerNote = "Redisson: FAILED, " + e.getMessage();
        }
    }

    private void check() {
        if (threads.isEmpty() || threads.stream().anyMatch(t -> t == null || t < 1 || t > 1024)) {
            throw new ParameterException(spec.commandLine(), "--threads must be a list of counts in 1..1024");
        }
        if (contended < 0 || contended > 1024) {
            throw new ParameterException(spec.commandLine(), "--contended must be in 0..1024, was " + contended);
        }
        if (seconds < 1 || seconds > 3600) {
            throw new ParameterException(spec.commandLine(), "--seconds must be in 1..3600, was " + seconds);
        }
        if (rounds < 1 || rounds > Rounds.MAX) {
            throw new ParameterException(spec.commandLine(), "--rounds must be in 1.." + Rounds.MAX + ", was " + rounds);
        }
        if (warmup < 0 || warmup > 3600) {
            throw new ParameterException(spec.commandLine(), "--warmup must be in 0..3600, was " + warmup);
        }
        if (redis != null && !(redis.startsWith("redis://") || redis.startsWith("rediss://"))) {
            throw new ParameterException(spec.commandLine(), "--redis must be a redis:// or rediss:// URL");
        }
    }

    static LoadLoop.Stats ourDistinct(LockClient locks, String run, int threads, Duration warm, Duration measure)
            throws InterruptedException {
        return ourDistinct(locks, run, threads, warm, measure, AcquireOptions.defaults());
    }

    /** Acquire+release pairs of {@code options} on a resource per thread. */
    static LoadLoop.Stats ourDistinct(LockClient locks, String run, int threads, Duration warm, Duration measure,
                                      AcquireOptions options) throws InterruptedException {
        String[] resources = new String[threads];
        for (int t = 0; t < threads; t++) {
            resources[t] = "emq-bench:" + run + ":r" + t;
        }
        return LoadLoop.run(threads, warm, measure, t -> {
            long start = System.nanoTime();
            Lease lease = locks.tryAcquire(resources[t], TTL, options)
                    .orElseThrow(() -> new IllegalStateException("distinct resource held: " + resources[t]));
            long latency = System.nanoTime() - start;
            lease.release();
            return latency;
        });
    }

    static LoadLoop.Stats ourContended(LockClient locks, String run, int threads, Duration warm, Duration measure)
            throws InterruptedException {
        String resource = "emq-bench:" + run + ":shared";
        return LoadLoop.run(threads, warm, measure, t -> {
            long start = System.nanoTime();
            Lease lease = locks.acquire(resource, TTL, MAX_WAIT);
            long latency = System.nanoTime() - start;
            lease.release();
            return latency;
        });
    }

    private static String join(List<Integer> list) {
        StringBuilder b = new StringBuilder();
        for (int t : list) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(t);
        }
        return b.toString();
    }
}
