package io.echomq.lock;

import io.echomq.internal.Checks;
import io.echomq.internal.KeyWalk;
import io.echomq.internal.LockKeys;
import io.echomq.internal.RedisEngine;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

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
 * keyspace when few locks are held.
 *
 * <p>{@link #page} takes the same walk in pages instead, each bounded by a number of lock keys
 * and by a time budget, and answers the cursor of the next page (on a cluster, the masters are
 * walked one after the other, the cursor naming the master), so that no caller has to wait for a walk of the whole keyspace.
 * A page sends its {@code SCAN} calls with a {@code COUNT} fitted to the lock keys still
 * wanted and to how many keys per lock key the page has visited so far (at least
 * {@value #MIN_COUNT}, at most {@value #SCAN_COUNT}), and keeps every lock key of every reply it
 * read, so that the next page starts exactly where it ends. Thread-safe.
 */
public final class LockDirectory {
    /** Keys the server visits per {@code SCAN} call. */
    public static final int SCAN_COUNT = 1000;
    /** Most locks one walk returns, and most lock keys a page asks for. */
    public static final int MAX_LOCKS = 1000;
    /** The smallest {@code COUNT} a page sends. */
    public static final int MIN_COUNT = 10;

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
     * One page of a walk.
     *
     * @param locks       the held locks whose keys the page's {@code SCAN} replies named, in the
     *                    order found, each as {@link LockClient#inspect} read it (a key whose lock
     *                    was released before its read is left out)
     * @param next        the cursor of the next page, or null when the walk has ended
     * @param scanCalls   the {@code SCAN} calls the page sent
     * @param keysVisited about how many keys those calls visited: the sum of their {@code COUNT}
     *                    hints ({@code SCAN} visits about {@code COUNT} keys per call, more when
     *                    keys share a hash bucket)
     * @param budgetSpent whether the page stopped because its time budget was spent before it
     *                    had its number of lock keys and before the walk ended
     */
    public record Page(List<LockInfo> locks, String next, int scanCalls, long keysVisited, boolean budgetSpent) {
        /** Copies the list. */
        public Page {
            locks = List.copyOf(locks);
        }
    }

    /**
     * Reads one page of the walk for the locks whose resource starts with {@code prefix}: sends
     * {@code SCAN} calls from {@code cursor} until their replies have named at least {@code size}
     * lock keys, the walk has ended, or {@code budget} is spent, then reads those locks with one
     * pipelined {@code inspect} each. A page may hold more than {@code size} locks: a reply's lock
     * keys are all kept, never left for a next page that would not see them.
     *
     * @param prefix the start of the resources to find; "" for all
     * @param cursor "" for the first page, else a page's {@link Page#next}
     *               for the same prefix
     * @param size   1..{@value #MAX_LOCKS}: the lock keys the page stops at
     * @param budget how long the page may send {@code SCAN} calls; the first call is always sent
     * @return the page
     * @throws IllegalArgumentException if prefix is null or holds '{' or '}', size is out of range,
     *     budget is null or negative, or the cursor is not one a page answered (on a cluster,
     *     also when its node is no master any more)
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public Page page(String prefix, String cursor, int size, Duration budget) {
        checkPrefix(prefix);
        if (size < 1 || size > MAX_LOCKS) {
            throw new IllegalArgumentException("size must be in 1.." + MAX_LOCKS + ", was " + size);
        }
        if (cursor == null || budget == null || budget.isNegative()) {
            throw new IllegalArgumentException("cursor and budget must not be null, nor budget negative");
        }
        long start = System.nanoTime();
        KeyWalk walk = new KeyWalk(client.engine());
        String head = client.keys().namespace() + "{";
        String match = glob(head + prefix) + "*}:lock";
        List<String> resources = new ArrayList<>();
        String at = cursor;
        int calls = 0;
        long visited = 0;
        long matched = 0;
        boolean spent = false;
        while (true) {
            int count = count(size - resources.size(), visited, matched);
            KeyWalk.Step step = walk.step(at, match, count);
            calls++;
            visited += count;
            matched += step.keys().size();
            for (String key : step.keys()) {
                String resource = key.substring(head.length(), key.length() - "}:lock".length());
                if (resource.startsWith(prefix) && valid(resource)) {
                    resources.add(resource);
                }
            }
            at = step.next();
            if (at == null || resources.size() >= size) {
                break;
            }
            if (System.nanoTime() - start >= budget.toNanos()) {
                spent = true;
                break;
            }
        }
        List<CompletableFuture<LockInfo>> reads = new ArrayList<>(resources.size());
        for (String resource : resources) {
            reads.add(client.inspectSent(resource));
        }
        List<LockInfo> held = new ArrayList<>(reads.size());
        for (int i = 0; i < reads.size(); i++) {
            LockInfo info = RedisEngine.await(reads.get(i), "inspect", resources.get(i));
            if (info.isHeld()) {
                held.add(info);
            }
        }
        return new Page(held, at, calls, visited, spent);
    }

    /**
     * @return how many keys the server holds ({@code DBSIZE}, a cluster's summed over its masters;
     *     expired keys not yet removed count), to set a page's {@link Page#keysVisited} against;
     *     empty when the server refuses {@code DBSIZE} to this client's user
     * @throws io.echomq.RedisCommandException if Redis fails otherwise
     */
    public OptionalLong keyCount() {
        long n = new KeyWalk(client.engine()).keyCount();
        return n < 0 ? OptionalLong.empty() : OptionalLong.of(n);
    }

    /** @return the next {@code COUNT}: about the keys that hold {@code wanted} lock keys at the density seen */
    private static int count(int wanted, long visited, long matched) {
        long c = matched == 0 ? (visited == 0 ? wanted : visited * 2) : (wanted * visited + matched - 1) / matched;
        return (int) Math.max(MIN_COUNT, Math.min(SCAN_COUNT, c));
    }

    private static void checkPrefix(String prefix) {
        if (prefix == null || prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("prefix must not be null or contain '{' or '}'");
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
        checkPrefix(prefix);
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
