package io.echomq.queue;

import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Finds the queues stored on a server, for tools that show every queue (the dashboard, an
 * operator's script).
 *
 * <ol>
 *   <li>{@link #names()} walks the keyspace with {@code SCAN} ({@code COUNT} {@value #SCAN_COUNT}
 *       per call, never {@code KEYS}), matching only the keys whose part after the hash tag starts
 *       with {@code s} or {@code p}, and keeps a queue's name when that part is exactly one of
 *       {@code seq}, {@code pending}, {@code paused}, {@code partitions}, {@code stats} or
 *       {@code schedules}; the partitions {@code q#0..q#k-1} of a sharded queue whose count
 *       {@code q} stores fold into {@code q}.</li>
 *   <li>{@link #exists(String)} says, in one {@code EXISTS} of the queue's own keys (one slot, so
 *       one call on a cluster too), whether a queue of that name is stored: its data, or any
 *       setting stored with it (pause, retention, timeout, layout, rate limit, concurrency cap), so
 *       that a queue an operator has configured before its first job exists too.</li>
 * </ol>
 *
 * <p>A walk is not a snapshot: a queue created or deleted during it may or may not be named. It
 * visits every key of the server once, so its cost grows with the keyspace (job hashes included):
 * callers that show it often should keep its answer for a while rather than walk on every view.
 * Thread-safe.
 */
public final class QueueDirectory {
    /** Keys the server visits per {@code SCAN} call. */
    public static final int SCAN_COUNT = 1000;
    /** The key suffixes that only a queue's own keys have, one of which every stored queue keeps. */
    private static final Set<String> MARKS = Set.of("seq", "pending", "paused", "partitions", "stats", "schedules");

    private final RedisEngine engine;

    private QueueDirectory(RedisEngine engine) {
        this.engine = engine;
    }

    /**
     * @param client the client whose server to look at; not closed by the directory
     * @return a directory of that server's queues
     * @throws NullPointerException if client is null
     */
    public static QueueDirectory of(QueueClient client) {
        return new QueueDirectory(java.util.Objects.requireNonNull(client, "client").context().engine());
    }

    /**
     * Walks the whole keyspace (on a cluster, every master's).
     *
     * @return the names of the stored queues, sorted, a sharded queue once under its own name; a
     *     partition whose sharded queue stores no count, and a name no client could have made,
     *     are left out
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public SortedSet<String> names() {
        ScanArgs match = ScanArgs.Builder.matches(QueueKeys.NAMESPACE + "{*}:[sp]*").limit(SCAN_COUNT);
        Set<String> found = new java.util.HashSet<>();
        Set<String> sharded = new java.util.HashSet<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = RedisEngine.await(engine.commands().scan(cursor, match).toCompletableFuture(),
                    "SCAN", "queues");
            for (String key : page.getKeys()) {
                int close = key.indexOf("}:");
                if (close < 0 || !MARKS.contains(key.substring(close + 2))) {
                    continue;
                }
                String name = key.substring(QueueKeys.NAMESPACE.length() + 1, close);
                found.add(name);
                if (key.endsWith("}:partitions")) {
                    sharded.add(name);
                }
            }
            cursor = page;
        } while (!cursor.isFinished());
        SortedSet<String> names = new TreeSet<>();
        for (String name : found) {
            int hash = name.lastIndexOf('#');
            boolean partition = hash > 0 && hash < name.length() - 1
                    && name.substring(hash + 1).chars().allMatch(c -> c >= '0' && c <= '9');
            if (partition) {
                if (sharded.contains(name.substring(0, hash))) {
                    names.add(name.substring(0, hash));
                }
            } else if (valid(name)) {
                names.add(name);
            }
        }
        return names;
    }

    /**
     * @param name a queue's name, as {@link QueueClient#open(String)} takes it
     * @return whether any key that a stored queue (plain or sharded) keeps, for its data or its
     *     settings, exists for that name
     * @throws IllegalArgumentException if the name is invalid
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public boolean exists(String name) {
        QueueKeys k = QueueKeys.ofUserName(name);
        String[] keys = {k.seq(), k.pending(), k.waitList(), k.active(), k.delayed(), k.dead(), k.done(), k.stats(),
            k.paused(), k.partitionsMark(), k.schedules(), k.retention(), k.protocolMark(), k.settings(), k.layout(),
            k.flow()};
        Long n = RedisEngine.await(engine.commands().exists(keys).toCompletableFuture(), "EXISTS", name);
        return n != null && n > 0;
    }

    private static boolean valid(String name) {
        try {
            QueueKeys.ofUserName(name);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
