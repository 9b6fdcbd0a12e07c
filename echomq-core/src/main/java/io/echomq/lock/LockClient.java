package io.echomq.lock;

import io.echomq.MonotonicClock;
import io.echomq.RedisCommandException;
import io.echomq.internal.ChannelSignals;
import io.echomq.internal.Checks;
import io.echomq.internal.LockKeys;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.RedisUrls;
import io.echomq.internal.Scripts;
import io.echomq.internal.ServerFeatures;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Distributed locks on one Redis or Valkey server: acquire in one atomic command, release and
 * renew by token, a fence on every grant.
 *
 * <pre>{@code
 * try (LockClient locks = LockClient.create("redis://127.0.0.1:6379")) {
 *     Optional<Lease> maybe = locks.tryAcquire("orders", Duration.ofSeconds(30));
 *     try (Lease lease = locks.acquire("orders", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
 *         store.write(lease.fence(), ...);   // fence the write
 *     }
 * }
 * }</pre>
 *
 * <ol>
 *   <li>Acquire: {@link #tryAcquire} answers at once, empty when the lock is held; {@link #acquire}
 *       waits, woken by the release script's notification with a jittered poll as a fallback.</li>
 *   <li>Release and renew: by the {@link Lease} handle, or by resource and token
 *       ({@link #release(String, String)}, {@link #renew(String, String, Duration)}) for a holder
 *       that kept only the token (the CLI).</li>
 *   <li>Inspect: {@link #inspect} reads holder, ttl and last fence in one step.</li>
 *   <li>Fencing: {@link #fencedStore()} is a ready guarded store.</li>
 * </ol>
 *
 * <p>Keys: {@code <ns>{<resource>}:lock} holds the token, {@code <ns>{<resource>}:fence} the last
 * fence; the namespace defaults to {@code emq:lock:}. See {@code docs/locks.md}.
 *
 * <p>Thread-safe; one client serves a whole application. Closing it does <em>not</em> release
 * outstanding leases: they expire by their ttl, and watchdogs stop renewing them.
 */
public final class LockClient implements AutoCloseable {
    /** The longest ttl accepted: one day. A longer hold should renew. */
    public static final Duration MAX_TTL = Duration.ofDays(1);
    /** The default fallback poll of a waiting {@link #acquire}, jittered ±50%. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(500);
    /** The default timeout of one Redis command. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(10);

    private static final HexFormat TOKEN_ENCODING = HexFormat.of();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final RedisEngine engine;
    private final LockKeys keys;
    private final MonotonicClock clock;
    private final long pollNanos;
    private final ChannelSignals signals;
    private final FencedStore fencedStore;
    private volatile Watchdog watchdog;
    private final LeaseBackend leases = new LeaseBackend() {
        @Override
        public MonotonicClock clock() {
            return clock;
        }

        @Override
        public CompletableFuture<RenewOutcome> renew(String resource, String token, long ttlMillis, long sentAt) {
            return renewCommand(engine.main(), resource, token, ttlMillis);
        }

        @Override
        public CompletableFuture<ReleaseOutcome> release(String resource, String token) {
            return releaseCommand(resource, token);
        }

        @Override
        public void guardDeadline(Lease lease) {
            watchdog().guardDeadline(lease);
        }
    };

    private LockClient(Builder b, RedisEngine engine) {
        this.engine = engine;
        this.keys = new LockKeys(b.namespace);
        this.clock = b.clock;
        this.pollNanos = b.pollInterval.toNanos();
        this.signals = new ChannelSignals(engine);
        this.fencedStore = new FencedStore(engine);
    }

    /**
     * Connects with every default.
     *
     * @param redisUrl {@code redis://[user:password@]host[:port][/db]} or {@code rediss://…}
     * @throws IllegalArgumentException if the URL is malformed
     * @throws RedisCommandException if the server cannot be reached
     */
    public static LockClient create(String redisUrl) {
        return builder().redisUrl(redisUrl).build();
    }

    /** @return a builder; {@link Builder#redisUrl} is required */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Fenced acquire without waiting. See {@link #tryAcquire(String, Duration, AcquireOptions)}.
     *
     * @throws IllegalArgumentException if the resource or ttl is invalid
     * @throws RedisCommandException if Redis fails
     */
    public Optional<Lease> tryAcquire(String resource, Duration ttl) {
        return tryAcquire(resource, ttl, AcquireOptions.defaults());
    }

    /**
     * Tries once to acquire {@code resource} for {@code ttl}. The fenced form runs one script
     * ({@code SET NX PX}, then {@code INCR} of the fence only on success); the plain form sends
     * exactly one {@code SET <lock> <token> NX PX <ttl>}.
     *
     * @return the lease, or empty when someone else holds the lock ("held" is not an error)
     * @throws IllegalArgumentException if the resource is null, empty or over 1024 bytes, or the
     *     ttl is null, under 1 ms or over {@link #MAX_TTL}, or options is null
     * @throws RedisCommandException if Redis fails; whether the lock was taken is then unknown,
     *     and an unknown grant expires by its ttl
     */
    public Optional<Lease> tryAcquire(String resource, Duration ttl, AcquireOptions options) {
        CompletableFuture<Optional<Lease>> f = tryAcquireAsync(resource, ttl, options);
        return RedisEngine.await(f, options.isFenced() ? "EVALSHA acquire-2" : "SET NX PX", resource);
    }

    /**
     * Asynchronous {@link #tryAcquire(String, Duration, AcquireOptions)}. Arguments are checked
     * before this method returns; Redis failures fail the future with a
     * {@link RedisCommandException}.
     *
     * @throws IllegalArgumentException on bad input
     */
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(String resource, Duration ttl, AcquireOptions options) {
        String r = Checks.name(resource, "resource");
        long ttlMs = checkTtl(ttl);
        Checks.notNull(options, "options");
        return attempt(r, ttlMs, options).thenApply(a -> Optional.ofNullable(a.lease));
    }

    /**
     * Fenced acquire that waits up to {@code maxWait}. See
     * {@link #acquire(String, Duration, Duration, AcquireOptions)}.
     */
    public Lease acquire(String resource, Duration ttl, Duration maxWait) throws InterruptedException {
        return acquire(resource, ttl, maxWait, AcquireOptions.defaults());
    }

    /**
     * Acquires {@code resource}, waiting up to {@code maxWait} for the holder to release it or
     * for its ttl to run out. A waiter subscribes to the lock's release channel, so it tries again
     * as soon as the release script publishes; between notifications it polls at the jittered
     * fallback interval, or at the holder's remaining ttl if that is sooner. It never spins.
     *
     * @return the lease
     * @throws IllegalArgumentException if any argument is invalid, or maxWait is negative
     * @throws LockWaitTimeoutException if the lock was still held when {@code maxWait} ran out
     * @throws InterruptedException if the calling thread is interrupted while waiting or while
     *     an attempt is in flight; nothing is then held, except that an attempt interrupted in
     *     flight may have been granted on the server, and that grant expires by its ttl
     * @throws RedisCommandException if Redis fails
     */
    public Lease acquire(String resource, Duration ttl, Duration maxWait, AcquireOptions options)
            throws InterruptedException {
        String r = Checks.name(resource, "resource");
        long ttlMs = checkTtl(ttl);
        long waitNanos = Checks.waitNanos(maxWait, "maxWait");
        Checks.notNull(options, "options");
        String op = options.isFenced() ? "EVALSHA acquire-2" : "SET NX PX";
        long start = clock.nanoTime();

        Attempt first = RedisEngine.awaitInterruptibly(attempt(r, ttlMs, options), op, r);
        if (first.lease != null) {
            return first.lease;
        }
        try (ChannelSignals.Waiter waiter = signals.join(keys.channel(r))) {
            Attempt last = first;
            boolean subscribed = false;
            CompletableFuture<Void> signal = null;
            while (true) {
                long left = waitNanos - (clock.nanoTime() - start);
                if (left <= 0) {
                    throw new LockWaitTimeoutException(r, maxWait);
                }
                if (!subscribed) {
                    // Retry once the subscription is live, so that no release can slip past. If
                    // subscribing failed, carry on with the fallback poll alone rather than spin.
                    awaitQuietly(waiter.subscribed(), Math.min(left, pollNanos));
                    subscribed = waiter.subscribed().isDone();
                } else {
                    long pause = jitteredPoll();
                    if (last.pttlMillis > 0) {
                        pause = Math.min(pause, TimeUnit.MILLISECONDS.toNanos(last.pttlMillis) + 1);
                    }
                    // Taken before the last try: a release during that try ends this wait at once.
                    awaitQuietly(signal, Math.min(pause, left));
                }
                signal = waiter.signal();
                last = RedisEngine.awaitInterruptibly(attempt(r, ttlMs, options), op, r);
                if (last.lease != null) {
                    return last.lease;
                }
            }
        }
    }

    /**
     * Releases {@code resource} if, and only if, it still holds {@code token}: compare-and-delete.
     * Safe to retry.
     *
     * @throws IllegalArgumentException if the resource or token is null or empty
     * @throws RedisCommandException if Redis fails
     */
    public ReleaseOutcome release(String resource, String token) {
        String r = Checks.name(resource, "resource");
        Checks.name(token, "token");
        return RedisEngine.await(releaseCommand(r, token), "EVALSHA release-2", r);
    }

    /**
     * Sets the ttl of {@code resource} to {@code ttl} if, and only if, it still holds
     * {@code token}: compare-and-{@code PEXPIRE}. Never revives an expired lock.
     *
     * @throws IllegalArgumentException if the resource, token or ttl is invalid
     * @throws RedisCommandException if Redis fails
     */
    public RenewOutcome renew(String resource, String token, Duration ttl) {
        String r = Checks.name(resource, "resource");
        Checks.name(token, "token");
        long ms = checkTtl(ttl);
        return RedisEngine.await(renewCommand(engine.main(), r, token, ms), "EVALSHA renew-1", r);
    }

    /**
     * Reads the holder's token, the remaining ttl and the last fence of {@code resource} in one
     * atomic step.
     *
     * @throws IllegalArgumentException if the resource is invalid
     * @throws RedisCommandException if Redis fails
     */
    public LockInfo inspect(String resource) {
        String r = Checks.name(resource, "resource");
        CompletableFuture<List<Object>> f = engine.run(Scripts.INSPECT, ScriptOutputType.MULTI,
                new String[] {keys.lock(r), keys.fence(r)});
        List<Object> reply = RedisEngine.await(f, "EVALSHA inspect-2", r);
        return new LockInfo(r, (String) reply.get(0), (Long) reply.get(1), (Long) reply.get(2));
    }

    /** @return the guarded store that refuses writes from stale fences, sharing this connection */
    public FencedStore fencedStore() {
        return fencedStore;
    }

    /**
     * @return the Redis key that holds {@code resource}'s token, for tools and tests
     * @throws IllegalArgumentException if the resource is invalid
     */
    public String lockKey(String resource) {
        return keys.lock(Checks.name(resource, "resource"));
    }

    /**
     * @return the Redis key that counts {@code resource}'s grants
     * @throws IllegalArgumentException if the resource is invalid
     */
    public String fenceKey(String resource) {
        return keys.fence(Checks.name(resource, "resource"));
    }

    /**
     * @return the server's version and features, for example {@code "Redis 7.0.15 (SPUBLISH: yes)"}
     * @throws RedisCommandException if Redis fails
     */
    public String serverDescription() {
        ServerFeatures f = engine.features();
        return f.describe();
    }

    /** Closes the connections and stops the watchdog. Leases are not released; see the class doc. */
    @Override
    public void close() {
        Watchdog w = watchdog;
        if (w != null) {
            w.close();
        }
        engine.close();
    }

    // ---------------------------------------------------------------- engine, for Lease and Watchdog

    MonotonicClock clock() {
        return clock;
    }

    RedisEngine engine() {
        return engine;
    }

    Watchdog watchdog() {
        Watchdog w = watchdog;
        if (w == null) {
            synchronized (this) {
                w = watchdog;
                if (w == null) {
                    w = new Watchdog(clock, () -> {
                        StatefulRedisConnection<String, String> conn = engine.pipelined();
                        return new Watchdog.Batch() {
                            @Override
                            public CompletableFuture<RenewOutcome> renew(Lease lease, long ttlMillis, long sentAt) {
                                return renewCommand(conn, lease.resource(), lease.token(), ttlMillis);
                            }

                            @Override
                            public void flush() {
                                conn.flushCommands();
                            }
                        };
                    });
                    watchdog = w;
                }
            }
        }
        return w;
    }

    static long checkTtl(Duration ttl) {
        return Checks.ttlMillis(ttl, MAX_TTL, "ttl");
    }

    CompletableFuture<ReleaseOutcome> releaseCommand(String resource, String token) {
        CompletableFuture<Long> f = engine.run(Scripts.RELEASE, ScriptOutputType.INTEGER,
                new String[] {keys.lock(resource), keys.channel(resource)}, token, "PUBLISH");
        return wrap(f.thenApply(ReleaseOutcome::ofCode), "EVALSHA release-2", resource);
    }

    CompletableFuture<RenewOutcome> renewCommand(StatefulRedisConnection<String, String> conn, String resource,
                                                 String token, long ttlMillis) {
        CompletableFuture<Long> f = engine.run(conn, Scripts.RENEW, ScriptOutputType.INTEGER,
                new String[] {keys.lock(resource)}, token, Long.toString(ttlMillis));
        return wrap(f.thenApply(RenewOutcome::ofCode), "EVALSHA renew-1", resource);
    }

    /** The outcome of one acquire attempt: a lease, or the holder's remaining ttl. */
    private record Attempt(Lease lease, long pttlMillis) {
    }

    private CompletableFuture<Attempt> attempt(String resource, long ttlMillis, AcquireOptions options) {
        String token = newToken();
        long start = clock.nanoTime();
        String lockKey = keys.lock(resource);
        CompletableFuture<Attempt> f;
        if (options.isFenced()) {
            CompletableFuture<List<Object>> reply = engine.run(Scripts.ACQUIRE, ScriptOutputType.MULTI,
                    new String[] {lockKey, keys.fence(resource)}, token, Long.toString(ttlMillis));
            f = reply.thenApply(r -> {
                long granted = (Long) r.get(0);
                long value = (Long) r.get(1);
                return granted == 1
                        ? new Attempt(grant(resource, token, value, ttlMillis, start, options), 0)
                        : new Attempt(null, value);
            });
        } else {
            // Exactly the seed's command, in its order: SET <lock-key> <token> NX PX <ttl>.
            CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8)
                    .addKey(lockKey).addValue(token).add("NX").add("PX").add(ttlMillis);
            f = engine.main().async().dispatch(CommandType.SET, new StatusOutput<>(StringCodec.UTF8), args)
                    .toCompletableFuture()
                    .thenApply(ok -> ok != null
                            ? new Attempt(grant(resource, token, 0, ttlMillis, start, options), 0)
                            : new Attempt(null, -2));
        }
        return wrap(f, options.isFenced() ? "EVALSHA acquire-2" : "SET NX PX", resource);
    }

    private Lease grant(String resource, String token, long fence, long ttlMillis, long start, AcquireOptions o) {
        Lease lease = new Lease(leases, resource, token, fence, ttlMillis, start, o.hasWatchdog());
        if (o.hasWatchdog()) {
            watchdog().watch(lease);
        }
        return lease;
    }

    private static <T> CompletableFuture<T> wrap(CompletableFuture<T> f, String command, String resource) {
        return f.exceptionallyCompose(e -> CompletableFuture.failedFuture(RedisEngine.failure(e, command, resource)));
    }

    private static String newToken() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return TOKEN_ENCODING.formatHex(bytes);
    }

    private long jitteredPoll() {
        return pollNanos / 2 + ThreadLocalRandom.current().nextLong(pollNanos + 1);
    }

    /** Waits for {@code f} up to {@code nanos}; @return whether it completed normally. */
    private static boolean awaitQuietly(CompletableFuture<?> f, long nanos) throws InterruptedException {
        try {
            f.get(nanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException | ExecutionException e) {
            return false;
        }
    }

    /**
     * Configuration of a {@link LockClient}; immutable once built, checked as each setting is
     * given, with messages that name the setting.
     */
    public static final class Builder {
        private String redisUrl;
        private String namespace = LockKeys.DEFAULT_NAMESPACE;
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private MonotonicClock clock = MonotonicClock.SYSTEM;

        private Builder() {
        }

        /**
         * @param url {@code redis://…}, {@code rediss://…} or {@code redis-socket://…}; required
         * @throws IllegalArgumentException if malformed
         */
        public Builder redisUrl(String url) {
            RedisUrls.parse(url);
            this.redisUrl = url;
            return this;
        }

        /**
         * @param namespace prefix of every key, default {@code emq:lock:}; may be empty
         * @throws IllegalArgumentException if null or containing '{' or '}'
         */
        public Builder namespace(String namespace) {
            new LockKeys(namespace);
            this.namespace = namespace;
            return this;
        }

        /**
         * @param timeout how long one Redis command may take, default 10 s
         * @throws IllegalArgumentException if null or not positive
         */
        public Builder commandTimeout(Duration timeout) {
            Checks.ttlMillis(timeout, Duration.ofHours(1), "commandTimeout");
            this.commandTimeout = timeout;
            return this;
        }

        /**
         * @param interval the fallback poll of a waiting acquire, jittered ±50%, default 500 ms;
         *     waiters are normally woken sooner by the release notification
         * @throws IllegalArgumentException if null, under 1 ms or over one minute
         */
        public Builder pollInterval(Duration interval) {
            Checks.ttlMillis(interval, Duration.ofMinutes(1), "pollInterval");
            this.pollInterval = interval;
            return this;
        }

        /**
         * @param clock the monotonic clock for local lease deadlines, default {@link System#nanoTime()}
         * @throws IllegalArgumentException if null
         */
        public Builder clock(MonotonicClock clock) {
            this.clock = Checks.notNull(clock, "clock");
            return this;
        }

        /**
         * Connects.
         *
         * @throws IllegalArgumentException if no Redis URL was given
         * @throws RedisCommandException if the server cannot be reached
         */
        public LockClient build() {
            if (redisUrl == null) {
                throw new IllegalArgumentException("redisUrl is required");
            }
            RedisEngine engine = RedisEngine.connect(RedisUrls.parse(redisUrl), commandTimeout);
            return new LockClient(this, engine);
        }
    }
}
