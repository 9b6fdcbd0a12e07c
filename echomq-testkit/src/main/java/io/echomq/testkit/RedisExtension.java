package io.echomq.testkit;

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
 */
public final class RedisExtension implements BeforeAllCallback, AfterAllCallback {

    private RedisServer server;
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
                server = RedisServer.start();
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
        server.close();
        server = null;
    }

    /**
     * Returns the running server.
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
     * Returns the server URL.
     *
     * @return {@code "redis://127.0.0.1:<port>"}
     * @throws IllegalStateException if the server is not running, as for {@link #server()}
     */
    public String url() {
        return server().url();
    }

    /**
     * Returns a shared {@link RawRedis} connection, opened on first use and closed in {@code afterAll}. Do not close
     * it yourself; open your own with {@link RawRedis#connect} if you need one.
     *
     * @return the shared connection
     * @throws IllegalStateException if the server is not running, as for {@link #server()}
     * @throws java.io.UncheckedIOException if the connection cannot be opened
     */
    public synchronized RawRedis raw() {
        RedisServer running = server();
        if (raw == null) {
            raw = RawRedis.connect(running.host(), running.port());
        }
        return raw;
    }

    /**
     * Deletes all keys in all databases ({@code FLUSHALL}).
     *
     * @throws IllegalStateException if the server is not running, as for {@link #server()}
     * @throws RawRedis.ErrorReply if the server rejects the command
     * @throws java.io.UncheckedIOException on I/O failure
     */
    public void flushAll() {
        raw().call("FLUSHALL");
    }
}
