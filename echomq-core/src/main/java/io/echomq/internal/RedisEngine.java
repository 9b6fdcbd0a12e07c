package io.echomq.internal;

import io.echomq.RedisCommandException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The connections to one Redis server and the way every script is run on them.
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
 */
public final class RedisEngine implements AutoCloseable {
    private static final RedisCodec<String, byte[]> BINARY = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> main;
    private final String redactedUrl;
    private StatefulRedisConnection<String, String> pipelined;      // guarded by this
    private StatefulRedisPubSubConnection<String, String> pubSub;   // guarded by this
    private StatefulRedisConnection<String, byte[]> binary;         // guarded by this
    private volatile ServerFeatures features;

    private RedisEngine(RedisClient client, StatefulRedisConnection<String, String> main, String redactedUrl) {
        this.client = client;
        this.main = main;
        this.redactedUrl = redactedUrl;
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
     */
    public static RedisEngine connect(RedisURI uri, Duration commandTimeout, java.nio.file.Path trustedCertificates) {
        String redacted = RedisUrls.redact(uri.toString());
        uri.setTimeout(commandTimeout);
        // No CLIENT SETINFO and no CLIENT MAINT_NOTIFICATIONS in the handshake: Redis 6.2 and 7.0
        // know neither, and the ACL user limited to EchoMQ's commands (docs/security.md) would get
        // both denied, and logged in ACL LOG, on every connect.
        uri.setLibraryName("");
        uri.setLibraryVersion("");
        RedisClient client = RedisClient.create(uri);
        ClientOptions.Builder options = ClientOptions.builder()
                .maintNotificationsConfig(io.lettuce.core.MaintNotificationsConfig.disabled())
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout));
        if (trustedCertificates != null) {
            options.sslOptions(TlsTrust.sslOptions(trustedCertificates));
        }
        client.setOptions(options.build());
        try {
            return new RedisEngine(client, client.connect(), redacted);
        } catch (RuntimeException e) {
            client.shutdown(0, 2, TimeUnit.SECONDS);
            throw new RedisCommandException("CONNECT " + redacted, null, e);
        }
    }

    /** @return the shared, auto-flushed command connection */
    public StatefulRedisConnection<String, String> main() {
        return main;
    }

    /**
     * @return the connection whose commands are sent only on {@code flushCommands()}, opened on
     *     first use. Called once per watchdog batch, so a plain monitor is cheap enough.
     */
    public synchronized StatefulRedisConnection<String, String> pipelined() {
        if (pipelined == null) {
            pipelined = openOrFail(client::connect, "CONNECT (pipelined)");
            pipelined.setAutoFlushCommands(false);
        }
        return pipelined;
    }

    /** @return the dedicated pub/sub connection, opened on first use */
    public synchronized StatefulRedisPubSubConnection<String, String> pubSub() {
        if (pubSub == null) {
            pubSub = openOrFail(client::connectPubSub, "CONNECT (pub/sub)");
        }
        return pubSub;
    }

    /** @return the auto-flushed connection with text keys and byte-array values, opened on first use */
    public synchronized StatefulRedisConnection<String, byte[]> binary() {
        if (binary == null) {
            binary = openOrFail(() -> client.connect(BINARY), "CONNECT (binary)");
        }
        return binary;
    }

    /** @return what the server supports, detected once on first call */
    public ServerFeatures features() {
        ServerFeatures f = features;
        if (f == null) {
            try {
                String info = main.sync().info("server");
                List<Object> spublish = main.sync().commandInfo("spublish");
                boolean hasSpublish = spublish != null && !spublish.isEmpty() && spublish.get(0) != null;
                f = ServerFeatures.of(info, hasSpublish);
            } catch (RuntimeException e) {
                throw new RedisCommandException("INFO server", null, e);
            }
            features = f;
        }
        return f;
    }

    /**
     * Runs a script on {@code connection}: {@code EVALSHA}, and on {@code NOSCRIPT} one {@code EVAL}.
     * The future fails with the raw Lettuce exception; callers wrap it with {@link #failure}.
     *
     * @throws IllegalStateException if {@code keys} does not match the script's declared key count
     */
    @SafeVarargs
    public final <V, T> CompletableFuture<T> run(StatefulRedisConnection<String, V> connection, LuaScript script,
                                                ScriptOutputType type, String[] keys, V... args) {
        if (keys.length != script.numKeys()) {
            throw new IllegalStateException(script + " declares " + script.numKeys() + " keys, caller passed "
                    + keys.length);
        }
        RedisAsyncCommands<String, V> async = connection.async();
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

    /** Closes every connection and the client; idempotent. */
    @Override
    public void close() {
        client.shutdown(0, 2, TimeUnit.SECONDS);
    }

    private <C> C openOrFail(java.util.function.Supplier<C> opener, String what) {
        try {
            return opener.get();
        } catch (RuntimeException e) {
            throw new RedisCommandException(what + " " + redactedUrl, null, e);
        }
    }
}
