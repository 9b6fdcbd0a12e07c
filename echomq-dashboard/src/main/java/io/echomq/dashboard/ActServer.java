package io.echomq.dashboard;

import io.echomq.RedisUrl;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The plain Lettuce connections the acts send their commands on, to the server a URL names: a
 * {@link RedisClient} for {@code redis://} and {@code rediss://}, a {@link RedisClusterClient}
 * (every command routed by its key's slot) for {@code redis-cluster://} and
 * {@code rediss-cluster://}. With a CA file, TLS trusts exactly the certificates in it, as the
 * core's clients do with {@code trustedCertificates}; peer verification stays on. Every command the
 * acts send through it names one key, so it runs on a cluster as on one server.
 */
final class ActServer implements AutoCloseable {
    private final AbstractRedisClient client;
    private final boolean cluster;

    private ActServer(AbstractRedisClient client, boolean cluster) {
        this.client = client;
        this.cluster = cluster;
    }

    /** One connection and its commands, whichever client made it. */
    record Connection(StatefulConnection<String, String> connection, RedisClusterCommands<String, String> sync,
                      RedisClusterAsyncCommands<String, String> async) implements AutoCloseable {
        /** Closes the connection. */
        @Override
        public void close() {
            connection.close();
        }
    }

    /**
     * Makes the client; nothing connects yet.
     *
     * @param url                 {@code redis://}, {@code rediss://}, {@code redis-cluster://} or
     *                            {@code rediss-cluster://}
     * @param trustedCertificates a PEM file of the CA certificates to trust, or null for the JVM's
     * @throws IllegalArgumentException if the URL is malformed
     */
    static ActServer create(String url, Path trustedCertificates) {
        ClientOptions.Builder options = RedisUrl.isCluster(url) ? ClusterClientOptions.builder() : ClientOptions.builder();
        if (trustedCertificates != null) {
            options.sslOptions(SslOptions.builder().jdkSslProvider().trustManager(trustedCertificates.toFile()).build());
        }
        if (RedisUrl.isCluster(url)) {
            RedisClusterClient c = RedisClusterClient.create(seeds(url));
            c.setOptions(((ClusterClientOptions.Builder) options).build());
            return new ActServer(c, true);
        }
        RedisClient c = RedisClient.create(url);
        c.setOptions(options.build());
        return new ActServer(c, false);
    }

    /**
     * @return a new connection; close it
     * @throws io.lettuce.core.RedisException if the server cannot be reached
     */
    Connection connect() {
        if (cluster) {
            StatefulRedisClusterConnection<String, String> c = ((RedisClusterClient) client).connect();
            return new Connection(c, c.sync(), c.async());
        }
        StatefulRedisConnection<String, String> c = ((RedisClient) client).connect();
        return new Connection(c, c.sync(), c.async());
    }

    /** Shuts the client down (its connections with it). */
    @Override
    public void close() {
        client.shutdown(0, 2, TimeUnit.SECONDS);
    }

    /**
     * The seed nodes of {@code redis[s]-cluster://[user:password@]host[:port][,host[:port]…]}: each
     * node as a {@code redis[s]://} URL with the same credentials, which Lettuce parses and decodes.
     */
    private static List<RedisURI> seeds(String url) {
        String trimmed = url.trim();
        boolean tls = trimmed.toLowerCase(Locale.ROOT).startsWith(RedisUrl.CLUSTER_TLS);
        String rest = trimmed.substring((tls ? RedisUrl.CLUSTER_TLS : RedisUrl.CLUSTER).length());
        int end = 0;
        while (end < rest.length() && "/?#".indexOf(rest.charAt(end)) < 0) {
            end++;
        }
        String authority = rest.substring(0, end);
        int at = authority.lastIndexOf('@');
        String userInfo = at < 0 ? "" : authority.substring(0, at + 1);
        List<RedisURI> seeds = new ArrayList<>();
        for (String node : authority.substring(at + 1).split(",")) {
            if (node.isBlank()) {
                throw new IllegalArgumentException("malformed cluster URL '" + RedisUrl.redact(url) + "': an empty node");
            }
            seeds.add(RedisURI.create((tls ? RedisUrl.REDIS_TLS : RedisUrl.REDIS) + userInfo + node.strip()));
        }
        return seeds;
    }
}
