package io.echomq.server;

import java.util.Locale;

/**
 * What a server says it is, parsed from {@code INFO server}: the product from {@code server_name} (absent on
 * Redis), the product's own version from {@code <server_name>_version}, and {@code redis_version}.
 */
record ServerIdentity(String product, String version, String redisVersion) {
    static ServerIdentity of(String info) {
        String redis = field(info, "redis_version");
        String name = field(info, "server_name");
        if (name == null || name.isEmpty() || name.equalsIgnoreCase("redis")) {
            return new ServerIdentity("Redis", redis, redis);
        }
        String own = field(info, name + "_version");
        return new ServerIdentity(name.substring(0, 1).toUpperCase(Locale.ROOT) + name.substring(1),
                own != null ? own : redis, redis);
    }

    @Override
    public String toString() {
        return product + " " + version;
    }

    /** @return the value of the {@code name:} line of {@code INFO} text, or null when there is none */
    static String field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return null;
    }
}
