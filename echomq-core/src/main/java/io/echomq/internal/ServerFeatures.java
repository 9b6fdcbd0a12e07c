package io.echomq.internal;

/**
 * What one Redis or Valkey server can do, detected from {@code INFO server} and
 * {@code COMMAND INFO} rather than assumed from a version number.
 *
 * @param version the server's {@code redis_version}, for example {@code 6.2.6}
 * @param valkey whether the server says it is Valkey
 * @param shardedPubSub whether {@code SPUBLISH}/{@code SSUBSCRIBE} exist (Redis 7+)
 */
public record ServerFeatures(String version, boolean valkey, boolean shardedPubSub) {

    /** Builds the record from the text of {@code INFO server} and the SPUBLISH probe. */
    static ServerFeatures of(String infoServer, boolean shardedPubSub) {
        String version = field(infoServer, "redis_version");
        String valkeyVersion = field(infoServer, "valkey_version");
        return new ServerFeatures(valkeyVersion != null ? valkeyVersion : (version == null ? "unknown" : version),
                valkeyVersion != null || infoServer.contains("server_name:valkey"), shardedPubSub);
    }

    private static String field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return null;
    }

    /** @return for example {@code "Redis 7.0.15 (SPUBLISH: yes)"} */
    public String describe() {
        return (valkey ? "Valkey " : "Redis ") + version + " (SPUBLISH: " + (shardedPubSub ? "yes" : "no") + ")";
    }
}
