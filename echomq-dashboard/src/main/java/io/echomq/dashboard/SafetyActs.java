package io.echomq.dashboard;

import io.echomq.RedisCommandException;
import io.echomq.lock.AcquireOptions;
import io.echomq.lock.FencedStore;
import io.echomq.lock.FencedValue;
import io.echomq.lock.FencedWriteOutcome;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.ReleaseOutcome;
import io.echomq.lock.RenewOutcome;
import io.lettuce.core.RedisException;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The lock acts of the course, run against a real server with plain commands, each answering a
 * record of the replies it got ({@link RaceRun}, {@link CrashGapRun}); {@code emq demo} prints
 * them and the dashboard's "Why it is safe" page draws them.
 *
 * <ol>
 *   <li>The race: four connections, released together by a barrier, each send
 *       {@code SET <prefix>race:lock <token> NX PX 30000}; then {@code GET} and {@code PTTL}.</li>
 *   <li>The crash gap: A's own connection sends {@code SETNX <prefix>setnx:lock} and closes before
 *       its {@code EXPIRE}; then {@code TTL} and B's {@code SETNX}; beside it C's
 *       {@code SET <prefix>atomic:lock <token> NX PX 30000} and {@code PTTL}.</li>
 *   <li>PX without NX: two {@code SET <prefix>px-only:lock <token> PX 30000}, {@code GET}, and the
 *       same with {@code NX}.</li>
 *   <li>The blind DEL and the stale fenced write, through a {@link LockClient} whose namespace is
 *       the prefix: a lease expires while its holder pauses, another is granted, and the stale
 *       holder's {@code DEL}, token-checked release, fenced write and renew are answered.</li>
 * </ol>
 *
 * <p>Every key it writes is under the prefix it was opened with, and {@link #keys()} names them;
 * it deletes nothing before or after an act: the caller decides ({@link #deleteKeys()}). Every
 * command names one key, so the acts run on a cluster ({@code redis-cluster://}, each command sent
 * to its key's master) as on one server. Not thread-safe.
 */
public final class SafetyActs implements AutoCloseable {
    /** The {@code PX} of every acquire of the acts. */
    public static final Duration HOLD = Duration.ofSeconds(30);
    /** The workers of the race. */
    public static final int WORKERS = 4;
    /** The ttl of a lease that expires while its holder pauses (the blind DEL, the stale write). */
    public static final Duration SHORT = Duration.ofMillis(200);

    private static final AcquireOptions PLAIN = AcquireOptions.defaults().plain();

    private final ActServer client;
    private final ActServer.Connection connection;
    private final RedisClusterCommands<String, String> raw;
    private final String prefix;
    private final LockClient locks;

    private SafetyActs(ActServer client, ActServer.Connection connection, String prefix, LockClient locks) {
        this.client = client;
        this.connection = connection;
        this.raw = connection.sync();
        this.prefix = prefix;
        this.locks = locks;
    }

    /**
     * Connects to the server, trusting the JVM's CA certificates for {@code rediss://}.
     *
     * @param redisUrl the server's URL ({@code redis://}, {@code rediss://}, {@code redis-cluster://}
     *                 or {@code rediss-cluster://})
     * @param prefix   the prefix of every key the acts write, for example {@code emq:demo:}
     * @return the acts, connected; close them
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the URL is malformed, or the prefix is not a lock
     *     namespace (see {@code LocksBuilder.namespace})
     * @throws RedisCommandException if the server cannot be reached
     */
    public static SafetyActs open(String redisUrl, String prefix) {
        return open(redisUrl, null, prefix);
    }

    /**
     * Connects to the server; with a CA file, every connection of the acts (their lock client's
     * and their plain ones) trusts exactly the certificates in it, as {@code LockClient}'s
     * {@code trustedCertificates} does.
     *
     * @param redisUrl            the server's URL ({@code redis://}, {@code rediss://},
     *                            {@code redis-cluster://} or {@code rediss-cluster://})
     * @param trustedCertificates a PEM file of the CA certificates to trust, or null for the JVM's
     * @param prefix              the prefix of every key the acts write, for example {@code emq:demo:}
     * @return the acts, connected; close them
     * @throws NullPointerException if the URL or the prefix is null
     * @throws IllegalArgumentException if the URL is malformed, the CA file is given for a URL
     *     without TLS or holds no certificate, or the prefix is not a lock namespace (see
     *     {@code LocksBuilder.namespace})
     * @throws RedisCommandException if the server cannot be reached
     */
    public static SafetyActs open(String redisUrl, Path trustedCertificates, String prefix) {
        Objects.requireNonNull(redisUrl, "redisUrl");
        Objects.requireNonNull(prefix, "prefix");
        LockClient.Builder lb = LockClient.builder().redisUrl(redisUrl).namespace(prefix);
        if (trustedCertificates != null) {
            lb.trustedCertificates(trustedCertificates);
        }
        LockClient locks = lb.build();
        ActServer client;
        try {
            client = ActServer.create(redisUrl, trustedCertificates);
        } catch (RuntimeException e) {
            locks.close();
            throw e;
        }
        try {
            return new SafetyActs(client, client.connect(), prefix, locks);
        } catch (RuntimeException e) {
            client.close();
            locks.close();
            throw new RedisCommandException("CONNECT (the lock acts' connection)", null, e);
        }
    }

    /**
     * @return the keys the acts write: the race's, the two-command and one-command acquires', PX
     *     without NX's, the blind DEL's lock, the fenced lock with its fence and its store's data key
     */
    public List<String> keys() {
        return List.of(raceKey(), setnxKey(), atomicKey(), pxOnlyKey(), locks.lockKey("blind"),
                locks.lockKey("fenced"), locks.fenceKey("fenced"), fencedDataKey());
    }

    /**
     * Deletes {@link #keys()}, one {@code DEL} per key: they hash to different slots, and a
     * cluster refuses a {@code DEL} across slots.
     *
     * @return how many existed
     * @throws RedisCommandException if the server fails
     */
    public long deleteKeys() {
        long deleted = 0;
        for (String key : keys()) {
            deleted += call("DEL (the lock acts' keys)", () -> raw.del(key));
        }
        return deleted;
    }

    /**
     * Runs the race: {@value #WORKERS} workers, each on its own connection, send
     * {@code SET <key> <token> NX PX 30000} at once.
     *
     * @return the replies; whatever the key held before decides them, as it would for real workers
     * @throws RedisCommandException if the server fails
     * @throws InterruptedException if interrupted while the workers run
     */
    public RaceRun race() throws InterruptedException {
        String key = raceKey();
        List<ActServer.Connection> workers = new ArrayList<>();
        AtomicInteger thread = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(WORKERS, r -> {
            Thread t = new Thread(r, "emq-race-" + thread.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            CyclicBarrier start = new CyclicBarrier(WORKERS);
            List<Future<RaceRun.Reply>> sent = new ArrayList<>();
            for (int i = 1; i <= WORKERS; i++) {
                ActServer.Connection c = call("CONNECT (a racing worker)", client::connect);
                workers.add(c);
                String who = "w" + i;
                String token = UUID.randomUUID().toString();
                sent.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS); // the four are released together
                    return new RaceRun.Reply(who, token, c.sync().set(key, token,
                            SetArgs.Builder.nx().px(HOLD.toMillis())));
                }));
            }
            List<RaceRun.Reply> replies = new ArrayList<>();
            for (Future<RaceRun.Reply> f : sent) {
                replies.add(get(f));
            }
            String stored = call("GET (the race's key)", () -> raw.get(key));
            long pttl = call("PTTL (the race's key)", () -> raw.pttl(key));
            return new RaceRun(key, HOLD.toMillis(), replies, stored, pttl);
        } finally {
            pool.shutdownNow();
            workers.forEach(ActServer.Connection::close);
        }
    }

    /**
     * Runs the crash gap: {@code SETNX} then a crash before {@code EXPIRE}, beside the one-command
     * {@code SET … NX PX}.
     *
     * @return the replies
     * @throws RedisCommandException if the server fails
     */
    @SuppressWarnings("deprecation") // SETNX is deprecated by Redis precisely because of this hazard
    public CrashGapRun crashGap() {
        String setnxKey = setnxKey();
        boolean first;
        try (ActServer.Connection processA = call("CONNECT (process A)", client::connect)) {
            first = call("SETNX (process A)", () -> processA.sync().setnx(setnxKey, UUID.randomUUID().toString()));
        } // process A "crashes": its connection closes here, before EXPIRE was sent
        long ttl = call("TTL (the two-command lock)", () -> raw.ttl(setnxKey));
        boolean second = call("SETNX (process B)", () -> raw.setnx(setnxKey, UUID.randomUUID().toString()));
        String atomicKey = atomicKey();
        String reply = call("SET NX PX (process C)", () -> raw.set(atomicKey, UUID.randomUUID().toString(),
                SetArgs.Builder.nx().px(HOLD.toMillis())));
        long pttl = call("PTTL (the one-command lock)", () -> raw.pttl(atomicKey));
        return new CrashGapRun(setnxKey, first, ttl, second, atomicKey, HOLD.toMillis(), reply, pttl);
    }

    /**
     * Runs PX without NX: C1 and C2 each send {@code SET <key> <token> PX 30000}, the key is read
     * back, then C3 sends the same with {@code NX}.
     *
     * @return the replies
     * @throws RedisCommandException if the server fails
     */
    public PxOnlyRun pxWithoutNx() {
        String key = pxOnlyKey();
        String t1 = UUID.randomUUID().toString();
        String t2 = UUID.randomUUID().toString();
        String r1 = call("SET PX (C1)", () -> raw.set(key, t1, SetArgs.Builder.px(HOLD.toMillis())));
        String r2 = call("SET PX (C2)", () -> raw.set(key, t2, SetArgs.Builder.px(HOLD.toMillis())));
        String stored = call("GET (PX without NX)", () -> raw.get(key));
        String r3 = call("SET NX PX (C3)", () -> raw.set(key, UUID.randomUUID().toString(),
                SetArgs.Builder.nx().px(HOLD.toMillis())));
        return new PxOnlyRun(key, HOLD.toMillis(), t1, r1, t2, r2, stored, r3);
    }

    /**
     * Runs the blind DEL twice on one key: each time A acquires for {@link #SHORT}, pauses until the
     * server has expired its lock (polling {@code PTTL}), and B acquires; then A sends a blind
     * {@code DEL} the first time and releases with its token the second.
     *
     * @return the replies
     * @throws RedisCommandException if the server fails
     * @throws InterruptedException if interrupted while A pauses
     */
    public BlindDeleteRun blindDelete() throws InterruptedException {
        String key = locks.lockKey("blind");
        Lease[] first = handover("blind", key);
        long deleted = call("DEL (A, blind)", () -> raw.del(key));
        String afterDelete = call("GET (B)", () -> raw.get(key));
        Lease[] second = handover("blind", key);
        ReleaseOutcome released = second[0] == null ? null : second[0].release();
        String afterRelease = call("GET (B)", () -> raw.get(key));
        return new BlindDeleteRun(key, first[0] != null && first[1] != null, deleted, afterDelete,
                second[0] != null && second[1] != null, released == null ? null : released.name(),
                second[1] == null ? null : second[1].token(), afterRelease);
    }

    /**
     * Runs the stale fenced write: A acquires for {@link #SHORT} and pauses past it; B acquires;
     * B writes to the fenced store, then A; the store is read; A renews its lost lease.
     *
     * @return the replies; null fences (0) when an acquire answered nil
     * @throws RedisCommandException if the server fails
     * @throws InterruptedException if interrupted while A pauses
     */
    public FencedWriteRun staleFencedWrite() throws InterruptedException {
        String key = locks.lockKey("fenced");
        long start = System.nanoTime();
        Lease a = locks.tryAcquire("fenced", SHORT).orElse(null);
        awaitExpiry(key, start);
        Lease b = locks.tryAcquire("fenced", HOLD).orElse(null);
        String data = fencedDataKey();
        if (a == null || b == null) {
            return new FencedWriteRun(key, locks.fenceKey("fenced"), data, a == null ? 0 : a.fence(),
                    b == null ? 0 : b.fence(), "nil", "nil", null, 0,
                    "nil");
        }
        FencedStore store = locks.fencedStore();
        FencedWriteOutcome bWrite = store.write(data, b.fence(), FencedWriteRun.B_VALUE);
        FencedWriteOutcome aWrite = store.write(data, a.fence(), "written by A");
        Optional<FencedValue> kept = store.read(data);
        RenewOutcome renewed = locks.renew("fenced", a.token(), HOLD);
        return new FencedWriteRun(key, locks.fenceKey("fenced"), data, a.fence(), b.fence(), bWrite.name(), aWrite.name(),
                kept.map(FencedValue::value).orElse(null), kept.map(FencedValue::fence).orElse(0L), renewed.name());
    }

    /** Closes the connections; the keys stay (see {@link #deleteKeys()}). */
    @Override
    public void close() {
        connection.close();
        client.close();
        locks.close();
    }

    /** A acquires for {@link #SHORT} and pauses past it; then B acquires. Nulls where nil. */
    private Lease[] handover(String resource, String key) throws InterruptedException {
        long start = System.nanoTime();
        Lease a = locks.tryAcquire(resource, SHORT, PLAIN).orElse(null);
        awaitExpiry(key, start);
        Lease b = locks.tryAcquire(resource, HOLD, PLAIN).orElse(null);
        return new Lease[] {a, b};
    }

    /**
     * Polls the key's PTTL until the server has expired it, sleeping no longer than it has left,
     * for at most 5 seconds past its ttl.
     */
    private void awaitExpiry(String key, long start) throws InterruptedException {
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(SHORT.toMillis() + 5_000);
        while (System.nanoTime() < deadline) {
            long pttl = call("PTTL (a pausing holder's lock)", () -> raw.pttl(key));
            if (pttl == -2) {
                return;
            }
            Thread.sleep(Math.max(1, Math.min(pttl, 20)));
        }
    }

    private String pxOnlyKey() {
        return prefix + "px-only:lock";
    }

    private String fencedDataKey() {
        return prefix + "{fenced}:data";
    }

    private String raceKey() {
        return prefix + "race:lock";
    }

    private String setnxKey() {
        return prefix + "setnx:lock";
    }

    private String atomicKey() {
        return prefix + "atomic:lock";
    }

    private static <T> T call(String what, java.util.function.Supplier<T> command) {
        try {
            return command.get();
        } catch (RedisException e) {
            throw new RedisCommandException(what, null, e);
        }
    }

    private static <T> T get(Future<T> f) throws InterruptedException {
        try {
            return f.get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof RedisException re ? new RedisCommandException("SET NX PX (a racing worker)", null, re)
                    : cause instanceof RuntimeException rt ? rt : new IllegalStateException("a racing worker failed", cause);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("a racing worker had no reply within 20 s", e);
        }
    }
}
