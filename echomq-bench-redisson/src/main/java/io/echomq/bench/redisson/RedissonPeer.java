package io.echomq.bench.redisson;

import io.echomq.bench.loop.LoadLoop;
import io.echomq.bench.loop.ResultLine;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The Redisson side of {@code emq bench locks}, run by the driver as its own JVM (Redisson needs
 * Netty 4.1, our Lettuce 7 needs Netty 4.2). It measures, with the same {@link LoadLoop} as our
 * side, on the same server:
 *
 * <ol>
 *   <li>{@code distinct}: for each thread count, {@code RLock.tryLock(0, ttl)} then
 *       {@code unlock()}, each thread on its own resource; the recorded latency is the acquire.</li>
 *   <li>{@code contended}: N threads on one resource, {@code tryLock(wait, ttl)} then
 *       {@code unlock()}: handoffs per second and the acquire wait.</li>
 * </ol>
 *
 * <p>The lease time is given, so no Redisson watchdog renews the lock: the same fixed-ttl lease as
 * ours. Every figure is one {@link ResultLine} on stdout; progress goes to stderr.
 *
 * <pre>
 * java -jar redisson-peer.jar --redis redis://127.0.0.1:6379 --threads 1,16,64 --seconds 5 --warmup 2 --contended 16
 * </pre>
 */
public final class RedissonPeer {
    private static final long TTL_MS = 30_000;
    private static final long MAX_WAIT_MS = 10_000;

    private RedissonPeer() {
    }

    /**
     * Runs the peer; exits 0 after printing every result line, 2 on a bad argument, 3 if Redis or
     * Redisson failed.
     *
     * @param args {@code --redis URL --threads LIST --seconds N --warmup N --contended N}
     */
    public static void main(String[] args) {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("redisson-peer: " + e.getMessage());
            System.exit(2);
            return;
        }
        try {
            run(o, System.out, System.err);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            System.exit(3);
        } catch (RuntimeException e) {
            System.err.println("redisson-peer: failed: " + e);
            System.exit(3);
        }
        System.exit(0);
    }

    /**
     * Runs every measurement of {@code o}, printing one result line per figure on {@code out}.
     *
     * @throws InterruptedException if interrupted
     * @throws IllegalStateException if an operation failed
     */
    static void run(Options o, PrintStream out, PrintStream progress) throws InterruptedException {
        Config config = new Config();
        config.useSingleServer().setAddress(o.redis);
        RedissonClient redisson = Redisson.create(config);
        try {
            out.println(ResultLine.format(Map.of("peer", "redisson", "bench", "version", "version", version())));
            Duration warmup = Duration.ofSeconds(o.warmupSeconds);
            Duration measure = Duration.ofSeconds(o.seconds);
            String run = Long.toString(System.nanoTime(), 36);
            for (int threads : o.threads) {
                progress.printf("redisson-peer: distinct resources, %d thread(s)…%n", threads);
                RLock[] locks = new RLock[threads];
                for (int t = 0; t < threads; t++) {
                    locks[t] = redisson.getLock("emq-bench:redisson:" + run + ":r" + t);
                }
                LoadLoop.Stats s = LoadLoop.run(threads, warmup, measure, t -> {
                    long start = System.nanoTime();
                    if (!locks[t].tryLock(0, TTL_MS, TimeUnit.MILLISECONDS)) {
                        throw new IllegalStateException("distinct resource held by someone else: " + locks[t].getName());
                    }
                    long latency = System.nanoTime() - start;
                    locks[t].unlock();
                    return latency;
                });
                out.println(ResultLine.format(ResultLine.of(head("distinct", threads), s)));
            }
            if (o.contended > 0) {
                progress.printf("redisson-peer: one shared resource, %d threads…%n", o.contended);
                RLock shared = redisson.getLock("emq-bench:redisson:" + run + ":shared");
                LoadLoop.Stats s = LoadLoop.run(o.contended, warmup, measure, t -> {
                    long start = System.nanoTime();
                    if (!shared.tryLock(MAX_WAIT_MS, TTL_MS, TimeUnit.MILLISECONDS)) {
                        throw new IllegalStateException("no handoff within " + MAX_WAIT_MS + " ms");
                    }
                    long latency = System.nanoTime() - start;
                    shared.unlock();
                    return latency;
                });
                out.println(ResultLine.format(ResultLine.of(head("contended", o.contended), s)));
            }
        } finally {
            redisson.shutdown();
        }
    }

    private static Map<String, Object> head(String bench, int threads) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("peer", "redisson");
        m.put("bench", bench);
        m.put("threads", threads);
        return m;
    }

    static String version() {
        try (InputStream in = RedissonPeer.class.getResourceAsStream("/redisson-peer.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("redisson.version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** The command line, checked. */
    record Options(String redis, List<Integer> threads, int seconds, int warmupSeconds, int contended) {
        /**
         * @throws IllegalArgumentException on a missing, unknown or bad option
         */
        static Options parse(String[] args) {
            String redis = null;
            List<Integer> threads = List.of(16);
            int seconds = 5;
            int warmup = 2;
            int contended = 16;
            for (int i = 0; i < args.length; i++) {
                String name = args[i];
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + name + " needs a value");
                }
                String v = args[++i];
                switch (name) {
                    case "--redis" -> redis = v;
                    case "--threads" -> {
                        List<Integer> list = new ArrayList<>();
                        for (String part : v.split(",")) {
                            list.add(positive(part.trim(), "--threads"));
                        }
                        threads = List.copyOf(list);
                    }
                    case "--seconds" -> seconds = positive(v, "--seconds");
                    case "--warmup" -> warmup = nonNegative(v, "--warmup");
                    case "--contended" -> contended = nonNegative(v, "--contended");
                    default -> throw new IllegalArgumentException("unknown option " + name);
                }
            }
            if (redis == null || !(redis.startsWith("redis://") || redis.startsWith("rediss://"))) {
                throw new IllegalArgumentException("--redis redis://host:port is required");
            }
            return new Options(redis, threads, seconds, warmup, contended);
        }

        private static int positive(String v, String name) {
            int n = nonNegative(v, name);
            if (n < 1) {
                throw new IllegalArgumentException(name + " must be at least 1, was " + v);
            }
            return n;
        }

        private static int nonNegative(String v, String name) {
            try {
                int n = Integer.parseInt(v);
                if (n < 0) {
                    throw new IllegalArgumentException(name + " must not be negative, was " + v);
                }
                return n;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + " must be an integer, was '" + v + "'");
            }
        }
    }
}
