package io.echomq.cli;

import io.echomq.RedisCommandException;
import io.echomq.RedisUrl;
import io.echomq.lock.LockClient;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueEvents;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The {@code --redis URL} and {@code --redis-ca PEM} options, mixed into every command that talks
 * to a Redis server. When {@code --redis} is not given, the URL comes from the environment
 * variable {@value #ENV}, else {@value #DEFAULT_URL}. A password in that variable is never shown:
 * the help prints the URL with its user-info replaced by {@code ***}.
 */
final class RedisOptions {
    /** The environment variable holding the default Redis URL. */
    static final String ENV = "EMQ_REDIS_URL";
    /** The URL used when neither {@code --redis} nor {@value #ENV} is given. */
    static final String DEFAULT_URL = "redis://127.0.0.1:6379";

    @Option(names = "--redis", paramLabel = "URL", defaultValue = DEFAULT_URL,
            description = "Redis server: redis://[user:password@]host[:port][/db], rediss://… (TLS), "
                + "redis-socket:///path/to/socket, or for a Redis Cluster redis-cluster://host:port[,host:port…] "
                + "or rediss-cluster://… (TLS), or a master watched by Sentinel "
                + "redis-sentinel://host:port[,host:port…][/db]#master or rediss-sentinel://… (TLS). "
                + "Default: $" + ENV + " if set, else " + DEFAULT_URL + " (now: ${DEFAULT-VALUE}).")
    String url;

    @Option(names = "--redis-ca", paramLabel = "PEM",
            description = "For rediss:// (and rediss-cluster://, rediss-sentinel://) only: trust the CA certificates in this PEM file instead of the JVM's "
                + "trust store (for a server whose certificate a private CA signed).")
    Path trustedCertificates;

    /** The command this option set is mixed into: where the default value provider is found. */
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    /**
     * @return the URL to connect to: {@link #url}, or, when it is the redacted form of the
     *     {@value #ENV} default that the help shows, the real value of {@value #ENV}
     */
    String effectiveUrl() {
        if (mixee != null && mixee.defaultValueProvider() instanceof EnvDefaults env) {
            return env.unredact(url);
        }
        return url;
    }

    /**
     * Connects a lock client to {@link #url}.
     *
     * @throws IllegalArgumentException if the URL is malformed, or {@code --redis-ca} is unreadable or
     *     given with a URL that is not rediss://
     * @throws ConnectErrors.Explained if the server cannot be reached for a cause the user can fix
     *     (no server, a password needed or wrong, a plaintext server behind rediss://)
     * @throws io.echomq.RedisCommandException if the server cannot be reached for another cause
     */
    LockClient connect() {
        return connect(null);
    }

    /**
     * As {@link #connect()}, naming the client's holders with {@code holderLabel}
     * ({@link LockClient.Builder#holderLabel}).
     *
     * @param holderLabel the label of every token the client mints, or null for plain tokens
     */
    LockClient connect(String holderLabel) {
        String url = effectiveUrl();
        LockClient.Builder b = LockClient.builder().redisUrl(url).holderLabel(holderLabel);
        return connectWith(url, b::trustedCertificates, b::build);
    }

    /**
     * Connects a queue client to {@link #url}.
     *
     * @throws IllegalArgumentException if the URL is malformed, or {@code --redis-ca} is unreadable or
     *     given with a URL that is not rediss://
     * @throws ConnectErrors.Explained if the server cannot be reached for a cause the user can fix
     *     (no server, a password needed or wrong, a plaintext server behind rediss://)
     * @throws io.echomq.RedisCommandException if the server cannot be reached for another cause
     */
    QueueClient connectQueue() {
        return connectQueue(QueueClient.DEFAULT_MAX_PAYLOAD_BYTES);
    }

    /**
     * As {@link #connectQueue()}, accepting payloads of up to {@code maxPayloadBytes}.
     *
     * @param maxPayloadBytes 1..{@link QueueClient#MAX_PAYLOAD_LIMIT}
     */
    QueueClient connectQueue(int maxPayloadBytes) {
        String url = effectiveUrl();
        QueueClient.Builder b = QueueClient.builder().redisUrl(url).maxPayloadBytes(maxPayloadBytes);
        return connectWith(url, b::trustedCertificates, b::build);
    }

    /**
     * Opens a reader of a queue's events stream on its own connections to {@link #url}.
     *
     * @throws IllegalArgumentException if the URL, the queue name or {@code from} is invalid
     * @throws ConnectErrors.Explained if the server cannot be reached for a cause the user can fix
     * @throws io.echomq.RedisCommandException if the server cannot be reached for another cause
     */
    QueueEvents openEvents(String queue, String from) {
        String url = effectiveUrl();
        Path[] trust = {null};
        return connectWith(url, p -> trust[0] = p, () -> QueueEvents.open(url, trust[0], queue, from));
    }

    /**
     * Connects made before a failure is explained. Lettuce closes the channel when the server
     * refuses the handshake (a wrong password) and completes the connect with whichever of that
     * refusal and the close it sees first, so the same refusal now and then reads only "Connection
     * closed prematurely" (or "RedisHandshakeHandler not registered"). A second connect tells the
     * cause; a server that really closes every handshake is reported after the last.
     */
    private static final int CONNECT_ATTEMPTS = 3;

    /**
     * The one connect path of both clients: the CA file (its complaint named after
     * {@code --redis-ca}), the TLS probe, then the build, a failure of which is explained; one
     * that reads only as a close during the handshake is tried again first
     * ({@link #CONNECT_ATTEMPTS}).
     */
    private <C> C connectWith(String url, Consumer<Path> trust, Supplier<C> build) {
        if (trustedCertificates != null) {
            try {
                trust.accept(trustedCertificates);
            } catch (IllegalArgumentException e) {
                throw asOption(e);
            }
        }
        TlsProbe.check(url);
        for (int attempt = 1; ; attempt++) {
            try {
                return build.get();
            } catch (RedisCommandException e) {
                if (attempt < CONNECT_ATTEMPTS && ConnectErrors.closedInHandshake(e)) {
                    continue;
                }
                throw ConnectErrors.explain(url, e);
            }
        }
    }

    /** @return the builder's complaint about the CA file, naming the option the user gave */
    private static IllegalArgumentException asOption(IllegalArgumentException e) {
        String message = String.valueOf(e.getMessage()).replaceFirst("^trustedCertificates(\\(\\))?:?\\s*", "");
        return new IllegalArgumentException("--redis-ca: " + message, e);
    }

    /**
     * Supplies the default of this class's {@code --redis} option from {@value #ENV}, when that
     * variable is set and not blank. Other options, including other options named {@code --redis},
     * keep their own defaults. The default it supplies is the URL with any user-info replaced by
     * {@code ***}, because picocli also prints it in the help; {@link #unredact} turns it back.
     */
    static final class EnvDefaults implements IDefaultValueProvider {
        private final Map<String, String> env;

        /** @param env the environment to read {@value #ENV} from */
        EnvDefaults(Map<String, String> env) {
            this.env = Map.copyOf(env);
        }

        @Override
        public String defaultValue(ArgSpec arg) {
            boolean ours = arg.userObject() instanceof Field f && f.getDeclaringClass() == RedisOptions.class;
            String value = env.get(ENV);
            boolean url = ours && ((Field) arg.userObject()).getName().equals("url");
            return url && value != null && !value.isBlank() ? RedisUrl.redact(value.trim()) : null;
        }

        /**
         * @return the real {@value #ENV} URL when {@code url} is the redacted default this provider
         *     supplied, else {@code url} unchanged
         */
        String unredact(String url) {
            String value = env.get(ENV);
            if (value == null || value.isBlank() || url == null) {
                return url;
            }
            String real = value.trim();
            return !real.equals(url) && RedisUrl.redact(real).equals(url) ? real : url;
        }
    }
}
