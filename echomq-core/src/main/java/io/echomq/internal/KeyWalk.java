package io.echomq.internal;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A {@code SCAN} of the keyspace taken one call at a time, resumable from a cursor that a caller
 * can carry between requests (in a link, say).
 *
 * <ol>
 *   <li>On one server the cursor is the server's own {@code SCAN} cursor, in decimal.</li>
 *   <li>On a cluster a {@code SCAN} cursor means something on one node only, so the masters are
 *       walked one after the other in node-id order and the cursor is {@code <node id>-<that
 *       master's cursor>}; a finished master's walk goes on at the next master's cursor 0. A
 *       cursor naming a node that is no master any more is refused, so that a walk never resumes
 *       a cursor on a node that did not give it.</li>
 *   <li>The empty cursor is the start; a step whose walk has ended answers no next cursor.</li>
 * </ol>
 *
 * <p>Each key present for the whole walk is answered at least once, and exactly once when the
 * server did not rehash meanwhile, as {@code SCAN} promises. Thread-safe.
 */
public final class KeyWalk {
    /** The cursor of a walk's start. */
    public static final String START = "";
    private static final int MAX_CURSOR_CHARS = 20;

    private final RedisEngine engine;

    /** @param engine the engine whose server (or cluster masters) to walk */
    public KeyWalk(RedisEngine engine) {
        this.engine = Objects.requireNonNull(engine, "engine");
    }

    /**
     * What one {@code SCAN} call answered.
     *
     * @param keys the keys it named
     * @param next the cursor to continue from, or null when the walk has ended
     */
    public record Step(List<String> keys, String next) {
        /** Copies the keys. */
        public Step {
            keys = List.copyOf(keys);
        }
    }

    /**
     * Sends one {@code SCAN cursor MATCH match COUNT count}.
     *
     * @param cursor {@link #START} or a cursor an earlier step answered
     * @param match  the {@code MATCH} glob
     * @param count  the {@code COUNT} hint, at least 1
     * @return the keys and the cursor after them
     * @throws IllegalArgumentException if the cursor is malformed, or names a node that is not a
     *     master of the cluster now
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public Step step(String cursor, String match, int count) {
        Objects.requireNonNull(cursor, "cursor");
        ScanArgs args = ScanArgs.Builder.matches(match).limit(count);
        if (!engine.isCluster()) {
            String at = cursor.isEmpty() ? "0" : number(cursor);
            KeyScanCursor<String> page = RedisEngine.await(
                    engine.commands().scan(ScanCursor.of(at), args).toCompletableFuture(), "SCAN", match);
            return new Step(page.getKeys(), page.isFinished() ? null : page.getCursor());
        }
        List<String> masters = masters();
        String node;
        String at;
        if (cursor.isEmpty()) {
            if (masters.isEmpty()) {
                return new Step(List.of(), null);
            }
            node = masters.get(0);
            at = "0";
        } else {
            int dash = cursor.indexOf('-');
            if (dash < 1) {
                throw new IllegalArgumentException("not a cluster walk's cursor: '" + cursor + "'");
            }
            node = cursor.substring(0, dash);
            at = number(cursor.substring(dash + 1));
            if (!masters.contains(node)) {
                throw new IllegalArgumentException("the cursor names node " + node + ", which is not a master of the "
                        + "cluster now: start the walk again");
            }
        }
        KeyScanCursor<String> page = RedisEngine.await(cluster().getConnection(node).async()
                .scan(ScanCursor.of(at), args).toCompletableFuture(), "SCAN", match);
        String next;
        if (!page.isFinished()) {
            next = node + "-" + page.getCursor();
        } else {
            int i = masters.indexOf(node);
            next = i + 1 < masters.size() ? masters.get(i + 1) + "-0" : null;
        }
        return new Step(page.getKeys(), next);
    }

    /**
     * @return the number of keys of the server ({@code DBSIZE}; a cluster's summed over its masters),
     *     expired keys not yet removed included; -1 when the server refuses {@code DBSIZE} (an ACL
     *     without it)
     * @throws io.echomq.RedisCommandException if Redis fails otherwise
     */
    public long keyCount() {
        try {
            if (!engine.isCluster()) {
                return RedisEngine.await(engine.commands().dbsize().toCompletableFuture(), "DBSIZE", "keys");
            }
            long n = 0;
            for (String node : masters()) {
                n += RedisEngine.await(cluster().getConnection(node).async().dbsize().toCompletableFuture(), "DBSIZE",
                        "keys");
            }
            return n;
        } catch (io.echomq.RedisCommandException e) {
            if (String.valueOf(e.getMessage()).contains("NOPERM")) {
                return -1;
            }
            throw e;
        }
    }

    @SuppressWarnings("unchecked")
    private StatefulRedisClusterConnection<String, String> cluster() {
        return (StatefulRedisClusterConnection<String, String>) engine.main();
    }

    /** @return the masters' node ids, sorted */
    private List<String> masters() {
        List<String> ids = new ArrayList<>();
        for (RedisClusterNode n : cluster().getPartitions()) {
            if (n.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                ids.add(n.getNodeId());
            }
        }
        ids.sort(null);
        return ids;
    }

    private static String number(String text) {
        if (text.isEmpty() || text.length() > MAX_CURSOR_CHARS || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("not a walk's cursor: '" + text + "'");
        }
        return text;
    }
}
