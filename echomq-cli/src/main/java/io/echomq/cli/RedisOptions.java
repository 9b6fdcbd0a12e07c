package io.echomq.cli;

import io.echomq.lock.LockClient;
import io.echomq.queue.QueueClient;
import java.lang.reflect.Field;
import java.util.Map;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Option;

/**
 * The {@code --redis URL} option, mixed into every command that talks to a Redis server. When it
 * is not given, the URL comes from the environment variable {@value #ENV}, else
 * {@value #DEFAULT_URL}.
 */
final class RedisOptions {
    /** The environment variable holding the default Redis URL. */
    static final String ENV = "EMQ_REDIS_URL";
    /** The URL used when neither {@code --redis} nor {@value #ENV} is given. */
    static final String DEFAULT_URL = "redis://127.0.0.1:6379";

    @Option(names = "--redis", paramLabel = "URL", defaultValue = DEFAULT_URL,
            description = "Redis server, redis://[user:password@]host[:port][/db] or rediss://… (TLS). "
                + "Default: $" + ENV + " if set, else " + DEFAULT_URL + " (now: ${DEFAULT-VALUE}).")
    String url;

    /**
     * Connects a lock client to {@link #url}.
     *
     * @throws IllegalArgumentException if the URL is malformed
     * @throws io.echomq.RedisCommandException if the server cannot be reached
     */
    LockClient connect() {
        return LockClient.create(url);
    }

    /**
     * Connects a queue client to {@link #url}.
     *
     * @throws IllegalArgumentException if the URL is malformed
     * @throws io.echomq.RedisCommandException if the server cannot be reached
     */
    QueueClient connectQueue() {
        return QueueClient.create(url);
    }

    /**
     * Supplies the default of this class's {@code --redis} option from {@value #ENV}, when that
     * variable is set and not blank. Other options, including other options named {@code --redis},
     * keep their own defaults.
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
            return ours && value != null && !value.isBlank() ? value.trim() : null;
        }
    }
}
