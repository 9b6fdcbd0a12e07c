package io.echomq.internal;

import java.util.Locale;

/**
 * What one Redis or Valkey server is and what it can do, read from the server rather than assumed.
 *
 * <ul>
 *   <li><b>Which server</b>: {@code INFO server} names it. Valkey says {@code server_name:valkey} and
 *       its own version in {@code valkey_version}; its {@code redis_version} is only the Redis
 *       version it is compatible with (7.2.4 on Valkey 8.0). Redis has no {@code server_name}. So the
 *       product is taken from {@code server_name}, and the version from {@code <server_name>_version},
 *       falling back to {@code redis_version}.</li>
 *   <li><b>What it can do</b>: every capability EchoMQ chooses a path by is probed with
 *       {@code COMMAND INFO <command>}, never inferred from a product name or a version number (a
 *       Valkey 8 says 7.2.4, and a fork or a backport may differ again). Today that is one: sharded
 *       pub/sub ({@code SPUBLISH}/{@code SSUBSCRIBE}: absent on Redis 6.2, present on Redis 7.0 and
 *       Valkey 8.0), which a cluster uses when present and replaces with {@code PUBLISH}/{@code SUBSCRIBE}
 *       when absent ({@link RedisEngine#publishMode()}).</li>
 * </ul>
 *
 * @param product the server's own name, {@code "Redis"} or {@code "Valkey"} (another {@code server_name}
 *     is shown capitalised)
 * @param version the product's version, for example {@code 6.2.6}, {@code 7.0.15} or {@code 8.0.1};
 *     {@code "unknown"} if the server gives none
 * @param shardedPubSub whether the server knows {@code SPUBLISH} (probed; see {@link #SHARDED_PUBLISH})
 */
public record ServerFeatures(String product, String version, boolean shardedPubSub) {

    /** The command whose presence, asked with {@code COMMAND INFO}, means sharded pub/sub is available. */
    public static final String SHARDED_PUBLISH = "spublish";

    /**
     * Builds the record from the text of {@code INFO server} and the result of the probe.
     *
     * @param infoServer the reply to {@code INFO server}
     * @param shardedPubSub whether {@code COMMAND INFO spublish} described the command
     * @return the features; never {@code null}
     */
    static ServerFeatures of(String infoServer, boolean shardedPubSub) {
        String name = field(infoServer, "server_name");
        String redisVersion = field(infoServer, "redis_version");
        if (name == null || name.isEmpty() || name.equalsIgnoreCase("redis")) {
            return new ServerFeatures("Redis", redisVersion == null ? "unknown" : redisVersion, shardedPubSub);
        }
        String own = field(infoServer, name.toLowerCase(Locale.ROOT) + "_version");
        String version = own != null ? own : redisVersion != null ? redisVersion : "unknown";
        return new ServerFeatures(name.substring(0, 1).toUpperCase(Locale.ROOT) + name.substring(1), version,
                shardedPubSub);
    }

    private static String field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return null;
    }

    /** @return for example {@code "Redis 7.0.15 (SPUBLISH: yes)"} or {@code "Valkey 8.0.1 (SPUBLISH: yes)"} */
    public String describe() {
        return product + " " + version + " (SPUBLISH: " + (shardedPubSub ? "yes" : "no") + ")";
    }
}
