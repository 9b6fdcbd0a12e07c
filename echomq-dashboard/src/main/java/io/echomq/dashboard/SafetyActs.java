package io.echomq.dashboard;

import io.echomq.RedisCommandException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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
 * </ol>
 *
 * <p>Every key it writes is under the prefix it was opened with, and {@link #keys()} names them;
 * it deletes nothing before or after an act: the caller decides ({@link #deleteKeys()}). The
 * commands go to the one server the URL names (not to a cluster's other masters). Not thread-safe.
 */
public final class SafetyActs implements AutoCloseable {
    /** The {@code PX} of every acquire of the acts. */
    public static final Duration HOLD = Duration.ofSeconds(30);
    /** The workers of the race. */
    public static final int WORKERS = 4;

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> raw;
    private final String prefix;

    private SafetyActs(RedisClient client, StatefulRedisConnection<String, String> connection, String prefix) {
        this.client = client;
        this.connection = connection;
        this.raw = connection.sync();
        this.prefix = prefix;
    }

    /**
     * Connects to the server.
     *
     * @param redisUrl the server's URL ({@code redis://} or {@code rediss://})
     * @param prefix   the prefix of every key the acts write, for example {@code emq:demo:}
     * @return the acts, connected; close them
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the URL is malformed
     * @throws RedisCommandException if the server cannot be reached
     */
    public static SafetyActs open(String redisUrl, String prefix) {
        Objects.requireNonNull(redisUrl, "redisUrl");
        Objects.requireNonNull(prefix, "prefix");
        RedisClient client = RedisClient.create(redisUrl);
        try {
            return new SafetyActs(client, client.connect(), prefix);
        } catch (RuntimeException e) {
            client.shutdown(0, 2, TimeUnit.SECONDS);
            throw new RedisCommandException("CONNECT (the lock acts' connection)", null, e);
        }
    }

    /** @return the keys the acts write: the race's, the two-command acquire's, the one-command acquire's */
    public List<String> keys() {
        return List.of(raceKey(), setnxKey(), atomicKey());
    }

    /**
     * Deletes {@link #keys()}.
     *
     * @return how many existed
     * @throws RedisCommandException if the server fails
     */
    public long deleteKeys() {
        return call("DEL (the lock acts' keys)", () -> raw.del(keys().toArray(String[]::new)));
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
        List<StatefulRedisConnection<String, String>> workers = new ArrayList<>();
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
                StatefulRedisConnection<String, String> c = call("CONNECT (a racing worker)", client::connect);
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
            workers.forEach(StatefulRedisConnection::close);
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
        try (StatefulRedisConnection<String, String> processA = call("CONNECT (process A)", client::connect)) {
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

    /** Closes the connection; the keys stay (see {@link #deleteKeys()}). */
    @Override
    public void close() {
        connection.close();
        client.shutdown(0, 2, TimeUnit.SECONDS);
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
