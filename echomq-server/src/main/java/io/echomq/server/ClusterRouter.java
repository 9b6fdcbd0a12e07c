package io.echomq.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The routing behind {@link RedisCluster#raw()}: one {@link RawRedis} per master, a slot map read from
 * {@code CLUSTER SLOTS} and corrected by every {@code MOVED}, and {@code ASKING} before a command sent on an
 * {@code ASK}. Keyless commands that act on a whole server are sent to every master.
 */
final class ClusterRouter implements AutoCloseable {
    private static final int MAX_REDIRECTS = 16;
    private static final Set<String> EVERY_MASTER = Set.of("FLUSHALL", "FLUSHDB", "DBSIZE", "KEYS");

    private final String seedHost;
    private final int seedPort;
    private final Map<String, RawRedis> nodes = new HashMap<>();
    private final String[] owner = new String[RedisCluster.SLOTS];
    private List<String> masters = List.of();

    ClusterRouter(String seedHost, int seedPort) {
        this.seedHost = seedHost;
        this.seedPort = seedPort;
        refresh();
    }

    synchronized Object call(String... args) {
        String name = args[0].toUpperCase(Locale.ROOT);
        if (EVERY_MASTER.contains(name) || everyMaster(name, args)) {
            return broadcast(name, args);
        }
        String key = keyOf(name, args);
        String address = key == null ? masters.get(0) : owner[RedisCluster.slot(key)];
        if (address == null) {
            address = masters.get(0);
        }
        boolean asking = false;
        for (int hop = 0; hop < MAX_REDIRECTS; hop++) {
            RawRedis node = node(address);
            try {
                if (asking) {
                    node.call("ASKING");
                }
                return node.call(args);
            } catch (RawRedis.ErrorReply e) {
                String m = e.getMessage();
                if (m.startsWith("MOVED ") || m.startsWith("ASK ")) {
                    String[] parts = m.split(" ");
                    address = parts[2];
                    asking = m.startsWith("ASK ");
                    if (!asking) {
                        owner[Integer.parseInt(parts[1])] = address;
                    }
                    continue;
                }
                throw e;
            }
        }
        throw new IllegalStateException("more than " + MAX_REDIRECTS + " redirections for " + args[0]);
    }

    private static boolean everyMaster(String name, String[] args) {
        if (args.length < 2) {
            return false;
        }
        String sub = args[1].toUpperCase(Locale.ROOT);
        return name.equals("SCRIPT") && sub.equals("FLUSH")
                || name.equals("CONFIG") && (sub.equals("SET") || sub.equals("RESETSTAT"))
                || name.equals("PUBSUB") && (sub.equals("NUMSUB") || sub.equals("SHARDNUMSUB"));
    }

    private Object broadcast(String name, String[] args) {
        refresh();
        Object first = null;
        long sum = 0;
        List<Object> all = new ArrayList<>();
        List<Object> counts = null;   // PUBSUB NUMSUB: [channel, n, …], n summed over the masters
        for (String m : masters) {
            Object r = node(m).call(args);
            if (name.equals("PUBSUB")) {
                List<?> reply = (List<?>) r;
                if (counts == null) {
                    counts = new ArrayList<>(reply);
                } else {
                    for (int i = 1; i < reply.size(); i += 2) {
                        counts.set(i, (Long) counts.get(i) + (Long) reply.get(i));
                    }
                }
                continue;
            }
            if (first == null) {
                first = r;
            }
            if (r instanceof Long l) {
                sum += l;
            } else if (r instanceof List<?> list) {
                all.addAll(list);
            }
        }
        return switch (name) {
            case "DBSIZE" -> sum;
            case "KEYS" -> all;
            case "PUBSUB" -> counts;
            default -> first;
        };
    }

    /** The key a command routes by, or null for a keyless one. */
    private static String keyOf(String name, String[] args) {
        if (name.equals("EVAL") || name.equals("EVALSHA")) {
            return args.length > 3 && !args[2].equals("0") ? args[3] : null;
        }
        Set<String> keyless = Set.of("PING", "ECHO", "TIME", "INFO", "CLIENT", "PUBSUB", "SCRIPT", "CONFIG",
                "CLUSTER", "COMMAND", "PUBLISH", "SPUBLISH");
        if (keyless.contains(name)) {
            return name.equals("SPUBLISH") && args.length > 1 ? args[1] : null;
        }
        return args.length > 1 ? args[1] : null;
    }

    private void refresh() {
        List<String> ms = new ArrayList<>();
        RawRedis seed = masters.isEmpty() ? node(seedHost + ":" + seedPort) : node(masters.get(0));
        for (Object o : (List<?>) seed.call("CLUSTER", "SLOTS")) {
            List<?> range = (List<?>) o;
            List<?> master = (List<?>) range.get(2);
            String address = master.get(0) + ":" + master.get(1);
            for (long s = (Long) range.get(0); s <= (Long) range.get(1); s++) {
                owner[(int) s] = address;
            }
            if (!ms.contains(address)) {
                ms.add(address);
            }
        }
        ms.sort(null);
        masters = List.copyOf(ms);
    }

    private RawRedis node(String address) {
        return nodes.computeIfAbsent(address, a -> {
            int colon = a.lastIndexOf(':');
            return RawRedis.connect(a.substring(0, colon), Integer.parseInt(a.substring(colon + 1)));
        });
    }

    @Override
    public synchronized void close() {
        nodes.values().forEach(RawRedis::close);
        nodes.clear();
    }
}
