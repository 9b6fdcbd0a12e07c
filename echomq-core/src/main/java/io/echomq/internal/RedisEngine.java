package io.echomq.internal;

import io.echomq.ConnectionListener;
import io.echomq.RedisCommandException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The connections to one Redis server, or to one Redis Cluster, and the way every script is run on them.
 *
 * <ol>
 *   <li>One multiplexed command connection, shared by all threads, auto-flushed.</li>
 *   <li>One pipelined connection (auto-flush off), opened on first use, for batched background
 *       work such as lease renewals: the caller writes many commands, then flushes once.</li>
 *   <li>One pub/sub connection, opened on first use: blocking and subscribing never share the
 *       command connection, since a subscribed (or blocked) connection answers nothing else and
 *       every thread sharing it would wait behind it.</li>
 *   <li>One binary command connection (text keys, byte values), opened on first use, for the
 *       queue: job payloads are bytes, not text.</li>
 * </ol>
 *
 * <p>Scripts are called with {@code EVALSHA} on their locally computed SHA. A {@code NOSCRIPT}
 * reply (a new or flushed server) is answered by one {@code EVAL} of the body, which also loads
 * it into the server's cache, so the next call finds it.
 *
 * <p>While disconnected, commands are rejected rather than buffered: a buffered acquire that
 * reached the server long after its caller gave up would grant a lock that nobody knows it holds.
 *
 * <p><b>Cluster.</b> For a {@code redis-cluster://} URL the same four connections come from a Lettuce
 * {@link RedisClusterClient}: every command and script is routed to the master that owns its first
 * key's slot (every script's keys share one hash tag), {@code MOVED} and {@code ASK} are followed, and
 * the topology is refreshed on every redirection and periodically. Callers use the common supertypes
 * ({@link StatefulConnection}, {@link RedisClusterAsyncCommands}), so one code path serves both. A script
 * answered {@code TRYAGAIN} (its keys are split by a slot migration in progress; the server ran nothing)
 * is sent again after a short pause, until the command timeout.
 *
 * <p><b>Flushes are coalesced.</b> Every connection's pipeline starts with Netty's
 * {@link FlushConsolidationHandler}: the commands that many threads write while the connection's
 * event loop is reading replies leave in one {@code write()} at the end of that read, and the
 * server reads them in one {@code read()} and answers them in one {@code write()}. With no read in
 * progress a command is flushed at once; nothing waits for a batch to fill.
 *
 * <p>This class is the facade the rest of core calls, and owns the engine's lifetime (the
 * connection listener, close). The work is done by package-private parts, each with one role:
 * {@link EngineConnector} (building the client, single or cluster, TLS), {@link FlushCoalescing}
 * (the resources and their shutdown), {@link EngineConnections} (the four connections),
 * {@link EndpointReadiness} (a new connection's first command), {@link ScriptRunner}
 * ({@code EVALSHA}, {@code NOSCRIPT}, {@code TRYAGAIN}), {@link FeatureProbe} (what the server
 * can do) and {@link RedisFutures} (waiting, and the errors callers see).
 */
public final class RedisEngine implements AutoCloseable {
    /** The timeout of one Redis command when the caller configures none: 10 s. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(10);

    private final AbstractRedisClient client;
    private final ClientResources resources;
    private final boolean cluster;
    private final String redactedUrl;
    private final EngineConnections connections;
    private final ScriptRunner scripts;
    private final FeatureProbe features;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Its own lock, not a monitor that a connect may hold for a long time. */
    private final Object watchLock = new Object();
    private ConnectionWatch watch;   // guarded by watchLock

    /** Opens the shared command connection; called by {@link EngineConnector} only. */
    RedisEngine(AbstractRedisClient client, ClientResources resources,
                Function<RedisCodec<String, ?>, StatefulConnection<String, ?>> connector,
                Supplier<StatefulRedisPubSubConnection<String, String>> pubSubConnector, boolean cluster,
                Duration commandTimeout, String redactedUrl) {
        this.client = client;
        this.resources = resources;
        this.cluster = cluster;
        this.redactedUrl = redactedUrl;
        long timeoutMs = commandTimeout.toMillis();
        this.connections = new EngineConnections(connector, pubSubConnector, timeoutMs, redactedUrl);
        this.scripts = new ScriptRunner(cluster, timeoutMs);
        this.features = new FeatureProbe(this::commands, timeoutMs, cluster ? (RedisClusterClient) client : null);
    }

    /** @return the shared, auto-flushed command connection (a cluster connection on a cluster) */
    public StatefulConnection<String, String> main() {
        return connections.main();
    }

    /** @return the asynchronous commands of {@link #main()} */
    public RedisClusterAsyncCommands<String, String> commands() {
        return async(connections.main());
    }

    /**
     * @return the connection whose commands are sent only on {@code flushCommands()}, opened on
     *     first use. Called once per watchdog batch, so a plain monitor is cheap enough.
     * @throws RedisCommandException if it cannot be opened ({@code CONNECT (pipelined)})
     */
    public StatefulConnection<String, String> pipelined() {
        return connections.pipelined();
    }

    /**
     * @return the dedicated pub/sub connection, opened on first use
     * @throws RedisCommandException if it cannot be opened ({@code CONNECT (pub/sub)})
     */
    public StatefulRedisPubSubConnection<String, String> pubSub() {
        return connections.pubSub();
    }

    /**
     * @return the auto-flushed connection with text keys and byte-array values, opened on first use
     * @throws RedisCommandException if it cannot be opened ({@code CONNECT (binary)})
     */
    public StatefulConnection<String, byte[]> binary() {
        return connections.binary();
    }

    /**
     * @return a new connection with text keys and byte-array values, for one caller that blocks on
     *     it (XREAD BLOCK) and closes it; the engine does not track it
     * @throws RedisCommandException if it cannot be opened ({@code CONNECT (dedicated)})
     */
    public StatefulConnection<String, byte[]> openBinary() {
        return connections.openBinary();
    }

    /**
     * @return the asynchronous commands of {@code connection}, a single-server or a cluster connection
     * @throws IllegalArgumentException for any other kind of connection
     */
    public static <K, V> RedisClusterAsyncCommands<K, V> async(StatefulConnection<K, V> connection) {
        return EngineConnections.async(connection);
    }

    /** @return whether this engine talks to a Redis Cluster */
    public boolean isCluster() {
        return cluster;
    }

    /**
     * @return what the server supports, detected once on first call
     * @throws RedisCommandException if the features cannot be read ({@code INFO server})
     */
    public ServerFeatures features() {
        return features.features();
    }

    /**
     * @return {@code "SPUBLISH"} on a cluster whose servers have sharded pub/sub (probed: Redis 7+, Valkey), so that a
     *     notification goes only to the shard that owns its channel; {@code "PUBLISH"} otherwise (a
     *     single server, or a Redis 6.2 cluster, whose bus broadcasts plain messages to every node).
     *     Every script that notifies takes this as an argument, and {@link ChannelSignals} subscribes to
     *     match it. Never blocks: a cluster engine reads the features when it connects.
     * @throws RedisCommandException if the features cannot be read
     */
    public String publishMode() {
        return cluster && features().shardedPubSub() ? "SPUBLISH" : "PUBLISH";
    }

    /**
     * @return for example {@code "Redis 7.0.15 (SPUBLISH: yes)"} or {@code "Valkey 8.0.1 (SPUBLISH: yes)"},
     *     or on a cluster {@code "Redis Cluster 7.0.15 (3 masters, SPUBLISH: yes)"}
     * @throws RedisCommandException if the features cannot be read
     */
    public String describe() {
        return features.describe();
    }

    /**
     * Runs a script on {@code connection}: {@code EVALSHA}, and on {@code NOSCRIPT} one {@code EVAL}.
     * On a cluster, a {@code TRYAGAIN} answer (nothing ran) is retried after a short pause until the
     * command timeout. The future fails with the raw Lettuce exception; callers wrap it with {@link #failure}.
     *
     * @throws IllegalStateException if {@code keys} does not match the script's declared key count
     */
    @SafeVarargs
    public final <V, T> CompletableFuture<T> run(StatefulConnection<String, V> connection, LuaScript script,
                                                ScriptOutputType type, String[] keys, V... args) {
        return scripts.run(connection, script, type, keys, args);
    }

    /**
     * Runs a script on the shared command connection, as {@link #run(StatefulConnection, LuaScript,
     * ScriptOutputType, String[], Object[])}.
     *
     * @throws IllegalStateException if {@code keys} does not match the script's declared key count
     */
    public <T> CompletableFuture<T> run(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
        return scripts.run(connections.main(), script, type, keys, args);
    }

    /**
     * Waits for {@code future} and returns its value, turning a failure into the library's
     * exception naming {@code command} and {@code resource}.
     *
     * @throws RedisCommandException if the future failed, or the thread was interrupted (its flag is set again)
     */
    public static <T> T await(CompletableFuture<T> future, String command, String resource) {
        return RedisFutures.await(future, command, resource);
    }

    /**
     * As {@link #await}, but an interrupt does not end the wait: for calls that must be answered
     * even on an interrupted thread (a release in a {@code finally}, a {@code close} after the
     * watchdog interrupted its holder). The wait stays bounded by the command timeout, and the
     * interrupt flag is set again before returning.
     *
     * @throws RedisCommandException if the future failed
     */
    public static <T> T awaitUninterruptibly(CompletableFuture<T> future, String command, String resource) {
        return RedisFutures.awaitUninterruptibly(future, command, resource);
    }

    /**
     * As {@link #await}, for callers whose contract is to throw {@link InterruptedException}.
     *
     * @throws InterruptedException if the calling thread is interrupted while waiting
     * @throws RedisCommandException if the future failed
     */
    public static <T> T awaitInterruptibly(CompletableFuture<T> future, String command, String resource)
            throws InterruptedException {
        return RedisFutures.awaitInterruptibly(future, command, resource);
    }

    /** @return {@code e}, unwrapped, as a {@link RedisCommandException} naming the command */
    public static RedisCommandException failure(Throwable e, String command, String resource) {
        return RedisFutures.failure(e, command, resource);
    }

    /** @return the first cause that is not a {@link CompletionException} or {@link ExecutionException} */
    public static Throwable unwrap(Throwable e) {
        return RedisFutures.unwrap(e);
    }

    @Override
    public String toString() {
        return redactedUrl;
    }

    /**
     * Sets the one listener told when this engine's connections drop and come back (see {@link ConnectionWatch}),
     * replacing any earlier one; {@code null} stops listening.
     *
     * @param listener the listener, or null
     */
    public void connectionListener(ConnectionListener listener) {
        synchronized (watchLock) {
            if (watch != null) {
                watch.stop();
                watch = null;
            }
            if (listener != null) {
                ClusterServing serving = cluster
                        ? new ClusterServing((RedisClusterClient) client, connections.main()) : null;
                watch = new ConnectionWatch(client, redactedUrl, listener, serving);
            }
        }
    }

    /**
     * Closes every connection, the client and its threads; idempotent. Our connections are closed
     * first, each by itself, and only then the client (see {@link EngineConnections#close()} for why).
     */
    @Override
    public void close() {
        connectionListener(null);   // our own closes are not an outage
        if (closed.getAndSet(true)) {
            return;
        }
        try {
            connections.close();
        } finally {
            FlushCoalescing.shutdown(client, resources);
        }
    }
}
