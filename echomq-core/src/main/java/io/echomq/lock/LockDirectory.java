package io.echomq.lock;

import io.echomq.internal.Checks;
import io.echomq.internal.LockKeys;
import io.echomq.internal.RedisEngine;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds the held locks of a {@link LockClient}'s namespace, for tools that show them (the
 * dashboard, an operator's script).
 *
 * <ol>
 *   <li>Walks the keyspace with {@code SCAN MATCH <ns>{<prefix>*}:lock}, {@code COUNT}
 *       {@value #SCAN_COUNT} per call (never {@code KEYS}), until the walk ends or {@code max}
 *       lock keys are found.</li>
 *   <li>Reads each found lock with {@link LockClient#inspect} (holder, ttl left, last fence, in
 *       one script each) and keeps those still held.</li>
 * </ol>
 *
 * <p>A walk is not a snapshot: a lock taken or released during it may or may not be named. It
 * visits the keys of the whole server until it has {@code max} locks, so its cost grows with the
 * keyspace when few locks are held. Thread-safe.
 */
public final class LockDirectory {
    /** Keys the server visits per {@code SCAN} call. */
    public static final int SCAN_COUNT = 1000;
    /** Most locks one walk returns. */
    public static final int MAX_LOCKS = 1000;

    private final LockClient client;

    private LockDirectory(LockClient client) {
        this.client = client;
    }

    /**
     * @param client the client whose namespace and server to look at; not closed by the directory
     * @return a directory of that namespace's locks
     * @throws NullPointerException if client is null
     */
    public static LockDirectory of(LockClient client) {
        return new LockDirectory(java.util.Objects.requireNonNull(client, "client"));
    }

    /**
     * What one walk found.
     *
     * @param locks    the held locks, in the order found (not sorted), each as {@link LockClient#inspect} read it
     * @param complete whether the walk reached the end of the keyspace; false when it stopped at
     *                 {@code max} lock keys, so that more may be held
     */
    public record Found(List<LockInfo> locks, boolean complete) {
        /** Copies the list. */
        public Found {
            locks = List.copyOf(locks);
        }
    }

    /**
     * Walks the keyspace (on a cluster, every master's) for the locks whose resource starts with
     * {@code prefix}.
     *
     * @param prefix the start of the resources to find; "" for all
     * @param max    1..{@value #MAX_LOCKS}: the walk stops once it has found this many lock keys
     * @return the held locks found
     * @throws IllegalArgumentException if prefix is null or holds '{' or '}', or max is out of range
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public Found held(String prefix, int max) {
        if (prefix == null || prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("prefix must not be null or contain '{' or '}'");
        }
        if (max < 1 || max > MAX_LOCKS) {
            throw new IllegalArgumentException("max must be in 1.." + MAX_LOCKS + ", was " + max);
        }
        RedisEngine engine = client.engine();
        LockKeys keys = client.keys();
        String head = keys.namespace() + "{";
        ScanArgs match = ScanArgs.Builder.matches(glob(head + prefix) + "*}:lock").limit(SCAN_COUNT);
        List<String> resources = new ArrayList<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        boolean dropped = false;
        do {
            KeyScanCursor<String> page = RedisEngine.await(engine.commands().scan(cursor, match).toCompletableFuture(),
                    "SCAN", "locks");
            for (String key : page.getKeys()) {
                String resource = key.substring(head.length(), key.length() - "}:lock".length());
                if (resource.startsWith(prefix) && valid(resource)) {
                    if (resources.size() < max) {
                        resources.add(resource);
                    } else {
                        dropped = true;
                    }
                }
            }
            cursor = page;
        } while (!cursor.isFinished() && resources.size() < max);
        List<LockInfo> held = new ArrayList<>();
        for (String resource : resources) {
            LockInfo info = client.inspect(resource);
            if (info.isHeld()) {
                held.add(info);
            }
        }
        return new Found(held, cursor.isFinished() && !dropped);
    }

    private static boolean valid(String resource) {
        try {
            Checks.resource(resource);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** @return {@code s} with the glob characters of SCAN MATCH escaped, so a prefix matches itself only */
    private static String glob(String s) {
        StringBuilder b = new StringBuilder(s.length() + 8);
        for (char c : s.toCharArray()) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                b.append('\\');
            }
            b.append(c);
        }
        return b.toString();
    }
}
