package io.echomq.internal;

import io.echomq.RedisCommandException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.MaintNotificationsConfig;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The connections to N independent Redis masters for Redlock, and the way a command is sent to
 * one of them.
 *
 * <ol>
 *   <li>One Lettuce {@link RedisClient} (one set of event-loop threads) with one auto-flushed
 *       connection per master. Every command has the short per-master timeout, so a hung master
 *       costs at most that much of a lease's validity.</li>
 *   <li>A master that could not be reached when the client was built, or whose connection was
 *       closed, is reconnected in the background on the next command; that command fails at once
 *       rather than wait for the connect. An established connection reconnects by itself, and
 *       rejects commands while it is down (never buffers them: a late acquire would grant a lock
 *       that nobody knows it holds).</li>
 *   <li>Scripts are sent with {@code EVALSHA} and, on {@code NOSCRIPT}, one {@code EVAL}, as
 *       {@link RedisEngine} does for one server.</li>
 * </ol>
 *
 * <p>Every failure is a {@link RedisCommandException} whose command names the master.
 */
public final class RedlockMasters implements AutoCloseable {
    /** A connect (TCP, TLS, HELLO) may take longer than one command; a refused one fails at once anyway. */
    private static final Duration MIN_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    private final RedisClient client;
    private final List<Master> masters;

    /** One master: its address and its connection, if any. */
    private static final class Master {
        final RedisURI uri;
        final String redacted;
        volatile StatefulRedisConnection<String, String> connection;
        CompletableFuture<StatefulRedisConnection<String, String>> connecting;   // guarded by this

        Master(RedisURI uri, String redacted) {
            this.uri = uri;
            this.redacted = redacted;
        }
    }

    private RedlockMasters(RedisClient client, List<Master> masters) {
        this.client = client;
        this.masters = masters;
    }

    /**
     * Checks the Redlock masters' URLs, before anything connects.
     *
     * @param urls the masters, {@code redis://…} or {@code rediss://…}: an odd number, at least 3,
     *     each a different server (host and port, or socket)
     * @return the URLs, trimmed, in the order given
     * @throws IllegalArgumentException if null, empty, holding fewer than 3 or an even number of
     *     URLs, or a malformed or repeated one (the message names it, never its password)
     */
    public static List<String> checkUrls(List<String> urls) {
        if (urls == null || urls.isEmpty()) {
            throw new IllegalArgumentException("redisUrls must name the Redlock masters: an odd number, at least 3");
        }
        int n = urls.size();
        if (n < 3) {
            throw new IllegalArgumentException("redisUrls names " + n + " master" + (n == 1 ? "" : "s")
                    + "; Redlock needs an odd number of at least 3 (with fewer, one failure stops it; "
                    + "for one server use LockClient)");
        }
        if (n % 2 == 0) {
            throw new IllegalArgumentException("redisUrls names " + n + " masters; use an odd number: "
                    + n + " tolerate no more failures than " + (n - 1) + " (quorum " + (n / 2 + 1) + ")");
        }
        List<String> checked = new ArrayList<>();
        List<String> servers = new ArrayList<>();
        for (String url : urls) {
            RedisURI uri = RedisUrls.parse(url);
            String server = uri.getSocket() != null ? uri.getSocket()
                    : uri.getHost().toLowerCase(Locale.ROOT) + ":" + uri.getPort();
            if (servers.contains(server)) {
                throw new IllegalArgumentException("redisUrls names the server " + server
                        + " twice; Redlock masters must be independent servers");
            }
            servers.add(server);
            checked.add(url.trim());
        }
        return checked;
    }

