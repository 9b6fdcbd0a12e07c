package io.echomq.bench;

import io.echomq.bench.loop.LoadLoop;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The scripted limit row of {@code emq bench locks}: the ceiling of a fenced lock. One minimal
 * {@code EVALSHA} acquire ({@code limit-fenced-acquire.lua}: {@code SET NX PX}, then, only when
 * granted, {@code INCR} of a fence counter in the same hash slot), then the bare limit's
 * compare-and-delete ({@code limit-compare-and-delete.lua}). The loop is the bare {@link Limit}'s
 * distinct loop: one shared connection, a key per thread, the latency of the acquire call alone.
 * Where the bare limit cannot issue a fence, this row does, so {@code echomq/scripted} compares a
 * fenced lock with the least a fenced lock must send.
 */
final class ScriptedLimit implements AutoCloseable {
    private static final String ACQUIRE = Limit.resource("limit-fenced-acquire.lua");
    private static final String CAD = Limit.resource("limit-compare-and-delete.lua");

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final String acquireSha;
    private final String releaseSha;

    /**
     * Connects to {@code url} and loads both scripts.
     *
     * @throws io.lettuce.core.RedisException when the server cannot be reached or refuses the scripts
     */
    ScriptedLimit(String url) {
        client = RedisClient.create(RedisURI.create(url));
        connection = client.connect();
        acquireSha = connection.sync().scriptLoad(ACQUIRE);
        releaseSha = connection.sync().scriptLoad(CAD);
    }

    /**
     * Fenced acquire+release pairs on a key per thread, with the bare limit's loop shape.
     *
     * @return the pairs and the acquire latencies
     * @throws IllegalStateException (from a worker) when a thread's own key was held, no fence came
     *         back, or the compare-and-delete missed
     * @throws InterruptedException when interrupted while the loop runs
     */
    LoadLoop.Stats distinct(String run, int threads, Duration warm, Duration measure) throws InterruptedException {
        RedisCommands<String, String> sync = connection.sync();
        String[][] keys = new String[threads][];
        long[] counters = new long[threads * 8];   // spaced out: no false sharing
        for (int t = 0; t < threads; t++) {
            String slot = "emq-bench:{" + run + ":scripted:r" + t + "}";
            keys[t] = new String[] {slot + ":lock", slot + ":fence"};
        }
        String ttl = Long.toString(LockBench.TTL.toMillis());
        return LoadLoop.run(threads, warm, measure, t -> {
            String token = "t" + t + ":" + counters[t * 8]++;
            long start = System.nanoTime();
            Long fence = sync.evalsha(acquireSha, ScriptOutputType.INTEGER, keys[t], token, ttl);
            if (fence == null || fence < 1L) {
                throw new IllegalStateException("distinct key held: " + keys[t][0]);
            }
            long latency = System.nanoTime() - start;
            Long deleted = sync.evalsha(releaseSha, ScriptOutputType.INTEGER, new String[] {keys[t][0]}, token);
            if (deleted == null || deleted != 1L) {
                throw new IllegalStateException("compare-and-delete missed " + keys[t][0]);
            }
            return latency;
        });
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
