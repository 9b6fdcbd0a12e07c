package io.echomq.dashboard;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The plain Lettuce connections the acts send their commands on, to the one server a URL names
 * ({@code redis://}, {@code rediss://}). With a CA file, TLS trusts exactly the certificates in it,
 * as the core's clients do with {@code trustedCertificates}; peer verification stays on.
 */
final class ActServer implements AutoCloseable {
    private final RedisClient client;

    private ActServer(RedisClient client) {
        this.client = client;
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
     * @param url                 {@code redis://} or {@code rediss://}
     * @param trustedCertificates a PEM file of the CA certificates to trust, or null for the JVM's
     * @throws IllegalArgumentException if the URL is malformed
     */
    static ActServer create(String url, Path trustedCertificates) {
        RedisClient c = RedisClient.create(url);
        if (trustedCertificates != null) {
            c.setOptions(ClientOptions.builder()
                    .sslOptions(SslOptions.builder().jdkSslProvider().trustManager(trustedCertificates.toFile()).build())
                    .build());
        }
        return new ActServer(c);
    }

    /**
     * @return a new connection; close it
     * @throws io.lettuce.core.RedisException if the server cannot be reached
     */
    Connection connect() {
        StatefulRedisConnection<String, String> c = client.connect();
        return new Connection(c, c.sync(), c.async());
    }

    /** Shuts the client down (its connections with it). */
    @Override
    public void close() {
        client.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
