package io.echomq.security;

import io.echomq.server.RawRedis;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a server holds, read by an admin connection: each key with its type, its whole value and
 * whether it expires, so that two snapshots are equal exactly when nothing was written between
 * them (a ttl counts only as present or absent, since it runs down by itself).
 */
final class Keyspace {
    private Keyspace() {
    }

    /** @return every key of the database, in name order, mapped to {@code <type> <ttl?> <value>} */
    static Map<String, String> snapshot(RawRedis admin) {
        Map<String, String> out = new TreeMap<>();
        for (Object k : (List<?>) admin.call("KEYS", "*")) {
            String key = (String) k;
            String type = String.valueOf(admin.call("TYPE", key));
            Object value = switch (type) {
                case "string" -> admin.call("GET", key);
                case "hash" -> pairs((List<?>) admin.call("HGETALL", key)).toString();
                case "list" -> admin.call("LRANGE", key, "0", "-1");
                case "set" -> new java.util.TreeSet<Object>((List<?>) admin.call("SMEMBERS", key)).toString();
                case "zset" -> admin.call("ZRANGE", key, "0", "-1", "WITHSCORES");
                case "stream" -> admin.call("XRANGE", key, "-", "+");
                default -> "?";
            };
            long ttl = (Long) admin.call("PTTL", key);
            out.put(key, type + (ttl >= 0 ? " expiring " : " ") + value);
        }
        return out;
    }

    private static Map<String, Object> pairs(List<?> flat) {
        Map<String, Object> m = new TreeMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            m.put(String.valueOf(flat.get(i)), flat.get(i + 1));
        }
        return m;
    }
}
