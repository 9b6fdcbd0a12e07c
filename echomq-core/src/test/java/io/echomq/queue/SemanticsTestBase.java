package io.echomq.queue;

import static org.awaitility.Awaitility.await;

import io.echomq.server.CommandTap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/**
 * Raw-Redis helpers for the queue semantics tests: the server clock, set members and scores,
 * whole-keyspace snapshots. Everything here reads with the test kit's own RESP client, never with
 * the code under test.
 */
abstract class SemanticsTestBase extends QueueTestBase {
    static final String P = "emq:{q}:";
    /** The pending ZSET: priorities other than 0 (and priority-0 entries an older version left). */
    static final String PENDING = P + "pending";
    /** The wait LIST: pending jobs of priority 0, oldest first. */
    static final String WAIT_LIST = P + "wait";
    /** 2^42: one priority band of the pending score. */
    static final long BAND = 1L << 42;
    static final String ACTIVE = P + "active";
    static final String DELAYED = P + "due";
    static final String DEAD = P + "dead";
    static final Duration LONG_LEASE = Duration.ofSeconds(30);

    static String jobKey(String id) {
        return P + "job:" + id;
    }

    static String lockKey(String id) {
        return P + "job:" + id + ":lock";
    }

    /** The server's clock in ms, computed as the scripts do: seconds * 1000 + floor(micros / 1000). */
    long serverMillis() {
        List<?> t = (List<?>) raw().call("TIME");
        return Long.parseLong(t.get(0).toString()) * 1000 + Long.parseLong(t.get(1).toString()) / 1000;
    }

    /** ZSCORE as a long, or null when the member is absent. */
    Long score(String set, String id) {
        Object v = raw().call("ZSCORE", set, id);
        return v == null ? null : (long) Double.parseDouble(v.toString());
    }

    /** All members of a sorted set, lowest score first. */
    List<String> members(String set) {
        List<String> out = new ArrayList<>();
        for (Object o : (List<?>) raw().call("ZRANGE", set, "0", "-1")) {
            out.add(o.toString());
        }
        return out;
    }

    long card(String set) {
        return (Long) raw().call("ZCARD", set);
    }

    /** The wait LIST, head (next claimed) first. */
    List<String> waiting() {
        List<String> out = new ArrayList<>();
        for (Object o : (List<?>) raw().call("LRANGE", WAIT_LIST, "0", "-1")) {
            out.add(o.toString());
        }
        return out;
    }

    /**
     * Every pending id in the documented claim order (docs/protocol.md): the pending ZSET below
     * 2^42 (priority &gt; 0, then priority-0 entries an older version left), the wait LIST, then the
     * rest of the ZSET (priority &lt; 0). Read with raw ZRANGEBYSCORE and LRANGE.
     */
    List<String> pendingIds() {
        List<String> out = new ArrayList<>();
        for (Object o : (List<?>) raw().call("ZRANGEBYSCORE", PENDING, "-inf", "(" + BAND)) {
            out.add(o.toString());
        }
        out.addAll(waiting());
        for (Object o : (List<?>) raw().call("ZRANGEBYSCORE", PENDING, Long.toString(BAND), "+inf")) {
            out.add(o.toString());
        }
        return out;
    }

    /** ZCARD of the pending ZSET plus LLEN of the wait LIST, read raw. */
    long pendingCount() {
        return card(PENDING) + (Long) raw().call("LLEN", WAIT_LIST);
    }

    /** The job hash as text, field to value, sorted by field; empty when there is none. */
    Map<String, String> hash(String id) {
        return hashAt(jobKey(id));
    }

    private Map<String, String> hashAt(String key) {
        List<?> flat = (List<?>) raw().call("HGETALL", key);
        Map<String, String> out = new TreeMap<>();
        for (int i = 0; i < flat.size(); i += 2) {
            out.put(flat.get(i).toString(), flat.get(i + 1).toString());
        }
        return out;
    }

    boolean exists(String key) {
        return (Long) raw().call("EXISTS", key) == 1L;
    }

    Object get(String key) {
        return raw().call("GET", key);
    }

    long pttl(String key) {
        return (Long) raw().call("PTTL", key);
    }

    long dbSize() {
        return (Long) raw().call("DBSIZE");
    }

    /**
     * Every key of the keyspace with its type and full content (strings, hashes, sorted sets with
     * scores), but not TTLs: two equal snapshots mean no command changed any data.
     */
    Map<String, Object> snapshot() {
        Map<String, Object> out = new TreeMap<>();
        for (Object k : (List<?>) raw().call("KEYS", "*")) {
            String key = k.toString();
            String type = raw().call("TYPE", key).toString();
            Object content = switch (type) {
                case "string" -> raw().call("GET", key);
                case "hash" -> hashAt(key);
                case "zset" -> raw().call("ZRANGE", key, "0", "-1", "WITHSCORES");
                default -> "<" + type + ">";
            };
            out.put(key, type + ":" + content);
        }
        return out;
    }

    /** Waits (Awaitility) until the server clock has passed the job's lease deadline in active. */
    void awaitLeaseExpired(String id) {
        Long deadline = score(ACTIVE, id);
        if (deadline == null) {
            throw new AssertionError("job " + id + " is not active");
        }
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
                .until(() -> serverMillis() > deadline);
        // the lock subkey ends with the lease; read it until it is gone (a read deletes an expired
        // key), so that a keyspace snapshot taken next cannot see it vanish on its own afterwards
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
                .until(() -> get(lockKey(id)) == null);
    }

    /** Waits until the server clock has passed {@code serverMs}. */
    void awaitServerTimePast(long serverMs) {
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
                .until(() -> serverMillis() > serverMs);
    }

    /**
     * Runs {@code call} under MONITOR and returns the commands Redis executed for it, up to (not
     * including) a marker PING sent afterwards, so that the list is complete when returned.
     */
    <T> Recorded<T> recorded(Callable<T> call) throws Exception {
        try (CommandTap tap = raw().monitor()) {
            T result;
            Throwable thrown = null;
            try {
                result = call.call();
            } catch (Exception | AssertionError e) {
                result = null;
                thrown = e;
            }
            String marker = "marker-" + System.nanoTime();
            raw().call("PING", marker);
            if (!tap.awaitCommand(c -> c.contains(marker), Duration.ofSeconds(10))) {
                throw new AssertionError("MONITOR did not see the marker");
            }
            List<List<String>> seen = new ArrayList<>();
            for (List<String> c : tap.commands()) {
                if (c.contains(marker)) {
                    break;
                }
                seen.add(c);
            }
            return new Recorded<>(result, thrown, seen);
        }
    }

    /** The result or failure of a call and the commands Redis executed for it. */
    record Recorded<T>(T result, Throwable thrown, List<List<String>> commands) {
        long count(String command) {
            return commands.stream().filter(c -> c.get(0).equalsIgnoreCase(command)).count();
        }
    }

    /** Sets a delayed job's due time to 0 so that the next claim promotes it: skips a backoff wait. */
    void makeDue(String id) {
        Object changed = raw().call("ZADD", DELAYED, "XX", "CH", "0", id);
        if (!Long.valueOf(1).equals(changed)) {
            throw new AssertionError("job " + id + " was not delayed");
        }
    }
}
