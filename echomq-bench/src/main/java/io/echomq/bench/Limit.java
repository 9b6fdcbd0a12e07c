package io.echomq.bench;

import io.echomq.bench.loop.LoadLoop;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The limit row of {@code emq bench locks}: the bare Lettuce loop, what Redis and the driver allow
 * with no library around them. {@code SET NX PX} then an {@code EVALSHA} compare-and-delete
 * ({@code limit-compare-and-delete.lua}) on one shared connection, as ours; on one shared
 * resource, it polls {@code SET NX PX} every millisecond.
 */
final class Limit implements AutoCloseable {
    private static final Duration TTL = LockBench.TTL;
    private static final Duration MAX_WAIT = LockBench.MAX_WAIT;
    /** The limit row's compare-and-delete, kept as a script resource like the library's own. */
    private static final String CAD = resource("limit-compare-and-delete.lua");

    /**
     * @return the text of the bench's script resource {@code name}, beside this class
     * @throws IllegalStateException when the resource is missing
     * @throws java.io.UncheckedIOException when it cannot be read
     */
    static String resource(String name) {
        try (java.io.InputStream in = Limit.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing bench resource " + name);
            }
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

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

    /**
     * One bare pair on {@code key}, for {@code emq bench lock-cost}: {@code SET NX PX}, then the
     * compare-and-delete, as {@link #distinct} runs them.
     *
     * @throws IllegalStateException when the key was held or the delete missed
     */
    Runnable pair(String key) {
        RedisCommands<String, String> sync = connection.sync();
        SetArgs nxpx = SetArgs.Builder.nx().px(TTL.toMillis());
        long[] counter = new long[1];
        return () -> {
            String token = "t:" + counter[0]++;
            if (!"OK".equals(sync.set(key, token, nxpx))) {
                throw new IllegalStateException("key held: " + key);
            }
            Long deleted = sync.evalsha(sha, ScriptOutputType.INTEGER, new String[] {key}, token);
            if (deleted == null || deleted != 1L) {
                throw new IllegalStateException("compare-and-delete missed " + key);
            }
        };
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
