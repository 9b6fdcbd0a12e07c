package io.echomq.lock;

import io.echomq.MonotonicClock;
import io.echomq.RedisCommandException;
import io.echomq.internal.ChannelSignals;
import io.echomq.internal.Checks;
import io.echomq.internal.LockKeys;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.RedisUrls;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.api.StatefulConnection;
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
    private final Duration commandTimeout;
    private final WaitLine waitLine = new WaitLine();
    private final java.util.concurrent.atomic.AtomicLong handoffs = new java.util.concurrent.atomic.AtomicLong();
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
        this.commandTimeout = b.commandTimeout;
        this.keys = new LockKeys(b.namespace);
        this.clock = b.clock;
        this.pollNanos = b.pollInterval.toNanos();
        this.signals = new ChannelSignals(engine);
        this.fencedStore = new FencedStore(engine);
    }

    /**
     * Connects with every default.
     *
     * @param redisUrl {@code redis://[user:password@]host[:port][/db]}, {@code rediss://…}, or a
     *     cluster: {@code redis-cluster://host:port[,host:port…]} (see {@code docs/scaling.md})
     * @throws IllegalArgumentException if the URL is malformed
     * @throws RedisCommandException if the server cannot be reached, refuses the credentials, or fails the TLS handshake
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
     * @throws IllegalArgumentException if the resource is null, empty or over 1024 bytes or holds a brace, or the
     *     ttl is null, under 1 ms or over {@link #MAX_TTL}, or options is null, or its replica
     *     wait is not shorter than the command timeout
     * @throws UnsupportedOperationException if the options wait for replicas on a cluster URL
     * @throws ReplicaAckException if the options wait for replicas and too few acknowledged the
     *     grant; the grant was released
     * @throws RedisCommandException if Redis fails; whether the lock was taken is then unknown,
     *     and an unknown grant expires by its ttl
     */
    public Optional<Lease> tryAcquire(String resource, Duration ttl, AcquireOptions options) {
        CompletableFuture<Optional<Lease>> f = tryAcquireAsync(resource, ttl, options);
        try {
            return RedisEngine.await(f, options.isFenced() ? Scripts.ACQUIRE.label() : "SET NX PX", resource);
        } catch (RedisCommandException e) {
            throw replicaAckOr(e);
        }
    }

    /**
     * Asynchronous {@link #tryAcquire(String, Duration, AcquireOptions)}. Arguments are checked
     * before this method returns; Redis failures fail the future with a
     * {@link RedisCommandException}, and too few replica acknowledgements (with
     * {@link AcquireOptions#waitForReplicas}) with a {@link ReplicaAckException}.
     *
     * @throws IllegalArgumentException on bad input
     */
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(String resource, Duration ttl, AcquireOptions options) {
        String r = Checks.resource(resource);
        long ttlMs = checkTtl(ttl);
        checkOptions(options);
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
     * Waiting acquires of this client for one resource line up in arrival order and only the
     * first in line tries on Redis, so a release wakes one local try, not all of them; other
     * clients still compete on Redis as equals. A fenced waiter (without a replica wait) may be
     * handed the lock, in line order, by a release of this same client, in the release's own
     * script ({@code handoff-2.lua}): a new grant with its own token, the next fence and this
     * call's ttl; at most 8 releases in a row on one resource hand over before a plain release.
     *
     * @return the lease
     * @throws IllegalArgumentException if any argument is invalid, or maxWait is negative
     * @throws LockWaitTimeoutException if the lock was still held when {@code maxWait} ran out
     * @throws ReplicaAckException if the options wait for replicas and too few acknowledged a
     *     grant; that grant was released and the wait ends there
     * @throws InterruptedException if the calling thread is interrupted while waiting or while
     *     an attempt is in flight; nothing is then held, except that an attempt interrupted in
     *     flight may have been granted on the server, and that grant expires by its ttl
     * @throws RedisCommandException if Redis fails
     */
    public Lease acquire(String resource, Duration ttl, Duration maxWait, AcquireOptions options)
            throws InterruptedException {
        String r = Checks.resource(resource);
        long ttlMs = checkTtl(ttl);
        long waitNanos = Checks.waitNanos(maxWait, "maxWait");
        checkOptions(options);
        String op = options.isFenced() ? Scripts.ACQUIRE.label() : "SET NX PX";
        long start = clock.nanoTime();

        // Try at once, unless other acquires of this client already wait for the resource: then
        // join the back of their line (WaitLine), so that a releasing thread cannot barge ahead.
        Attempt first = new Attempt(null, -2);
        if (waitNanos == 0 || !waitLine.isBusy(r)) {
            first = awaitAttempt(attempt(r, ttlMs, options), op, r);
            if (first.lease != null) {
                return first.lease;
            }
        }
        try (ChannelSignals.Waiter waiter = signals.join(keys.channel(r)); WaitLine.Place place = waitLine.join(r)) {
            // Only the first in line sends acquires; the others wait here, subscribed already, so
            // the channel's subscription lives as long as anyone waits. A fenced waiter posts an
            // offer at once: a release of this client may hand it the lock wherever it stands.
            boolean offers = handsOver(options);
            WaitLine.Offer offer = offers ? place.post(ttlMs, options) : null;
            while (!place.hasTurn()) {
                if (!place.awaitTurnOrOffer(waitNanos - (clock.nanoTime() - start)) && offer != null
                        && offer.isClaimed()) {
                    place.withdraw();   // claimed: its result is ours to take
                    Lease handed = awaitHandoff(offer, r);
                    if (handed != null) {
                        place.granted(handed.token());
                        return handed;
                    }
                    offer = place.post(ttlMs, options);
                } else if (!place.hasTurn() && waitNanos - (clock.nanoTime() - start) <= 0) {
                    throw new LockWaitTimeoutException(r, maxWait);
                }
            }
            Attempt last = first;
            boolean subscribed = false;
            CompletableFuture<Void> signal = null;
            if (offer != null && waiter.subscribed().isDone()) {
                // In this order: the offer is out already, so a release from here on either claims
                // it or publishes, and the signal, taken now, hears the publication.
                signal = waiter.signal();
                // The line's previous waiter holds the lock and has not begun its release: skip
                // the try that would be refused, and wait for the handoff (or the publication).
                subscribed = place.heldInLine();
            }
            while (true) {
                long left = waitNanos - (clock.nanoTime() - start);
                if (left <= 0) {
                    throw new LockWaitTimeoutException(r, maxWait);
                }
                if (!subscribed) {
                    // Retry once the subscription is live, so that no release can slip past. If
                    // subscribing failed, carry on with the fallback poll alone rather than spin.
                    // Never past the holder's remaining ttl, though: a lock that expires while the
                    // subscription is still on its way is taken at its ttl, not at the poll.
                    long bound = Math.min(left, pollNanos);
                    if (last.pttlMillis > 0) {
                        bound = Math.min(bound, TimeUnit.MILLISECONDS.toNanos(last.pttlMillis) + 1);
                    }
                    awaitQuietly(orHandedOver(waiter.subscribed(), offer), bound);
                    subscribed = waiter.subscribed().isDone();
                } else {
                    long pause = jitteredPoll();
                    if (last.pttlMillis > 0) {
                        pause = Math.min(pause, TimeUnit.MILLISECONDS.toNanos(last.pttlMillis) + 1);
                    }
                    // Taken before the last try: a release during that try ends this wait at once.
                    awaitQuietly(orHandedOver(signal, offer), Math.min(pause, left));
                }
                if (offer != null && !place.withdraw()) {
                    // A release claimed the offer: its script decides, within one round trip.
                    Lease handed = awaitHandoff(offer, r);
                    if (handed != null) {
                        place.granted(handed.token());
                        return handed;
                    }
                }
                signal = waiter.signal();
                last = awaitAttempt(attempt(r, ttlMs, options), op, r);
                if (last.lease != null) {
                    place.granted(last.lease.token());
                    return last.lease;
                }
                offer = offers ? place.post(ttlMs, options) : null;
            }
        }
    }

    /**
     * Releases {@code resource} if, and only if, it still holds {@code token}: compare-and-delete.
     * Safe to retry. When an {@link #acquire} of this client waits for the resource, the lock may
     * instead be handed to it in the same script (see {@link #acquire(String, Duration, Duration,
     * AcquireOptions)}); for {@code token}'s holder the outcome is the same, RELEASED.
     *
     * @throws IllegalArgumentException if the resource or token is null or empty
     * @throws RedisCommandException if Redis fails
     */
    public ReleaseOutcome release(String resource, String token) {
        String r = Checks.resource(resource);
        Checks.name(token, "token");
        return RedisEngine.await(releaseCommand(r, token), Scripts.RELEASE.label(), r);
    }

    /**
     * Sets the ttl of {@code resource} to {@code ttl} if, and only if, it still holds
     * {@code token}: compare-and-{@code PEXPIRE}. Never revives an expired lock.
     *
     * @throws IllegalArgumentException if the resource, token or ttl is invalid
     * @throws RedisCommandException if Redis fails
     */
    public RenewOutcome renew(String resource, String token, Duration ttl) {
        String r = Checks.resource(resource);
        Checks.name(token, "token");
        long ms = checkTtl(ttl);
        return RedisEngine.await(renewCommand(engine.main(), r, token, ms), Scripts.RENEW.label(), r);
    }

    /**
     * Reads the holder's token, the remaining ttl and the last fence of {@code resource} in one
     * atomic step.
     *
     * @throws IllegalArgumentException if the resource is invalid
     * @throws RedisCommandException if Redis fails
     */
    public LockInfo inspect(String resource) {
        String r = Checks.resource(resource);
        CompletableFuture<List<Object>> f = engine.run(Scripts.INSPECT, ScriptOutputType.MULTI,
                new String[] {keys.lock(r), keys.fence(r)});
        List<Object> reply = RedisEngine.await(f, Scripts.INSPECT.label(), r);
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
        return keys.lock(Checks.resource(resource));
    }

    /**
     * @return the Redis key that counts {@code resource}'s grants
     * @throws IllegalArgumentException if the resource is invalid
     */
    public String fenceKey(String resource) {
        return keys.fence(Checks.resource(resource));
    }

    /**
     * @return the server's version and features, for example {@code "Redis 7.0.15 (SPUBLISH: yes)"}, or
     *     {@code "Redis Cluster 7.0.15 (3 masters, SPUBLISH: yes)"}
     * @throws RedisCommandException if Redis fails
     */
    public String serverDescription() {
        return engine.describe();
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
                        io.lettuce.core.api.StatefulConnection<String, String> conn = engine.pipelined();
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

    private static Attempt awaitAttempt(CompletableFuture<Attempt> f, String op, String resource)
            throws InterruptedException {
        try {
            return RedisEngine.awaitInterruptibly(f, op, resource);
        } catch (RedisCommandException e) {
            throw replicaAckOr(e);
        }
    }

    /** @return the {@link ReplicaAckException} that {@code e} wraps, else {@code e} itself */
    private static RuntimeException replicaAckOr(RedisCommandException e) {
        return e.getCause() instanceof ReplicaAckException r ? r : e;
    }

    private void checkOptions(AcquireOptions options) {
        Checks.notNull(options, "options");
        if (options.replicasToWait() > 0 && options.replicaWait().compareTo(commandTimeout) >= 0) {
            throw new IllegalArgumentException("waitForReplicas timeout " + options.replicaWait()
                    + " must be shorter than the command timeout " + commandTimeout);
        }
        if (options.replicasToWait() > 0 && engine.isCluster()) {
            // WAIT counts the writes of the connection it is sent on; the cluster client routes a
            // keyless WAIT to a node of its own choosing, which need not be the lock key's master.
            throw new UnsupportedOperationException(
                    "waitForReplicas is not supported on a redis-cluster:// URL yet");
        }
    }

    static long checkTtl(Duration ttl) {
        return Checks.ttlMillis(ttl, MAX_TTL, "ttl");
    }

    /**
     * Releases by token; when an acquire of this client waits for the resource and has posted an
     * offer ({@link WaitLine}), hands the lock to it in the same script instead.
     */
    CompletableFuture<ReleaseOutcome> releaseCommand(String resource, String token) {
        WaitLine.Offer offer = waitLine.claim(resource, token);
        if (offer != null) {
            return handoffCommand(resource, token, offer);
        }
        CompletableFuture<Long> f = engine.run(Scripts.RELEASE, ScriptOutputType.INTEGER,
                new String[] {keys.lock(resource), keys.channel(resource)}, token, engine.publishMode());
        return wrap(f.thenApply(ReleaseOutcome::ofCode), Scripts.RELEASE.label(), resource);
    }

    /**
     * {@code handoff-2.lua}: releases {@code token}'s grant and grants the lock to the waiter of
     * {@code offer}, whose result is then completed with the new lease (or with null when nothing
     * was granted, or the script failed: the waiter then tries on its own, as after a release).
     */
    private CompletableFuture<ReleaseOutcome> handoffCommand(String resource, String token, WaitLine.Offer offer) {
        String newToken = newToken();
        long start = clock.nanoTime();   // before sending: the new lease's local deadline errs early
        CompletableFuture<List<Object>> f;
        try {
            f = engine.run(Scripts.HANDOFF, ScriptOutputType.MULTI,
                    new String[] {keys.lock(resource), keys.fence(resource)},
                    token, newToken, Long.toString(offer.ttlMillis));
        } catch (RuntimeException e) {
            offer.result.complete(null);
            throw e;
        }
        return wrap(f.handle((reply, error) -> {
            if (error != null) {
                offer.result.complete(null);
                throw new java.util.concurrent.CompletionException(error);
            }
            long code = (Long) reply.get(0);
            Lease lease = null;
            try {
                if (code == 1) {
                    handoffs.incrementAndGet();
                    lease = grant(resource, newToken, (Long) reply.get(1), offer.ttlMillis, start, offer.options);
                }
            } finally {
                offer.result.complete(lease);
            }
            return ReleaseOutcome.ofCode(code);
        }), Scripts.HANDOFF.label(), resource);
    }

    /** @return how many releases of this client handed the lock to a local waiter; for tests and metrics */
    long handoffs() {
        return handoffs.get();
    }

    /** @return whether a waiter with these options may be handed a lock by a local release */
    private static boolean handsOver(AcquireOptions options) {
        // The handoff grants a fenced lease; a replica wait needs its own WAIT after the grant.
        return options.isFenced() && options.replicasToWait() == 0;
    }

    /** @return a future done when {@code wake} is, or when {@code offer} (if any) was answered */
    private static CompletableFuture<?> orHandedOver(CompletableFuture<?> wake, WaitLine.Offer offer) {
        return offer == null ? wake : CompletableFuture.anyOf(wake, offer.result);
    }

    /**
     * Waits for the outcome of a claimed offer: one script's round trip. If interrupted, a lease
     * granted later is released, since nobody will take it.
     *
     * @return the lease handed over, or null if the release granted nothing
     */
    private static Lease awaitHandoff(WaitLine.Offer offer, String resource) throws InterruptedException {
        try {
            return offer.result.get();
        } catch (InterruptedException e) {
            offer.result.thenAccept(lease -> {
                if (lease != null) {
                    lease.releaseAsync();
                }
            });
            throw e;
        } catch (ExecutionException e) {
            return null;   // never completed exceptionally; kept total
        }
    }

    CompletableFuture<RenewOutcome> renewCommand(StatefulConnection<String, String> conn, String resource,
                                                 String token, long ttlMillis) {
        CompletableFuture<Long> f = engine.run(conn, Scripts.RENEW, ScriptOutputType.INTEGER,
                new String[] {keys.lock(resource)}, token, Long.toString(ttlMillis));
        return wrap(f.thenApply(RenewOutcome::ofCode), Scripts.RENEW.label(), resource);
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
            f = engine.commands().dispatch(CommandType.SET, new StatusOutput<>(StringCodec.UTF8), args)
                    .toCompletableFuture()
                    .thenApply(ok -> ok != null
                            ? new Attempt(grant(resource, token, 0, ttlMillis, start, options), 0)
                            : new Attempt(null, -2));
        }
        f = wrap(f, options.isFenced() ? Scripts.ACQUIRE.label() : "SET NX PX", resource);
        return options.replicasToWait() > 0 ? f.thenCompose(a -> awaitReplicas(a, options)) : f;
    }

    /**
     * After a grant, {@code WAIT} for the replicas on the connection that sent it (WAIT counts the
     * writes of its own connection). Too few acknowledgements: release, then fail typed.
     */
    private CompletableFuture<Attempt> awaitReplicas(Attempt a, AcquireOptions options) {
        if (a.lease == null) {
            return CompletableFuture.completedFuture(a);
        }
        Lease lease = a.lease;
        int required = options.replicasToWait();
        CompletableFuture<Long> acked = RedisEngine.async(engine.main())
                .waitForReplication(required, options.replicaWait().toMillis()).toCompletableFuture();
        return acked.handle((n, error) -> {
            if (error == null && n != null && n >= required) {
                return CompletableFuture.completedFuture(a);
            }
            // Give the grant back before failing, so that nobody waits for its ttl.
            return lease.releaseAsync().<Attempt>handle((released, releaseError) -> {
                if (error != null) {
                    throw RedisEngine.failure(error, "WAIT", lease.resource());
                }
                throw new ReplicaAckException(lease.resource(), required, n == null ? 0 : n, options.replicaWait());
            });
        }).thenCompose(x -> x);
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
        private java.nio.file.Path trustedCertificates;

        private Builder() {
        }

        /**
         * Trusts, for a {@code rediss://} or {@code rediss-cluster://} URL, the CA certificates in
         * this PEM file instead of the JVM's default trust store: for a server whose certificate a
         * private CA signed. The server's chain and host name are still verified.
         *
         * @param pemFile a readable PEM file holding one or more X.509 CA certificates
         * @throws IllegalArgumentException if the file is null, unreadable, or holds no certificate
         */
        public Builder trustedCertificates(java.nio.file.Path pemFile) {
            this.trustedCertificates = io.echomq.internal.TlsTrust.check(pemFile);
            return this;
        }

        /**
         * @param url {@code redis://…}, {@code rediss://…}, {@code redis-socket://…}, or
         *     {@code redis-cluster://host:port[,host:port…]} ({@code rediss-cluster://} for TLS); required
         * @throws IllegalArgumentException if malformed
         */
        public Builder redisUrl(String url) {
            RedisUrls.parseAny(url);
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
         * @throws IllegalArgumentException if no Redis URL was given, or trusted certificates were given for a URL that is not rediss://
         * @throws RedisCommandException if the server cannot be reached, refuses the credentials, or fails the TLS handshake
         */
        public LockClient build() {
            if (redisUrl == null) {
                throw new IllegalArgumentException("redisUrl is required");
            }
            io.echomq.internal.TlsTrust.checkScheme(redisUrl, trustedCertificates);
            RedisEngine engine = RedisEngine.connect(redisUrl, commandTimeout, trustedCertificates);
            return new LockClient(this, engine);
        }
    }
}
