package io.echomq.internal;

import io.echomq.RedisCommandException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The four connections of one engine (listed in {@link RedisEngine}'s class comment).
 *
 * <ol>
 *   <li>Opens the shared command connection at once, and the pipelined, pub/sub and binary ones on
 *       first use, each only once its endpoint is active ({@link EndpointReadiness#awaitOpen}).</li>
 *   <li>Turns a failed open into {@code CONNECT (what) <url>}.</li>
 *   <li>Closes them, each by itself, newest kinds first and the shared one last.</li>
 * </ol>
 *
 * <p>Together because they are the lifetime of the same few objects: opened here, closed here.
 * The openers come from {@link EngineConnector}, one pair for a single server and one for a cluster,
 * so nothing here knows which it is.
 *
 * <p>The lazy openers are guarded by a {@link ReentrantLock}, not a monitor: an open waits on the
 * network for as long as the connect takes, and a virtual thread that waits inside
 * {@code synchronized} pins its carrier on Java 21 to 23, while one that waits holding a
 * {@code ReentrantLock} does not.
 */
final class EngineConnections {
    private static final RedisCodec<String, byte[]> BINARY = BinaryCodec.INSTANCE;

    private final Function<RedisCodec<String, ?>, StatefulConnection<String, ?>> connector;
    private final Supplier<StatefulRedisPubSubConnection<String, String>> pubSubConnector;
    private final long commandTimeoutMs;
    private final String redactedUrl;
    private final StatefulConnection<String, String> main;
    private final ReentrantLock opening = new ReentrantLock();
    private StatefulConnection<String, String> pipelined;           // guarded by opening
    private StatefulRedisPubSubConnection<String, String> pubSub;   // guarded by opening
    private StatefulConnection<String, byte[]> binary;              // guarded by opening

    /** Opens the shared command connection; the caller turns a failure into its own CONNECT error. */
    @SuppressWarnings("unchecked")
    EngineConnections(Function<RedisCodec<String, ?>, StatefulConnection<String, ?>> connector,
                      Supplier<StatefulRedisPubSubConnection<String, String>> pubSubConnector,
                      long commandTimeoutMs, String redactedUrl) {
        this.connector = connector;
        this.pubSubConnector = pubSubConnector;
        this.commandTimeoutMs = commandTimeoutMs;
        this.redactedUrl = redactedUrl;
        this.main = EndpointReadiness.awaitOpen(
                (StatefulConnection<String, String>) connector.apply(StringCodec.UTF8), commandTimeoutMs);
    }

    StatefulConnection<String, String> main() {
        return main;
    }

    @SuppressWarnings("unchecked")
    StatefulConnection<String, String> pipelined() {
        opening.lock();
        try {
            if (pipelined == null) {
                pipelined = openOrFail(() -> (StatefulConnection<String, String>) connector.apply(StringCodec.UTF8),
                        "CONNECT (pipelined)");
                pipelined.setAutoFlushCommands(false);
            }
            return pipelined;
        } finally {
            opening.unlock();
        }
    }

    StatefulRedisPubSubConnection<String, String> pubSub() {
        opening.lock();
        try {
            if (pubSub == null) {
                pubSub = openOrFail(pubSubConnector, "CONNECT (pub/sub)");
            }
            return pubSub;
        } finally {
            opening.unlock();
        }
    }

    @SuppressWarnings("unchecked")
    StatefulConnection<String, byte[]> binary() {
        opening.lock();
        try {
            if (binary == null) {
                binary = openOrFail(() -> (StatefulConnection<String, byte[]>) connector.apply(BINARY), "CONNECT (binary)");
            }
            return binary;
        } finally {
            opening.unlock();
        }
    }

    /** @return a new binary connection that only its caller uses and closes (a blocking read's own) */
    @SuppressWarnings("unchecked")
    StatefulConnection<String, byte[]> openBinary() {
        return openOrFail(() -> (StatefulConnection<String, byte[]>) connector.apply(BINARY), "CONNECT (dedicated)");
    }

    /**
     * Closes every open connection, each by itself; a failure to close one does not stop the others.
     * A cluster connection owns one connection per node, which the client also lists among the
     * resources it closes; closed here, by its owner, a node connection leaves the client's list, so
     * the client's own shutdown afterwards has nothing left to close twice (Lettuce warned
     * "Connection is already closed" once per node and connection otherwise).
     */
    void close() {
        List<StatefulConnection<String, ?>> open = new ArrayList<>(4);
        opening.lock();
        try {
            open.add(pubSub);
            open.add(binary);
            open.add(pipelined);
        } finally {
            opening.unlock();
        }
        open.add(main);
        for (StatefulConnection<String, ?> connection : open) {
            if (connection != null) {
                try {
                    connection.close();
                } catch (RuntimeException ignored) {
                    // closing anyway: the client's shutdown afterwards releases what is left
                }
            }
        }
    }

    /**
     * @return the asynchronous commands of {@code connection}, a single-server or a cluster connection
     * @throws IllegalArgumentException for any other kind of connection
     */
    static <K, V> RedisClusterAsyncCommands<K, V> async(StatefulConnection<K, V> connection) {
        if (connection instanceof StatefulRedisConnection<K, V> single) {
            return single.async();
        }
        if (connection instanceof StatefulRedisClusterConnection<K, V> many) {
            return many.async();
        }
        throw new IllegalArgumentException("not a command connection: " + connection);
    }

    private <C extends StatefulConnection<?, ?>> C openOrFail(Supplier<C> opener, String what) {
        try {
            return EndpointReadiness.awaitOpen(opener.get(), commandTimeoutMs);
        } catch (RuntimeException e) {
            throw new RedisCommandException(what + " " + redactedUrl, null, e);
        }
    }
}
