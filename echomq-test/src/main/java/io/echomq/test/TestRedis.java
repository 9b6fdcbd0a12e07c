package io.echomq.test;

import io.echomq.server.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * The server an application's tests run on: one per JVM, chosen once.
 *
 * <ul>
 *   <li>With the system property {@value #URL_PROPERTY} or the environment variable {@value #URL_ENV} set, the
 *       server at that URL ({@code redis://} or {@code rediss://}, with its password if it needs one). Its data is
 *       deleted between tests: name a server that holds nothing else.</li>
 *   <li>Otherwise the embedded {@code redis-server} of {@code echomq-server}, started on a free loopback port at the
 *       first use and stopped when the JVM exits (or killed with it).</li>
 * </ul>
 * {@link EchoMQExtension} and {@code io.echomq.test.spring.AutoConfigureEchoMQTest} both use {@link #shared()}, so a
 * JVM starts at most one server however many test classes and Spring contexts it runs.
 */
public final class TestRedis {
    /** The system property that names an external server's URL. */
    public static final String URL_PROPERTY = "echomq.test.redis-url";
    /** The environment variable that names an external server's URL, when the property is not set. */
    public static final String URL_ENV = "EMQ_TEST_REDIS_URL";

    private static TestRedis shared;

    private final String url;
    private final RedisServer embedded;   // null for an external server
    private RedisClient client;           // for flushAll, opened on first use
    private StatefulRedisConnection<String, String> connection;

    private TestRedis(String url, RedisServer embedded) {
        this.url = url;
        this.embedded = embedded;
    }

    /**
     * Returns this JVM's test server, choosing it (and starting the embedded one) on the first call.
     *
     * @return the server, the same on every call
     * @throws IllegalStateException if the embedded server cannot start (see {@link RedisServer#start()})
     */
    public static synchronized TestRedis shared() {
        if (shared == null) {
            shared = choose(System.getProperty(URL_PROPERTY, System.getenv(URL_ENV)));
        }
        return shared;
    }

    /**
     * @param external the configured URL, or null (or blank) for none
     * @return the server at that URL, else a newly started embedded one, stopped when the JVM exits
     */
    static TestRedis choose(String external) {
        if (external != null && !external.isBlank()) {
            return new TestRedis(external.strip(), null);
        }
        RedisServer server = RedisServer.start();   // its own shutdown hook stops it
        return new TestRedis(server.url(), server);
    }

    /**
     * Returns the URL clients connect to.
     *
     * @return {@code redis://127.0.0.1:<port>} for the embedded server, else the URL as configured
     */
    public String url() {
        return url;
    }

    /**
     * Tells whether this is the embedded server, which this JVM started and stops.
     *
     * @return {@code true} for the embedded server, {@code false} for one named by a URL
     */
    public boolean embedded() {
        return embedded != null;
    }

    /**
     * Deletes every key in every database of the server ({@code FLUSHALL}), so that a test starts on an empty server.
     *
     * @throws io.lettuce.core.RedisException if the server cannot be reached or refuses the command
     */
    public synchronized void flushAll() {
        if (connection == null) {
            client = RedisClient.create(RedisURI.create(url));
            connection = client.connect();
        }
        connection.sync().flushall();
    }

    @Override
    public String toString() {
        return (embedded != null ? "embedded " : "external ") + url;
    }
}
