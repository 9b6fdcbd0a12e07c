package io.echomq.internal;

import io.echomq.RedisCommandException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
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
 *       command connection (DESIGN §6).</li>
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
 * {@link FlushConsolidationHandler} (see {@link #coalescingResources()}): the commands that many
 * threads write while the connection's event loop is reading replies leave in one {@code write()}
 * at the end of that read, and the server reads them in one {@code read()} and answers them in one
 * {@code write()}. With no read in progress a command is flushed at once; nothing waits for a
 * batch to fill.
 */
public final class RedisEngine implements AutoCloseable {
    private static final RedisCodec<String, byte[]> BINARY = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);
    private static final long TRYAGAIN_FIRST_PAUSE_MS = 2;
    private static final long TRYAGAIN_MAX_PAUSE_MS = 100;
    private final AbstractRedisClient client;
    private final ClientResources resources;
    private final Function<RedisCodec<String, ?>, StatefulConnection<String, ?>> connector;
    private final Supplier<StatefulRedisPubSubConnection<String, String>> pubSubConnector;
    private final boolean cluster;
    private final long commandTimeoutMs;
    private final StatefulConnection<String, String> main;
    private final String redactedUrl;
    private StatefulConnection<String, String> pipelined;           // guarded by this
    private StatefulRedisPubSubConnection<String, String> pubSub;   // guarded by this
    private StatefulConnection<String, byte[]> binary;              // guarded by this
    private volatile ServerFeatures features;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
    /** Its own lock, not the engine's monitor, which a connect may hold for a long time. */
    private final Object watchLock = new Object();
    private ConnectionWatch watch;   // guarded by watchLock

    @SuppressWarnings("unchecked")
    private RedisEngine(AbstractRedisClient client, ClientResources resources, Function<RedisCodec<String, ?>, StatefulConnection<String, ?>> connector,
                        Supplier<StatefulRedisPubSubConnection<String, String>> pubSubConnector, boolean cluster,
                        Duration commandTimeout, String redactedUrl) {
        this.client = client;
        this.resources = resources;
        this.connector = connector;
        this.pubSubConnector = pubSubConnector;
        this.cluster = cluster;
        this.commandTimeoutMs = commandTimeout.toMillis();
        this.redactedUrl = redactedUrl;
        this.main = awaitOpen((StatefulConnection<String, String>) connector.apply(StringCodec.UTF8), commandTimeoutMs);
    }

    /**
     * Returns {@code connection} once its endpoint is active. Lettuce completes a connect when the
     * handshake is answered, and activates the endpoint a moment later on its event loop (seen in
     * Lettuce 7.7's debug log: "Connecting … Success" logged before the endpoint's
     * {@code channelActive()}); a command written in between is refused "Currently not connected",
     * because we reject rather than buffer while disconnected. That made about one connect in a
     * thousand fail its first command, mostly with AUTH. {@code isOpen()} does not see this window,
     * so this reads the endpoint's channel (a field of Lettuce's {@code DefaultEndpoint}; Lettuce is
     * an automatic module, so it is readable). Waits at most {@code timeoutMs}, then returns the
     * connection as it is, and the first command fails as it would have. When the field cannot be
     * read (another Lettuce version), it returns at once.
     */
    static <C extends StatefulConnection<?, ?>> C awaitOpen(C connection, long timeoutMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!endpointActive(connection) && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
        }
        return connection;
    }

    private static final java.lang.reflect.Field ENDPOINT_CHANNEL = endpointChannelField();

    private static java.lang.reflect.Field endpointChannelField() {
        try {
            java.lang.reflect.Field f = io.lettuce.core.protocol.DefaultEndpoint.class.getDeclaredField("channel");
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * @return the Netty channel under a single-server connection, or null when it cannot be read
     *     (a cluster connection, another Lettuce version, or no channel yet); for tests
     */
    static Channel channelOf(StatefulConnection<?, ?> connection) {
        if (ENDPOINT_CHANNEL == null || !(connection instanceof io.lettuce.core.RedisChannelHandler<?, ?> handler)) {
            return null;
        }
        Object writer = handler.getChannelWriter();
        while (writer instanceof io.lettuce.core.Delegating<?> delegating) {
            writer = delegating.getDelegate();
        }
        if (!(writer instanceof io.lettuce.core.protocol.DefaultEndpoint)) {
            return null;
        }
        try {
            return (Channel) ENDPOINT_CHANNEL.get(writer);
        } catch (IllegalAccessException e) {
            return null;
        }
    }

    /** @return false only when the connection's endpoint is known to have no channel yet */
    static boolean endpointActive(StatefulConnection<?, ?> connection) {
        if (ENDPOINT_CHANNEL == null || !(connection instanceof io.lettuce.core.RedisChannelHandler<?, ?> handler)) {
            return true;
        }
        Object writer = handler.getChannelWriter();
        while (writer instanceof io.lettuce.core.Delegating<?> delegating) {
            writer = delegating.getDelegate();
        }
        if (!(writer instanceof io.lettuce.core.protocol.DefaultEndpoint)) {
            return true;   // a cluster's writer: its node connections are opened by warm()
        }
        try {
            return ENDPOINT_CHANNEL.get(writer) != null;   // set by notifyChannelActive
        } catch (IllegalAccessException e) {
            return true;
        }
    }

    /**
     * Connects to the server, or the cluster, named by {@code url}: {@code redis://}, {@code rediss://},
     * {@code redis-socket://}, {@code redis-cluster://} or {@code rediss-cluster://}.
     *
     * @param commandTimeout how long one command may take before it fails
     * @throws IllegalArgumentException if the URL is malformed, or is a single-server URL naming a node of a
     *     Redis Cluster (the message names the {@code redis-cluster://} URL to use)
     * @throws RedisCommandException if the server cannot be reached ({@code CONNECT})
     */
    public static RedisEngine connect(String url, Duration commandTimeout) {
        return connect(url, commandTimeout, null);
    }

    /**
     * As {@link #connect(String, Duration)}, trusting for TLS ({@code rediss://} or
     * {@code rediss-cluster://}) the CA certificates in {@code trustedCertificates}.
     *
     * @param trustedCertificates a PEM file of CA certificates (checked by {@link TlsTrust#check}), or null
     *     for the JVM's default trust store
     * @throws IllegalArgumentException if the URL is malformed
     * @throws RedisCommandException if the server cannot be reached or the TLS handshake fails ({@code CONNECT})
     */
    public static RedisEngine connect(String url, Duration commandTimeout, java.nio.file.Path trustedCertificates) {
        if (RedisUrls.isCluster(url)) {
            return connectCluster(RedisUrls.parseCluster(url), RedisUrls.redact(url.trim()), commandTimeout,
                    trustedCertificates);
        }
        return connect(RedisUrls.parse(url), commandTimeout, trustedCertificates);
    }

    /**
     * Connects to a Redis Cluster through its seed nodes; the client learns the others from them.
     *
     * @param redactedUrl the URL without credentials, for messages
     * @param commandTimeout how long one command may take before it fails
     * @throws RedisCommandException if no seed can be reached or the cluster cannot be read ({@code CONNECT})
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static RedisEngine connectCluster(List<RedisURI> seeds, String redactedUrl, Duration commandTimeout) {
        return connectCluster(seeds, redactedUrl, commandTimeout, null);
    }

    /**
     * As {@link #connectCluster(List, String, Duration)}, trusting for TLS the CA certificates in
     * {@code trustedCertificates} (null: the JVM's default trust store).
     *
     * @throws RedisCommandException if no seed can be reached or the cluster cannot be read ({@code CONNECT})
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static RedisEngine connectCluster(List<RedisURI> seeds, String redactedUrl, Duration commandTimeout,
                                             java.nio.file.Path trustedCertificates) {
        seeds.forEach(u -> {
            u.setTimeout(commandTimeout);
            // as for one server (see connect): no handshake commands the minimal ACL user lacks
            u.setLibraryName("");
            u.setLibraryVersion("");
        });
        ClientResources resources = coalescingResources();
        RedisClusterClient client = RedisClusterClient.create(resources, seeds);
        ClusterClientOptions.Builder options = ClusterClientOptions.builder();
        if (trustedCertificates != null) {
            options.sslOptions(TlsTrust.sslOptions(trustedCertificates));
        }
        options.maintNotificationsConfig(io.lettuce.core.MaintNotificationsConfig.disabled());
        client.setOptions(options
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enableAllAdaptiveRefreshTriggers()          // MOVED, ASK, reconnects, unknown nodes
                        .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                        .enablePeriodicRefresh(Duration.ofSeconds(30))
                        .build())
                .build());
        try {
            RedisEngine engine = new RedisEngine(client, resources, codec -> (StatefulConnection) warm(client, client.connect(codec)),
                    () -> warm(client, client.connectPubSub()), true, commandTimeout, redactedUrl);
            // Read now, on the caller's thread: publishMode() must never block later on an event loop.
            engine.features();
            return engine;
        } catch (RuntimeException e) {
            shutdown(client, resources);
            throw new RedisCommandException("CONNECT " + redactedUrl, null, e);
        }
    }

    /**
     * Connects to the server named by {@code uri}.
     *
     * @param commandTimeout how long one command may take before it fails
     * @throws RedisCommandException if the server cannot be reached ({@code CONNECT})
     */
    public static RedisEngine connect(RedisURI uri, Duration commandTimeout) {
        return connect(uri, commandTimeout, null);
    }

    /**
     * Connects to the server named by {@code uri}, trusting for TLS ({@code rediss://}) the CA
     * certificates in {@code trustedCertificates} instead of the JVM's default trust store.
     *
     * @param trustedCertificates a PEM file of CA certificates (checked by {@link TlsTrust#check}), or null
     *     for the JVM's default trust store
     * @throws RedisCommandException if the server cannot be reached or the TLS handshake fails ({@code CONNECT})
     * @throws IllegalArgumentException if the server is a node of a Redis Cluster: the message names the
     *     {@code redis-cluster://} URL to use ({@link ClusterNodeGuard})
     */
    public static RedisEngine connect(RedisURI uri, Duration commandTimeout, java.nio.file.Path trustedCertificates) {
        String redacted = RedisUrls.redact(uri.toString());
        uri.setTimeout(commandTimeout);
        // No CLIENT SETINFO and no CLIENT MAINT_NOTIFICATIONS in the handshake: Redis 6.2 and 7.0
        // know neither, and the ACL user limited to EchoMQ's commands (docs/security.md) would get
        // both denied, and logged in ACL LOG, on every connect. Valkey 8 knows CLIENT SETINFO, but
        // that one line must also run on 7.0, whose ACL SETUSER refuses +client|setinfo, so it cannot
        // grant it: the same denial would follow on Valkey.
        uri.setLibraryName("");
        uri.setLibraryVersion("");
        ClientResources resources = coalescingResources();
        RedisClient client = RedisClient.create(resources, uri);
        ClientOptions.Builder options = ClientOptions.builder()
                .maintNotificationsConfig(io.lettuce.core.MaintNotificationsConfig.disabled())
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout));
        if (trustedCertificates != null) {
            options.sslOptions(TlsTrust.sslOptions(trustedCertificates));
        }
        client.setOptions(options.build());
        RedisEngine engine;
        try {
            engine = new RedisEngine(client, resources, codec -> client.connect(codec), client::connectPubSub, false,
                    commandTimeout, redacted);
        } catch (RuntimeException e) {
            shutdown(client, resources);
            IllegalArgumentException clusterNode = ClusterNodeGuard.refusalFor(e, uri, redacted);
            if (clusterNode != null) {
                throw clusterNode;
            }
            throw new RedisCommandException("CONNECT " + redacted, null, e);
        }
        try {
            ClusterNodeGuard.refuseClusterNode(engine.commands(), uri, redacted, commandTimeout.toMillis());
        } catch (IllegalArgumentException clusterNode) {
            engine.close();
            throw clusterNode;
        }
        return engine;
    }

    /**
     * Opens the connection's link to every master now. Lettuce opens them on first use, and while one
     * is still opening, a command routed to it is rejected as "not connected" (we reject rather than
     * buffer; see the class comment), so the first command to each master would fail.
     */
    private static <K, V> StatefulRedisClusterConnection<K, V> warm(RedisClusterClient client,
                                                                    StatefulRedisClusterConnection<K, V> connection) {
        for (RedisClusterNode node : client.getPartitions()) {
            if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                try {
                    // by host and port: the key under which slot routing looks its connections up
                    connection.getConnection(node.getUri().getHost(), node.getUri().getPort());
                } catch (RuntimeException unreachable) {
                    // a master that is down now: its slots fail until it (or its replica) is back,
                    // as they would anyway; the rest of the cluster stays usable
                }
            }
        }
        return connection;
    }

    /** As above, for the sharded subscriptions that a cluster pub/sub connection routes by slot. */
    private static StatefulRedisClusterPubSubConnection<String, String> warm(RedisClusterClient client,
            StatefulRedisClusterPubSubConnection<String, String> connection) {
        for (RedisClusterNode node : client.getPartitions()) {
            if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                try {
                    connection.getConnection(node.getUri().getHost(), node.getUri().getPort());
                } catch (RuntimeException unreachable) {
                    // as above
                }
            }
        }
        return connection;
    }

    /** @return the shared, auto-flushed command connection (a cluster connection on a cluster) */
    public StatefulConnection<String, String> main() {
        return main;
    }

    /** @return the asynchronous commands of {@link #main()} */
    public RedisClusterAsyncCommands<String, String> commands() {
        return async(main);
    }

    /** @return whether this engine talks to a Redis Cluster */
    public boolean isCluster() {
        return cluster;
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
        String single = features().describe();
        if (!cluster) {
            return single;
        }
        long masters = ((RedisClusterClient) client).getPartitions().stream()
                .filter(n -> n.is(RedisClusterNode.NodeFlag.UPSTREAM)).count();
        int space = single.indexOf(' ');
        return single.substring(0, space) + " Cluster" + single.substring(space).replace("(", "(" + masters + " masters, ");
    }

    /**
     * @return the asynchronous commands of {@code connection}, a single-server or a cluster connection
     * @throws IllegalArgumentException for any other kind of connection
     */
    public static <K, V> RedisClusterAsyncCommands<K, V> async(StatefulConnection<K, V> connection) {
        if (connection instanceof StatefulRedisConnection<K, V> single) {
            return single.async();
        }
        if (connection instanceof StatefulRedisClusterConnection<K, V> many) {
            return many.async();
        }
        throw new IllegalArgumentException("not a command connection: " + connection);
    }

    /**
     * @return the connection whose commands are sent only on {@code flushCommands()}, opened on
     *     first use. Called once per watchdog batch, so a plain monitor is cheap enough.
     */
    @SuppressWarnings("unchecked")
    public synchronized StatefulConnection<String, String> pipelined() {
        if (pipelined == null) {
            pipelined = openOrFail(() -> (StatefulConnection<String, String>) connector.apply(StringCodec.UTF8),
                    "CONNECT (pipelined)");
            pipelined.setAutoFlushCommands(false);
        }
        return pipelined;
    }

    /** @return the dedicated pub/sub connection, opened on first use */
    public synchronized StatefulRedisPubSubConnection<String, String> pubSub() {
        if (pubSub == null) {
            pubSub = openOrFail(pubSubConnector, "CONNECT (pub/sub)");
        }
        return pubSub;
    }

    /** @return the auto-flushed connection with text keys and byte-array values, opened on first use */
    @SuppressWarnings("unchecked")
    public synchronized StatefulConnection<String, byte[]> binary() {
        if (binary == null) {
            binary = openOrFail(() -> (StatefulConnection<String, byte[]>) connector.apply(BINARY), "CONNECT (binary)");
        }
        return binary;
    }

    /** @return what the server supports, detected once on first call */
    public ServerFeatures features() {
        ServerFeatures f = features;
        if (f == null) {
            try {
                String info = commands().info("server").get(commandTimeoutMs, TimeUnit.MILLISECONDS);
                // Probed, not inferred from the version: Valkey 8 reports redis_version 7.2.4.
                List<Object> spublish = commands().commandInfo(ServerFeatures.SHARDED_PUBLISH)
                        .get(commandTimeoutMs, TimeUnit.MILLISECONDS);
                boolean hasSpublish = spublish != null && !spublish.isEmpty() && spublish.get(0) != null;
                f = ServerFeatures.of(info, hasSpublish);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RedisCommandException("INFO server", null, e);
            } catch (ExecutionException | java.util.concurrent.TimeoutException | RuntimeException e) {
                throw new RedisCommandException("INFO server", null, unwrap(e));
            }
            features = f;
        }
        return f;
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
        if (keys.length != script.numKeys()) {
            throw new IllegalStateException(script + " declares " + script.numKeys() + " keys, caller passed "
                    + keys.length);
        }
        CompletableFuture<T> first = runOnce(connection, script, type, keys, args);
        if (!cluster) {
            return first;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(commandTimeoutMs);
        return retryUnstable(first, () -> {
            CompletableFuture<T> again = runOnce(connection, script, type, keys, args);
            connection.flushCommands();   // the pipelined connection does not flush by itself
            return again;
        }, deadline, TRYAGAIN_FIRST_PAUSE_MS);
    }

    private <V, T> CompletableFuture<T> runOnce(StatefulConnection<String, V> connection, LuaScript script,
                                                ScriptOutputType type, String[] keys, V[] args) {
        RedisClusterAsyncCommands<String, V> async = async(connection);
        CompletableFuture<T> first = async.<T>evalsha(script.sha(), type, keys, args).toCompletableFuture();
        return first.exceptionallyCompose(e -> {
            if (unwrap(e) instanceof RedisNoScriptException) {
                CompletableFuture<T> retry = async.<T>eval(script.body(), type, keys, args).toCompletableFuture();
                connection.flushCommands();
                return retry;
            }
            return CompletableFuture.failedFuture(unwrap(e));
        });
    }

    /** Sends again, after a growing pause, while the cluster answers TRYAGAIN and the deadline allows. */
    private static <T> CompletableFuture<T> retryUnstable(CompletableFuture<T> attempt, Supplier<CompletableFuture<T>> again,
                                                         long deadlineNanos, long pauseMs) {
        return attempt.exceptionallyCompose(e -> {
            Throwable cause = unwrap(e);
            if (!isTryAgain(cause) || System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pauseMs) - deadlineNanos > 0) {
                return CompletableFuture.failedFuture(cause);
            }
            return CompletableFuture.supplyAsync(() -> null,
                            CompletableFuture.delayedExecutor(pauseMs, TimeUnit.MILLISECONDS))
                    .thenCompose(ignored -> retryUnstable(again.get(), again, deadlineNanos,
                            Math.min(TRYAGAIN_MAX_PAUSE_MS, pauseMs * 2)));
        });
    }

    /** @return whether {@code e} is the cluster's {@code TRYAGAIN}: a multi-key command met a slot in migration */
    static boolean isTryAgain(Throwable e) {
        return e instanceof RedisCommandExecutionException && e.getMessage() != null
                && e.getMessage().startsWith("TRYAGAIN");
    }

    /** Runs a script on the shared command connection. */
    public <T> CompletableFuture<T> run(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
        return this.<String, T>run(main, script, type, keys, args);
    }

    /**
     * Waits for {@code future} and returns its value, turning a failure into the library's
     * exception naming {@code command} and {@code resource}.
     *
     * @throws RedisCommandException if the future failed
     */
    public static <T> T await(CompletableFuture<T> future, String command, String resource) {
        try {
            return awaitInterruptibly(future, command, resource);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisCommandException(command, resource, e);
        }
    }

    /**
     * As {@link #await}, for callers whose contract is to throw {@link InterruptedException}.
     *
     * @throws InterruptedException if the calling thread is interrupted while waiting
     * @throws RedisCommandException if the future failed
     */
    public static <T> T awaitInterruptibly(CompletableFuture<T> future, String command, String resource)
            throws InterruptedException {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw failure(e, command, resource);
        }
    }

    /** @return {@code e}, unwrapped, as a {@link RedisCommandException} naming the command */
    public static RedisCommandException failure(Throwable e, String command, String resource) {
        Throwable cause = unwrap(e);
        if (cause instanceof RedisCommandException rce) {
            return rce;
        }
        return new RedisCommandException(command, resource, cause);
    }

    /** @return the first cause that is not a {@link CompletionException} or {@link ExecutionException} */
    public static Throwable unwrap(Throwable e) {
        Throwable t = e;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
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
    public void connectionListener(io.echomq.ConnectionListener listener) {
        synchronized (watchLock) {
            if (watch != null) {
                watch.stop();
                watch = null;
            }
            if (listener != null) {
                watch = new ConnectionWatch(client, redactedUrl, listener);
            }
        }
    }

    /**
     * Closes every connection, the client and its threads; idempotent.
     *
     * <p>Our connections are closed first, each by itself, and only then the client. A cluster
     * connection owns one connection per node, and the client also lists each of those node
     * connections among the resources it closes; left to the client, the node connections were
     * closed first, and then closed again by their cluster connection, and Lettuce warned
     * "Connection is already closed" once per node and connection, on stderr, after every
     * successful command. Closed by its owner, a node connection leaves the client's list, so the
     * client has nothing left to close twice.
     */
    @Override
    public void close() {
        connectionListener(null);   // our own closes are not an outage
        if (closed.getAndSet(true)) {
            return;
        }
        List<StatefulConnection<String, ?>> open = new java.util.ArrayList<>(4);
        synchronized (this) {
            open.add(pubSub);
            open.add(binary);
            open.add(pipelined);
        }
        open.add(main);
        try {
            for (StatefulConnection<String, ?> connection : open) {
                if (connection != null) {
                    try {
                        connection.close();
                    } catch (RuntimeException ignored) {
                        // closing anyway: the client's shutdown below releases what is left
                    }
                }
            }
        } finally {
            shutdown(client, resources);
        }
    }

    private static void shutdown(AbstractRedisClient client, ClientResources resources) {
        try {
            client.shutdown(0, 2, TimeUnit.SECONDS);
        } finally {
            // ours, not the client's: a client created with given resources leaves them running
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    /**
     * @return Lettuce's default resources (event loops, timers), except that every channel they open
     *     gets a {@link FlushConsolidationHandler} at the head of its pipeline, the side of the socket,
     *     below TLS when there is TLS. Lettuce writes each command with its own flush; from a caller
     *     thread that is one event-loop task and one {@code write()} system call per command, and on
     *     the server one {@code read()} and one {@code write()} per command. The handler lets the
     *     event loop hold back the flushes of the writes it makes while it is reading replies, and
     *     flushes them once, at the end of that read: the commands that callers sent while their
     *     earlier replies were arriving leave in one {@code write()}. With no read in progress a
     *     flush goes out at once, so a lone command is never held back. (Queuing those flushes too,
     *     Netty's {@code consolidateWhenNoReadInProgress}, made 16 threads of lock pairs 10-15%
     *     slower on a quiet 2-core machine, so it is off.) The
     *     resources belong to the engine, which shuts them down on {@link #close()}.
     */
    static ClientResources coalescingResources() {
        return DefaultClientResources.builder().nettyCustomizer(new NettyCustomizer() {
            @Override
            public void afterChannelInitialized(Channel channel) {
                // false: with no read in progress a flush goes out at once. true (a flush task queued
                // behind the writes) cost 10-15% of the 16-thread pairs/s on a quiet machine (BENCHMARKS.md)
                channel.pipeline().addFirst(FLUSH_CONSOLIDATION,
                        new FlushConsolidationHandler(FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, false));
            }
        }).build();
    }

    /** The name of the {@link FlushConsolidationHandler} in every channel's pipeline. */
    static final String FLUSH_CONSOLIDATION = "echomq-flush-consolidation";

    private <C extends StatefulConnection<?, ?>> C openOrFail(Supplier<C> opener, String what) {
        try {
            return awaitOpen(opener.get(), commandTimeoutMs);
        } catch (RuntimeException e) {
            throw new RedisCommandException(what + " " + redactedUrl, null, e);
        }
    }
}
