package io.echomq.bench;

import io.echomq.bench.loop.LoadLoop;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * {@code emq bench locks}: fenced acquire+release pairs per second and acquire latency on
 * distinct resources, and handoffs per second with the acquire wait on one shared resource, for
 * three rows measured with the same loop on the same server:
 *
 * <ol>
 *   <li>{@code echomq}: {@link LockClient#tryAcquire} (fenced) then {@link Lease#release()};
 *       contended: {@link LockClient#acquire} with a wait, then release.</li>
 *   <li>{@code redisson}: {@code RLock.tryLock(0, ttl)} then {@code unlock()}, in its own JVM.</li>
 *   <li>{@code limit}: bare Lettuce, {@code SET NX PX} then an {@code EVALSHA} compare-and-delete,
 *       on one shared connection, as ours; contended, it polls every millisecond.</li>
 * </ol>
 *
 * <p>The last line is {@code locks: echomq/redisson=<r> echomq/limit=<r>} at 16 threads on
 * distinct resources (the thread count nearest 16 when 16 was not asked for).
 */
@Command(name = "locks", mixinStandardHelpOptions = true,
        description = "Locks: EchoMQ vs Redisson RLock vs a bare Lettuce loop, distinct and contended.")
final class LockBench implements Callable<Integer> {
    static final Duration TTL = Duration.ofSeconds(30);
    static final Duration MAX_WAIT = Duration.ofSeconds(10);
    /** The limit row's compare-and-delete, kept as a script resource like the library's own. */
    private static final String CAD = resource("limit-compare-and-delete.lua");

    private static String resource(String name) {
        try (java.io.InputStream in = LockBench.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing bench resource " + name);
            }
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

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

    @Option(names = "--record", paramLabel = "FILE",
            description = "Also append every figure to FILE as name<TAB>value lines (for run-all.sh).")
    java.nio.file.Path record;

    /** One row's figures at one thread count. */
    record Figure(double perSecond, double p50Micros, double p99Micros) {
        static final Figure MISSING = new Figure(Double.NaN, Double.NaN, Double.NaN);

        static Figure of(LoadLoop.Stats s) {
            return new Figure(s.perSecond(), s.quantileMicros(0.5), s.quantileMicros(0.99));
        }

        static Figure of(Map<String, String> line) {
            return new Figure(Double.parseDouble(line.get("per_s")), Double.parseDouble(line.get("p50_us")),
                    Double.parseDouble(line.get("p99_us")));
        }
    }

    @Override
    public Integer call() throws Exception {
        check();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Duration warm = Duration.ofSeconds(warmup);
        Duration measure = Duration.ofSeconds(seconds);
        Map<Integer, Figure> ours = new LinkedHashMap<>();
        Map<Integer, Figure> limit = new LinkedHashMap<>();
        Map<Integer, Figure> peer = new LinkedHashMap<>();
        Figure oursContended = Figure.MISSING;
        Figure limitContended = Figure.MISSING;
        Figure peerContended = Figure.MISSING;
        String peerNote;
        try (BenchServer server = BenchServer.open(redis, out)) {
            out.printf("bench: %d measured s + %d warm-up s per row; ttl %d ms; fenced acquire (acquire-2.lua)%n",
                    seconds, warmup, TTL.toMillis());
            out.flush();
            String run = Long.toString(System.nanoTime(), 36);
            // Ours and the limit take turns row by row, so that a change in the machine's load
            // falls on both; Redisson follows in its own JVM.
            try (LockClient locks = LockClient.create(server.url()); Limit bare = new Limit(server.url())) {
                for (int t : threads) {
                    err.printf("bench: echomq, distinct resources, %d thread(s)…%n", t);
                    ours.put(t, Figure.of(ourDistinct(locks, run, t, warm, measure)));
                    err.printf("bench: limit (bare Lettuce), distinct resources, %d thread(s)…%n", t);
                    limit.put(t, Figure.of(bare.distinct(run, t, warm, measure)));
                }
                if (contended > 0) {
                    err.printf("bench: echomq, one shared resource, %d threads…%n", contended);
                    oursContended = Figure.of(ourContended(locks, run, contended, warm, measure));
                    err.printf("bench: limit (bare Lettuce, 1 ms poll), one shared resource, %d threads…%n", contended);
                    limitContended = Figure.of(bare.contended(run, contended, warm, measure));
                }
            }
            StringBuilder why = new StringBuilder();
            List<String> args = new ArrayList<>(List.of("--redis", server.url(), "--threads", join(threads),
                    "--seconds", Integer.toString(seconds), "--warmup", Integer.toString(warmup),
                    "--contended", Integer.toString(contended)));
            Optional<Peer> redisson = noPeer ? Optional.empty() : Peer.redisson(args, why);
            if (noPeer) {
                peerNote = "Redisson: skipped (--no-peer)";
            } else if (redisson.isEmpty()) {
                peerNote = "Redisson: MISSING, " + why;
            } else {
                err.println("bench: redisson, in its own JVM…");
                err.flush();
                String version = "?";
                String failure = null;
                try {
                    long budget = 120L + (long) (threads.size() + 1) * (seconds + warmup) * 3;
                    for (Map<String, String> line : redisson.get().run(err, budget)) {
                        switch (line.getOrDefault("bench", "")) {
                            case "version" -> version = line.get("version");
                            case "distinct" -> peer.put(Integer.parseInt(line.get("threads")), Figure.of(line));
                            case "contended" -> peerContended = Figure.of(line);
                            default -> { }
                        }
                    }
                } catch (IllegalStateException e) {
                    failure = e.getMessage();
                }
                peerNote = failure == null ? "Redisson " + version + ": RLock.tryLock(0, ttl)/unlock(), own JVM, "
                        + "default single-server pool" : "Redisson: FAILED, " + failure;
            }
            if (server.isEmbedded()) {
                server.sync().flushall();
            } else {
                server.deleteKeys("emq-bench:");
                server.deleteKeys("emq:lock:{emq-bench:");
            }
        }
        print(out, ours, peer, limit, oursContended, peerContended, limitContended, peerNote);
        Record rec = new Record();
        for (int t : threads) {
            put(rec, "distinct." + t + ".echomq", ours.get(t));
            put(rec, "distinct." + t + ".redisson", peer.getOrDefault(t, Figure.MISSING));
            put(rec, "distinct." + t + ".limit", limit.get(t));
            rec.put("distinct." + t + ".echomq/redisson", ours.get(t).perSecond() / peer.getOrDefault(t, Figure.MISSING).perSecond());
            rec.put("distinct." + t + ".echomq/limit", ours.get(t).perSecond() / limit.get(t).perSecond());
        }
        if (contended > 0) {
            put(rec, "contended." + contended + ".echomq", oursContended);
            put(rec, "contended." + contended + ".redisson", peerContended);
            put(rec, "contended." + contended + ".limit", limitContended);
            rec.put("contended." + contended + ".echomq/redisson", oursContended.perSecond() / peerContended.perSecond());
            rec.put("contended." + contended + ".p99.echomq/redisson", oursContended.p99Micros() / peerContended.p99Micros());
        }
        rec.writeTo(record);
        return 0;
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
        if (warmup < 0 || warmup > 3600) {
            throw new ParameterException(spec.commandLine(), "--warmup must be in 0..3600, was " + warmup);
        }
        if (redis != null && !(redis.startsWith("redis://") || redis.startsWith("rediss://"))) {
            throw new ParameterException(spec.commandLine(), "--redis must be a redis:// or rediss:// URL");
        }
    }

    static LoadLoop.Stats ourDistinct(LockClient locks, String run, int threads, Duration warm, Duration measure)
            throws InterruptedException {
        String[] resources = new String[threads];
        for (int t = 0; t < threads; t++) {
            resources[t] = "emq-bench:" + run + ":r" + t;
        }
        return LoadLoop.run(threads, warm, measure, t -> {
            long start = System.nanoTime();
            Lease lease = locks.tryAcquire(resources[t], TTL)
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

    /** The bare Lettuce loop: what Redis and the driver allow with no library around them. */
    static final class Limit implements AutoCloseable {
        private final RedisClient client;
        private final StatefulRedisConnection<String, String> connection;
        private final String sha;

        Limit(String url) {
            client = RedisClient.create(RedisURI.create(url));
            connection = client.connect();
            sha = connection.sync().scriptLoad(CAD);
        }

        LoadLoop.Stats distinct(String run, int threads, Duration warm, Duration measure) throws InterruptedException {
            RedisCommands<String, String> sync = connection.sync();
            String[] keys = new String[threads];
            long[] counters = new long[threads * 8];   // spaced out: no false sharing
            for (int t = 0; t < threads; t++) {
                keys[t] = "emq-bench:" + run + ":limit:r" + t;
            }
            SetArgs nxpx = SetArgs.Builder.nx().px(TTL.toMillis());
            return LoadLoop.run(threads, warm, measure, t -> {
                String token = "t" + t + ":" + counters[t * 8]++;
                long start = System.nanoTime();
                if (!"OK".equals(sync.set(keys[t], token, nxpx))) {
                    throw new IllegalStateException("distinct key held: " + keys[t]);
                }
                long latency = System.nanoTime() - start;
                Long deleted = sync.evalsha(sha, ScriptOutputType.INTEGER, new String[] {keys[t]}, token);
                if (deleted == null || deleted != 1L) {
                    throw new IllegalStateException("compare-and-delete missed " + keys[t]);
                }
                return latency;
            });
        }

        LoadLoop.Stats contended(String run, int threads, Duration warm, Duration measure) throws InterruptedException {
            RedisCommands<String, String> sync = connection.sync();
            String key = "emq-bench:" + run + ":limit:shared";
            long[] counters = new long[threads * 8];
            SetArgs nxpx = SetArgs.Builder.nx().px(TTL.toMillis());
            long deadline = MAX_WAIT.toNanos();
            return LoadLoop.run(threads, warm, measure, t -> {
                String token = "t" + t + ":" + counters[t * 8]++;
                long start = System.nanoTime();
                while (!"OK".equals(sync.set(key, token, nxpx))) {
                    if (System.nanoTime() - start > deadline) {
                        throw new IllegalStateException("no handoff within " + MAX_WAIT);
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
                long latency = System.nanoTime() - start;
                sync.evalsha(sha, ScriptOutputType.INTEGER, new String[] {key}, token);
                return latency;
            });
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    private void print(PrintWriter out, Map<Integer, Figure> ours, Map<Integer, Figure> peer, Map<Integer, Figure> limit,
                       Figure oc, Figure pc, Figure lc, String peerNote) {
        out.println();
        out.println("peers: " + peerNote);
        out.println("limit: bare Lettuce 7.7, SET NX PX + EVALSHA compare-and-delete, one shared connection");
        out.println();
        out.println("distinct resources: acquire+release pairs/s, acquire p50/p99 ms");
        out.printf("%-8s %-24s %-24s %-24s %-16s %-12s%n", "threads", "echomq", "redisson", "limit",
                "echomq/redisson", "echomq/limit");
        for (int t : threads) {
            Figure o = ours.get(t);
            Figure p = peer.getOrDefault(t, Figure.MISSING);
            Figure l = limit.get(t);
            out.printf("%-8d %-24s %-24s %-24s %-16s %-12s%n", t, cell(o), cell(p), cell(l),
                    Report.ratio(o.perSecond(), p.perSecond()), Report.ratio(o.perSecond(), l.perSecond()));
        }
        if (contended > 0) {
            out.println();
            out.printf("one shared resource, %d threads: handoffs/s, acquire wait p50/p99 ms%n", contended);
            out.printf("%-8s %-24s %-24s %-24s %-16s%n", "", "echomq", "redisson", "limit (1 ms poll)",
                    "echomq/redisson");
            out.printf("%-8s %-24s %-24s %-24s %-16s%n", "", cell(oc), cell(pc), cell(lc),
                    Report.ratio(oc.perSecond(), pc.perSecond()));
        }
        int at = threads.contains(16) ? 16 : threads.stream().min((a, b) -> Math.abs(a - 16) - Math.abs(b - 16)).get();
        Figure o = ours.get(at);
        String vsPeer = Report.ratio(o.perSecond(), peer.getOrDefault(at, Figure.MISSING).perSecond());
        String vsLimit = Report.ratio(o.perSecond(), limit.get(at).perSecond());
        out.println();
        out.println("targets:");
        out.printf("  distinct, %d threads: echomq/redisson >= 5     %-6s %s%n", at, vsPeer, Report.verdict(vsPeer, 5, true));
        out.printf("  distinct, %d threads: echomq/limit    >= 0.9   %-6s %s%n", at, vsLimit, Report.verdict(vsLimit, 0.9, true));
        if (contended > 0) {
            String handoffs = Report.ratio(oc.perSecond(), pc.perSecond());
            String p99 = Report.ratio(oc.p99Micros(), pc.p99Micros());
            out.printf("  contended: handoffs echomq/redisson >= 1.5   %-6s %s%n", handoffs, Report.verdict(handoffs, 1.5, true));
            out.printf("  contended: wait p99 echomq/redisson <= 1     %-6s %s%n", p99, Report.verdict(p99, 1.0, false));
        }
        out.printf("locks: echomq/redisson=%s echomq/limit=%s%n", vsPeer, vsLimit);
        out.flush();
    }

    private static void put(Record rec, String name, Figure f) {
        rec.put(name + ".per_s", f.perSecond());
        rec.put(name + ".p50_ms", f.p50Micros() / 1000);
        rec.put(name + ".p99_ms", f.p99Micros() / 1000);
    }

    private static String cell(Figure f) {
        if (Double.isNaN(f.perSecond())) {
            return "-";
        }
        return Report.count(f.perSecond()) + " " + Report.millis(f.p50Micros()) + "/" + Report.millis(f.p99Micros());
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
