package io.echomq.testkit;

import io.echomq.server.RawRedis;
import io.echomq.server.RedisCluster;
import io.echomq.server.RedisServer;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that runs one {@link RedisServer} per test class:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisExtension REDIS = new RedisExtension();
 * }</pre>
 *
 * The server starts in {@code beforeAll} and stops in {@code afterAll}; {@code @Nested} classes share the server of
 * their enclosing class. Data is not cleared between tests; call {@link #flushAll()} where needed. Requires
 * {@code junit-jupiter-api} on the class path (an optional dependency of the test kit).
 *
 * <p><b>Cluster mode.</b> With the environment variable {@value #MODE_ENV} (or the system property
 * {@code emq.redis.mode}) set to {@code cluster}, the same tests run against a {@link RedisCluster} of three masters
 * instead: {@link #url()} is its {@code redis-cluster://} URL, {@link #raw()} routes every command by slot, and
 * {@link #flushAll()} flushes every master. One cluster serves every test class of the JVM (forming one takes
 * seconds) and stops when the test run ends. Tests that cannot run on a cluster, such as those that read
 * {@code MONITOR}, carry {@code @Tag("standalone-only")} and are excluded from the cluster runs by
 * {@code -DexcludedGroups=standalone-only}; {@code docs/scaling.md} lists them.
 */
public final class RedisExtension implements BeforeAllCallback, AfterAllCallback {

    /** The environment variable that selects the mode: {@code standalone} (default) or {@code cluster}. */
    public static final String MODE_ENV = "EMQ_REDIS_MODE";

    private RedisServer server;
    private RedisCluster cluster;
    private RawRedis raw;
    private int depth;

    /** Creates an extension; the server starts when JUnit calls {@link #beforeAll}. */
    public RedisExtension() {
    }

    /**
     * Starts the server, unless an enclosing class already did.
     *
     * @param context the JUnit context
     * @throws IllegalStateException if the server cannot be started (see {@link RedisServer#start()})
     */
    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (depth++ == 0) {
            try {
                if (clusterMode()) {
                    cluster = context.getRoot().getStore(ExtensionContext.Namespace.create(RedisExtension.class))
                            .getOrComputeIfAbsent("cluster", k -> new SharedCluster(RedisCluster.start()),
                                    SharedCluster.class).cluster;
                    server = cluster.masters().get(0);
                } else {
                    server = RedisServer.start();
                }
            } catch (RuntimeException e) {
                depth = 0;
                throw e;
            }
        }
    }

    /**
     * Closes the shared {@link #raw()} connection and stops the server when the outermost class finishes.
     *
     * @param context the JUnit context
     */
    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (depth == 0 || --depth > 0) {
            return;
        }
        if (raw != null) {
            raw.close();
            raw = null;
        }
        if (cluster == null) {
            server.close();
        }
        server = null;
        cluster = null;
    }

    /**
     * Tells whether the tests run against a cluster, from {@value #MODE_ENV} or the system property
     * {@code emq.redis.mode}.
     *
     * @return {@code true} for {@code cluster}, {@code false} for {@code standalone} or unset
     * @throws IllegalStateException if the mode is set to anything else
     */
    public static boolean clusterMode() {
        String mode = System.getProperty("emq.redis.mode", System.getenv(MODE_ENV));
        if (mode == null || mode.isBlank() || mode.trim().equalsIgnoreCase("standalone")) {
            return false;
        }
        if (mode.trim().toLowerCase(Locale.ROOT).equals("cluster")) {
            return true;
        }
        throw new IllegalStateException(MODE_ENV + " must be 'standalone' or 'cluster', was '" + mode + "'");
    }

    /**
     * Returns the cluster the tests run against, in cluster mode.
     *
     * @return the shared cluster
     * @throws IllegalStateException if not in cluster mode, or called outside the class lifecycle
     */
    public synchronized RedisCluster cluster() {
        server();
        if (cluster == null) {
            throw new IllegalStateException("not in cluster mode; set " + MODE_ENV + "=cluster");
        }
        return cluster;
    }

    /** The cluster shared by every test class of the run; JUnit closes it when the run ends. */
    private static final class SharedCluster implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        final RedisCluster cluster;

        SharedCluster(RedisCluster cluster) {
            this.cluster = cluster;
        }

        @Override
        public void close() {
            cluster.close();
        }
    }

    /**
     * Returns the running server; in cluster mode, the cluster's first master.
     *
     * @return the server of the current test class
     * @throws IllegalStateException if called outside the class lifecycle (for example if the extension was not
     *         registered through a static {@code @RegisterExtension} field)
     */
    public synchronized RedisServer server() {
        if (server == null) {
            throw new IllegalStateException("Redis is not running: register RedisExtension on a static "
                    + "@RegisterExtension field and use it from tests or @BeforeEach/@AfterEach methods");
        }
        return server;
    }

    /**
     * Returns every server that holds data: the one server, or every master of the cluster.
     *
     * @return an immutable list, never empty
     * @throws IllegalStateException if the server is not running, as for {@link #server()}
     */
    public synchronized List<RedisServer> servers() {
        RedisServer running = server();
        return cluster != null ? cluster.masters() : List.of(running);
    }

    /**
     * Returns the server that holds {@code key}: the one server, or the master that owns the key's slot now.
     *
     * @param key a key, for example {@code "emq:{q}:active"}
     * @return that server
     * @throws IllegalStateException if the server is not running, as for {@link #server()}
     */
    public synchronized RedisServer serverFor(String key) {
        RedisServer running = server();
        return cluster != null ? cluster.masters().get(cluster.ownerOf(RedisCluster.slot(key))) : running;
    }

    /**
     * Returns the server URL.
     *
     * @return {@code "redis://127.0.0.1:<port>"}, or in cluster mode {@code "redis-cluster://127.0.0.1:<p1>,…"}
     * @throws IllegalStateException if the server is not running, as for {@link #server()}
     */
    public synchronized String url() {
        RedisServer running = server();
        return cluster != null ? cluster.url() : running.url();
    }

    /**
     * Returns a shared {@link RawRedis} connection (routing by slot in cluster mode), opened on first use and closed
     * in {@code afterAll}. Do not close it yourself; open your own with {@link RawRedis#connect} if you need one.
     *
     * @return the shared connection
     * @throws IllegalStateException if the server is not running, as for {@link #server()}
     * @throws java.io.UncheckedIOException if the connection cannot be opened
     */
    public synchronized RawRedis raw() {
        RedisServer running = server();
        if (raw == null) {
            raw = cluster != null ? cluster.raw() : RawRedis.connect(running.host(), running.port());
        }
        return raw;
    }

    /**
     * Deletes all keys in all databases ({@code FLUSHALL}), on every master in cluster mode.
     *
     * @throws IllegalStateException if the server is not running, as for {@link #server()}
     * @throws RawRedis.ErrorReply if the server rejects the command
     * @throws java.io.UncheckedIOException on I/O failure
     */
    public void flushAll() {
        raw().call("FLUSHALL");
    }
}