    /**
     * Opens one connection to each master, all in parallel, and waits for them (each bounded by
     * the connect timeout: the command timeout, but at least 2 s). Masters that cannot be reached are kept and retried on use.
     *
     * @param uris the masters, already checked
     * @param commandTimeout the timeout of one command on one master
     * @param minConnected how many masters must answer now
     * @return the masters, or nothing if fewer than {@code minConnected} could be reached
     * @throws RedisCommandException if fewer than {@code minConnected} masters could be reached;
     *     its message names each unreachable master and why
     */
    public static RedlockMasters connect(List<RedisURI> uris, Duration commandTimeout, int minConnected) {
        RedisClient client = RedisClient.create();
        Duration connectTimeout = commandTimeout.compareTo(MIN_CONNECT_TIMEOUT) > 0 ? commandTimeout
                : MIN_CONNECT_TIMEOUT;
        // As EngineConnector's connections: no CLIENT SETINFO and no CLIENT MAINT_NOTIFICATIONS in
        // the handshake, which the ACL line of docs/security.md cannot grant on every server
        client.setOptions(ClientOptions.builder()
                .maintNotificationsConfig(MaintNotificationsConfig.disabled())
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
                .build());
        List<Master> masters = new ArrayList<>();
        for (RedisURI uri : uris) {
            String redacted = RedisUrls.redact(uri.toString());
            uri.setTimeout(commandTimeout);
            uri.setLibraryName("");
            uri.setLibraryVersion("");
            masters.add(new Master(uri, redacted));
        }
        RedlockMasters result = new RedlockMasters(client, masters);
        List<CompletableFuture<StatefulRedisConnection<String, String>>> opening = new ArrayList<>();
        for (Master m : masters) {
            opening.add(result.reconnect(m));
        }
        int connected = 0;
        StringBuilder failed = new StringBuilder();
        Throwable firstFailure = null;
        for (int i = 0; i < masters.size(); i++) {
            try {
                opening.get(i).get(connectTimeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
                connected++;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                result.close();
                throw new RedisCommandException("CONNECT " + masters.get(i).redacted, null, e);
            } catch (Exception e) {
                Throwable cause = RedisEngine.unwrap(e);
                firstFailure = firstFailure == null ? cause : firstFailure;
                failed.append(failed.length() == 0 ? "" : ", ").append(masters.get(i).redacted)
                        .append(" (").append(cause.getMessage()).append(')');
            }
        }
        if (connected < minConnected) {
            result.close();
            throw new RedisCommandException("CONNECT: reached " + connected + " of " + masters.size()
                    + " Redlock masters, " + minConnected + " needed; unreachable: " + failed, null, firstFailure);
        }
        return result;
    }

    /** @return the number of masters */
    public int size() {
        return masters.size();
    }

    /** @return master {@code i}'s URL with any password replaced by {@code ***} */
    public String describe(int i) {
        return masters.get(i).redacted;
    }

    /**
     * Runs {@code script} on master {@code i}. The future fails with a
     * {@link RedisCommandException} naming the script and the master.
     *
     * @throws IllegalStateException if {@code keys} does not match the script's key count
     */
    public <T> CompletableFuture<T> run(int i, LuaScript script, ScriptOutputType type, String[] keys,
                                        String... args) {
        if (keys.length != script.numKeys()) {
            throw new IllegalStateException(script + " declares " + script.numKeys() + " keys, caller passed "
                    + keys.length);
        }
        return send(i, script.label(), conn -> {
            RedisAsyncCommands<String, String> async = conn.async();
            CompletableFuture<T> first = async.<T>evalsha(script.sha(), type, keys, args).toCompletableFuture();
            return first.exceptionallyCompose(e -> RedisEngine.unwrap(e) instanceof RedisNoScriptException
                    ? async.<T>eval(script.body(), type, keys, args).toCompletableFuture()
                    : CompletableFuture.failedFuture(RedisEngine.unwrap(e)));
        });
    }

    /**
     * Sends exactly {@code SET <key> <value> NX PX <ttl>} to master {@code i}.
     *
     * @return a future of whether the key was set
     */
    public CompletableFuture<Boolean> setNxPx(int i, String key, String value, long ttlMillis) {
        return send(i, "SET NX PX", conn -> {
            CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8)
                    .addKey(key).addValue(value).add("NX").add("PX").add(ttlMillis);
            return conn.async().dispatch(CommandType.SET, new StatusOutput<>(StringCodec.UTF8), args)
                    .toCompletableFuture().thenApply(ok -> ok != null);
        });
    }

    private <T> CompletableFuture<T> send(int i, String command,
                                          Function<StatefulRedisConnection<String, String>, CompletableFuture<T>> op) {
        Master m = masters.get(i);
        String what = command + " @ " + m.redacted;
        StatefulRedisConnection<String, String> conn = m.connection;
        CompletableFuture<T> f;
        if (conn == null) {
            reconnect(m);
            f = CompletableFuture.failedFuture(new IllegalStateException("not connected"));
        } else {
            try {
                f = op.apply(conn);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
        }
        return f.exceptionallyCompose(e -> CompletableFuture.failedFuture(RedisEngine.failure(e, what, null)));
    }

    /** Starts one connect to {@code m} unless one is in flight; a closed connection is replaced. */
    private CompletableFuture<StatefulRedisConnection<String, String>> reconnect(Master m) {
        synchronized (m) {
            if (m.connecting != null && !m.connecting.isDone()) {
                return m.connecting;
            }
            CompletableFuture<StatefulRedisConnection<String, String>> f;
            try {
                f = client.connectAsync(StringCodec.UTF8, m.uri).toCompletableFuture();
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            m.connecting = f.whenComplete((conn, e) -> {
                if (conn != null) {
                    m.connection = conn;
                }
            });
            return m.connecting;
        }
    }

    /** Closes every connection and the client; idempotent. */
    @Override
    public void close() {
        client.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
