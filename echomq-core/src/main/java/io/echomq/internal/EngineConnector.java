package io.echomq.internal;

import io.echomq.RedisCommandException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.MaintNotificationsConfig;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * How an engine comes to be: the Lettuce client for one server or one cluster, configured.
 *
 * <ol>
 *   <li>Picks single server, cluster or Sentinel from the URL's scheme.</li>
 *   <li>Sets the client options both share: reject (never buffer) while disconnected, the command
 *       timeout, TLS trust ({@link TlsTrust}), and no handshake commands the minimal ACL user lacks.</li>
 *   <li>On a cluster: topology refresh on every redirection and periodically, and every master's
 *       link opened before the first command ({@link #warm}).</li>
 *   <li>On a single server: refuses a node of a cluster ({@link ClusterNodeGuard}).</li>
 *   <li>Through Sentinel: the same client as for one server, whose URI names the sentinels and the
 *       master's name; Lettuce asks the sentinels for the master's address on every connect and
 *       reconnect, so a failover is followed by the next reconnect.</li>
 *   <li>On any failure, shuts the half-built client down and throws {@code CONNECT <url>}.</li>
 * </ol>
 *
 * <p>Together because each is a step of one connect, and all of them end before the engine is
 * handed out; what the engine does afterwards never comes back here. The clients ({@code LockClient},
 * {@code QueueClient}, the events reader) connect through here.
 */
public final class EngineConnector {
    private EngineConnector() {
    }

    /**
     * Connects to the server, or the cluster, named by {@code url}: {@code redis://}, {@code rediss://},
     * {@code redis-socket://}, {@code redis-cluster://}, {@code rediss-cluster://}, or the master that
     * {@code redis-sentinel://} or {@code rediss-sentinel://} names through its sentinels.
     *
     * @param commandTimeout how long one command may take before it fails
     * @throws IllegalArgumentException if the URL is malformed, or is a single-server URL naming a node of a
     *     Redis Cluster (the message names the {@code redis-cluster://} URL to use)
     * @throws RedisCommandException if the server cannot be reached ({@code CONNECT})
     */
    public static RedisEngine connect(String url, Duration commandTimeout) {
        return connect(url, commandTimeout, (Path) null);
    }

    /**
     * As {@link #connect(String, Duration)}, trusting for TLS ({@code rediss://}, {@code rediss-cluster://}
     * or {@code rediss-sentinel://}) the CA certificates in {@code trustedCertificates}.
     *
     * @param trustedCertificates a PEM file of CA certificates (checked by {@link TlsTrust#check}), or null
     *     for the JVM's default trust store
     * @throws IllegalArgumentException if the URL is malformed, or names a node of a Redis Cluster
     * @throws RedisCommandException if the server cannot be reached or the TLS handshake fails, or no sentinel
     *     names the master ({@code CONNECT})
     */
    public static RedisEngine connect(String url, Duration commandTimeout, Path trustedCertificates) {
        if (RedisUrls.isCluster(url)) {
            return connectCluster(RedisUrls.parseCluster(url), RedisUrls.redact(url.trim()), commandTimeout,
                    trustedCertificates);
        }
        if (RedisUrls.isSentinel(url)) {
            RedisURI uri = SentinelUrls.parse(url);
            // the sentinels get the same handshake as a data node (see below)
            uri.getSentinels().forEach(sentinel -> {
                sentinel.setLibraryName("");
                sentinel.setLibraryVersion("");
            });
            return connect(uri, RedisUrls.redact(url.trim()), commandTimeout, trustedCertificates);
        }
        RedisURI uri = RedisUrls.parse(url);
        return connect(uri, RedisUrls.redact(uri.toString()), commandTimeout, trustedCertificates);
    }


    /** Connects to a Redis Cluster through its seed nodes; the client learns the others from them. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static RedisEngine connectCluster(List<RedisURI> seeds, String redactedUrl, Duration commandTimeout,
                                      Path trustedCertificates) {
        seeds.forEach(u -> {
            u.setTimeout(commandTimeout);
            // as for one server (see below): no handshake commands the minimal ACL user lacks
            u.setLibraryName("");
            u.setLibraryVersion("");
        });
        ClientResources resources = FlushCoalescing.resources();
        RedisClusterClient client = RedisClusterClient.create(resources, seeds);
        ClusterClientOptions.Builder options = ClusterClientOptions.builder();
        if (trustedCertificates != null) {
            options.sslOptions(TlsTrust.sslOptions(trustedCertificates));
        }
        options.maintNotificationsConfig(MaintNotificationsConfig.disabled());
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
            FlushCoalescing.shutdown(client, resources);
            throw new RedisCommandException("CONNECT " + redactedUrl, null, e);
        }
    }

    /**
     * Connects to the one server named by {@code uri}, directly or through its sentinels; refuses a node of a
     * cluster ({@link ClusterNodeGuard}) named directly (a master that sentinels watch is never one).
     */
    static RedisEngine connect(RedisURI uri, String redacted, Duration commandTimeout, Path trustedCertificates) {
        boolean direct = uri.getSentinels().isEmpty();
        uri.setTimeout(commandTimeout);
        // No CLIENT SETINFO and no CLIENT MAINT_NOTIFICATIONS in the handshake: Redis 6.2 and 7.0
        // know neither, and the ACL user limited to EchoMQ's commands (docs/security.md) would get
        // both denied, and logged in ACL LOG, on every connect. Valkey 8 knows CLIENT SETINFO, but
        // that one line must also run on 7.0, whose ACL SETUSER refuses +client|setinfo, so it cannot
        // grant it: the same denial would follow on Valkey.
        uri.setLibraryName("");
        uri.setLibraryVersion("");
        ClientResources resources = FlushCoalescing.resources();
        RedisClient client = RedisClient.create(resources, uri);
        ClientOptions.Builder options = ClientOptions.builder()
                .maintNotificationsConfig(MaintNotificationsConfig.disabled())
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout));
        if (trustedCertificates != null) {
            options.sslOptions(TlsTrust.sslOptions(trustedCertificates));
        }
        client.setOptions(options.build());
        RedisEngine engine;
        try {
            engine = direct
                    ? new RedisEngine(client, resources, codec -> client.connect(codec), client::connectPubSub, false,
                            commandTimeout, redacted)
                    : new RedisEngine(client, resources, codec -> throughSentinels(() -> client.connect(codec)),
                            () -> throughSentinels(client::connectPubSub), false, commandTimeout, redacted);
        } catch (RuntimeException e) {
            IllegalArgumentException clusterNode = direct ? ClusterNodeGuard.refusalFor(e, uri, redacted) : null;
            if (clusterNode == null && direct) {
                clusterNode = ClusterNodeGuard.askWithoutSelect(client, uri, redacted, commandTimeout.toMillis());
            }
            FlushCoalescing.shutdown(client, resources);
            if (clusterNode != null) {
                throw clusterNode;
            }
            throw new RedisCommandException("CONNECT " + redacted, null, e);
        }
        if (!direct) {
            return engine;
        }
        try {
            ClusterNodeGuard.refuseClusterNode(engine.commands(), uri, redacted, commandTimeout.toMillis());
        } catch (IllegalArgumentException clusterNode) {
            engine.close();
            throw clusterNode;
        }
        return engine;
    }

    /** Connects made for one connection through the sentinels before a lookup that lost Lettuce's race fails it. */
    private static final int SENTINEL_LOOKUP_ATTEMPTS = 3;

    /**
     * Opens a connection through the sentinels, again when the master's lookup lost a race inside Lettuce: the
     * lookup's command can be sent on the sentinel connection before that connection counts as connected, and our
     * {@code REJECT_COMMANDS} then fails it at once, which Lettuce reports as "Cannot obtain master using SENTINEL
     * MASTER" with "Currently not connected" suppressed. Any other failure, and the last attempt's, is thrown.
     */
    private static <T> T throughSentinels(java.util.function.Supplier<T> connect) {
        for (int attempt = 1; ; attempt++) {
            try {
                return connect.get();
            } catch (RuntimeException e) {
                if (attempt == SENTINEL_LOOKUP_ATTEMPTS || !lookupRejectedBeforeConnected(e)) {
                    throw e;
                }
            }
        }
    }

    /** @return whether {@code failure} is a master lookup whose command was rejected as "not connected" */
    static boolean lookupRejectedBeforeConnected(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (String.valueOf(t.getMessage()).contains("Cannot obtain master using SENTINEL MASTER")) {
                for (Throwable s : t.getSuppressed()) {
                    if (String.valueOf(s.getMessage()).contains("Currently not connected")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * Opens the connection's link to every master now. Lettuce opens them on first use, and while one
     * is still opening, a command routed to it is rejected as "not connected" (we reject rather than
     * buffer; see {@link RedisEngine}), so the first command to each master would fail.
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
}
