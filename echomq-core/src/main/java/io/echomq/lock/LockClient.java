package io.echomq.lock;

import io.echomq.RedisCommandException;
import io.echomq.internal.ChannelSignals;
import io.echomq.internal.Checks;
import io.echomq.internal.EngineConnector;
import io.echomq.internal.LockKeys;
import io.echomq.internal.PermissionCheck;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.RedisUrls;
import io.echomq.internal.Scripts;
import io.echomq.lock.LockInstrumentation.AcquireOutcome;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Distributed locks on one Redis or Valkey server (or one Redis Cluster): acquire in one atomic
 * command, release and renew by token, a fence on every grant. It honours the {@link Locks}
 * contract, with a fence that strictly increases.
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
 * <p>It is a facade: the calls to the server are {@code LockCalls}'s, how an acquire waits is
 * {@code WaitingAcquires}'s, and grants become leases in {@code LeaseIssuer} (all package-private).
 *
 * <p>Thread-safe; one client serves a whole application. Closing it does <em>not</em> release
 * outstanding leases: they expire by their ttl, and watchdogs stop renewing them.
 */
public final class LockClient implements Locks {
    /** The longest ttl accepted: one day. A longer hold should renew. */
    public static final Duration MAX_TTL = LockLimits.MAX_TTL;
    /** The default fallback poll of a waiting {@link #acquire}, jittered ±50%. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(500);
    /** The shortest holder prefix {@link #takeover} accepts: 8 characters, 32 bits of a random token. */
    public static final int MIN_TAKEOVER_PREFIX = 8;

    /** The default timeout of one Redis command. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(10);

    private final RedisEngine engine;
    private final LockKeys keys;
    private final Duration commandTimeout;
    private final LockCalls calls;
    private final LeaseIssuer issuer;
    private final WaitingAcquires waits;
    private final FencedStore fencedStore;
    private final LockObservations observations;

    private LockClient(Builder b, RedisEngine engine) {
        this.engine = engine;
        this.commandTimeout = b.commandTimeout;
        this.keys = new LockKeys(b.namespace);
        WaitLine waitLine = new WaitLine();
        this.observations = b.observations(false);
        this.calls = new LockCalls(engine, keys, b.clock, waitLine, observations,
                b.markFencesForProtocol1, b.holderLabel);
        this.issuer = calls.issuer();
        this.waits = new WaitingAcquires(calls, keys, b.clock, new ChannelSignals(engine), waitLine,
                b.pollInterval.toNanos());
        this.fencedStore = new FencedStore(engine);
    }

    /**
     * Connects with every default.
     *
     * @param redisUrl {@code redis://[user:password@]host[:port][/db]}, {@code rediss://…}, or a
     *     cluster: {@code redis-cluster://host:port[,host:port…]}, or a master watched by Sentinel:
     *     {@code redis-sentinel://host:port[,host:port…][/db]#master} (see {@code docs/scaling.md})
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
     * Tries once to acquire {@code resource} for {@code ttl}. The fenced form runs one script
     * ({@code SET NX PX}, then the next fence only on success); the plain form sends
     * exactly one {@code SET <lock> <token> NX PX <ttl>}.
     *
     * @return the lease, or empty when someone else holds the lock ("held" is not an error)
     * @throws IllegalArgumentException if the resource is null, empty or over 1024 bytes or holds a brace, or the
     *     ttl is null, under 1 ms or over {@link #MAX_TTL}, or options is null, or its replica
     *     wait is not shorter than the command timeout
     * @throws UnsupportedOperationException if the options wait for replicas on a cluster URL
     * @throws ReplicaAckException if the options wait for replicas and too few acknowledged the
     *     grant; the grant was released
     * @throws io.echomq.ProtocolVersionException if the resource's fence key holds data of a later
     *     wire protocol; the lock was not taken
     * @throws RedisCommandException if Redis fails; whether the lock was taken is then unknown,
     *     and an unknown grant expires by its ttl
     */
    @Override
    public Optional<Lease> tryAcquire(String resource, Duration ttl, AcquireOptions options) {
        String r = Checks.resource(resource);
        long ttlMs = LockLimits.ttl(ttl);
        checkOptions(options);
        long start = observations.start();
        try {   // waits on the attempt itself: no further stage to build the Optional or to report
            Lease lease = RedisEngine.await(calls.attempt(r, ttlMs, options), LockCalls.acquireLabel(options), r).lease();
            observations.tried(options, start, lease != null ? AcquireOutcome.ACQUIRED : AcquireOutcome.BUSY);
            return Optional.ofNullable(lease);
        } catch (RedisCommandException e) {
            observations.tried(options, start, AcquireOutcome.ERROR);
            throw ReplicaAckException.unwrap(e);
        }
    }

    /**
     * Asynchronous {@link #tryAcquire(String, Duration, AcquireOptions)}. Arguments are checked
     * before this method returns; Redis failures fail the future with a
     * {@link RedisCommandException}, and too few replica acknowledgements (with
     * {@link AcquireOptions#waitForReplicas}) with a {@link ReplicaAckException}.
     *
     * @throws IllegalArgumentException on bad input
     * @throws UnsupportedOperationException if the options wait for replicas on a cluster URL
     */
    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(String resource, Duration ttl, AcquireOptions options) {
        String r = Checks.resource(resource);
        long ttlMs = LockLimits.ttl(ttl);
        checkOptions(options);
        long start = observations.start();
        return observations.tried(calls.attempt(r, ttlMs, options).thenApply(a -> Optional.ofNullable(a.lease())),
                options, start);
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
     * @throws UnsupportedOperationException if the options wait for replicas on a cluster URL
     * @throws LockWaitTimeoutException if the lock was still held when {@code maxWait} ran out
     * @throws ReplicaAckException if the options wait for replicas and too few acknowledged a
     *     grant; that grant was released and the wait ends there
     * @throws InterruptedException if the calling thread is interrupted while waiting or while
     *     an attempt is in flight; nothing is then held, except that an attempt interrupted in
     *     flight may have been granted on the server, and that grant expires by its ttl
     * @throws RedisCommandException if Redis fails
     */
    @Override
    public Lease acquire(String resource, Duration ttl, Duration maxWait, AcquireOptions options)
            throws InterruptedException {
        String r = Checks.resource(resource);
        long ttlMs = LockLimits.ttl(ttl);
        long waitNanos = Checks.waitNanos(maxWait, "maxWait");
        checkOptions(options);
        long start = observations.start();
        Lease lease;
        try {
            lease = waits.acquire(r, ttlMs, waitNanos, maxWait, options);
        } catch (InterruptedException | RuntimeException e) {
            observations.waited(options, start, LockObservations.outcomeOf(e));
            throw e;
        }
        observations.waited(options, start, AcquireOutcome.ACQUIRED);
        return lease;
    }

    /**
     * Releases {@code resource} if, and only if, it still holds {@code token}: compare-and-delete.
     * Safe to retry. When an {@link #acquire} of this client waits for the resource, the lock may
     * instead be handed to it in the same script (see {@link #acquire(String, Duration, Duration,
     * AcquireOptions)}); for {@code token}'s holder the outcome is the same, RELEASED.
     *
     * @throws IllegalArgumentException if the resource or token is invalid
     * @throws RedisCommandException if Redis fails
     */
    @Override
    public ReleaseOutcome release(String resource, String token) {
        String r = Checks.resource(resource);
        Checks.name(token, "token");
        return RedisEngine.await(calls.release(r, token), Scripts.RELEASE.label(), r);
    }

    /**
     * Sets the ttl of {@code resource} to {@code ttl} if, and only if, it still holds
     * {@code token}: compare-and-{@code PEXPIRE}. Never revives an expired lock.
     *
     * @throws IllegalArgumentException if the resource, token or ttl is invalid
     * @throws RedisCommandException if Redis fails
     */
    @Override
    public RenewOutcome renew(String resource, String token, Duration ttl) {
        String r = Checks.resource(resource);
        Checks.name(token, "token");
        long ms = LockLimits.ttl(ttl);
        return RedisEngine.await(calls.renew(engine.main(), r, token, ms), Scripts.RENEW.label(), r);
    }

    /**
     * Reads the holder's token, the remaining ttl and the last fence of {@code resource} in one
     * atomic step.
     *
     * @throws IllegalArgumentException if the resource is invalid
     * @throws RedisCommandException if Redis fails
     */
    @Override
    public LockInfo inspect(String resource) {
        String r = Checks.resource(resource);
        return RedisEngine.await(calls.inspect(r), Scripts.INSPECT.label(), r);
    }

    /**
     * An operator's guarded takeover: gives {@code resource} to a new lease of this client, in one
     * atomic step, while it is still held by the holder the operator saw: the holder's value starts
     * with {@code expectedHolder} (a prefix of at least {@link #MIN_TAKEOVER_PREFIX} characters, or
     * the whole token) and, when {@code expectedFence > 0}, the last fence is still
     * {@code expectedFence}. The new lease has a higher fence than every earlier grant, and no
     * watchdog. The old holder is not told: its release and renewal answer NOT_OWNER (or EXPIRED),
     * and its fenced writes are refused by their lower fence; its writes that carry no fence are
     * not stopped.
     *
     * @param expectedFence the last fence the operator saw, or 0 not to compare it
     * @return the new lease, or empty when nothing was changed: the lock is free, or its holder or
     *     its last fence is not the one expected
     * @throws IllegalArgumentException if the resource or ttl is invalid, the prefix is shorter than
     *     {@link #MIN_TAKEOVER_PREFIX} characters, or the fence is negative
     * @throws RedisCommandException if Redis fails
     */
    public Optional<Lease> takeover(String resource, String expectedHolder, long expectedFence, Duration ttl) {
        String r = Checks.resource(resource);
        Checks.name(expectedHolder, "expectedHolder");
        if (expectedHolder.length() < MIN_TAKEOVER_PREFIX) {
            throw new IllegalArgumentException("expectedHolder is " + expectedHolder.length()
                    + " characters long; give at least " + MIN_TAKEOVER_PREFIX + " characters of the holder's token");
        }
        if (expectedFence < 0) {
            throw new IllegalArgumentException("expectedFence must be 0 (not compared) or a fence, not " + expectedFence);
        }
        long ms = LockLimits.ttl(ttl);
        return Optional.ofNullable(RedisEngine.await(calls.takeover(r, expectedHolder, expectedFence, ms),
                Scripts.TAKEOVER.label(), r));
    }

    /** @return the guarded store that refuses writes from stale fences, sharing this connection */
    public FencedStore fencedStore() {
        return fencedStore;
    }

    /**
     * @return the Redis key that holds {@code resource}'s token, for tools and tests
     * @throws IllegalArgumentException if the resource is invalid
     */
    @Override
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

    /**
     * @return the audit trail of this client's server ({@link io.echomq.audit.AuditTrail}), over this client's
     *     connection: valid while the client is open, and the same records whichever client reads them
     */
    public io.echomq.audit.AuditTrail auditTrail() {
        return new io.echomq.internal.AuditStream(engine);
    }

    /** Closes the connections and stops the watchdog. Leases are not released; see the class doc. */
    @Override
    public void close() {
        issuer.close();
        engine.close();
    }

    // ---------------------------------------------------------------- for tests and the lock package

    /** @return how many releases of this client handed the lock to a local waiter; for tests and metrics */
    long handoffs() {
        return calls.handoffs();
    }

    /**
     * @param resource a resource already checked by {@link Checks#resource}
     * @return its {@link #inspect}, sent now and not awaited, so that {@link LockDirectory} reads a
     *     page of locks in one round trip
     */
    CompletableFuture<LockInfo> inspectSent(String resource) {
        return calls.inspect(resource);
    }

    /** @return the engine and the key naming, for {@link LockDirectory}'s walk */
    RedisEngine engine() {
        return engine;
    }

    LockKeys keys() {
        return keys;
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

    /**
     * Configuration of a {@link LockClient}; immutable once built, checked as each setting is
     * given, with messages that name the setting. The namespace and clock are set as on every
     * lock client's builder ({@link LocksBuilder}).
     */
    public static final class Builder extends LocksBuilder<Builder> {
        private String redisUrl;
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private java.nio.file.Path trustedCertificates;
        private String holderLabel;

        private Builder() {
        }

        /**
         * Names this client's holders for operators: every token it mints then reads
         * {@code <random>+<ttl ms>+<label>}, so that {@link LockInfo#holderLabel()} shows who holds a
         * lock and {@link LockInfo#lastRenewalAgo()} when it was last renewed (docs/protocol.md,
         * "Holder values"). Without a label, tokens are the random part alone.
         *
         * @param label 1 to {@value LockInfo#MAX_LABEL} characters of {@code A-Z a-z 0-9 . _ - : @ /},
         *     for example {@code host:pid:app}; null for none
         * @throws IllegalArgumentException if the label is empty, too long, or has another character
         */
        public Builder holderLabel(String label) {
            this.holderLabel = label == null ? null : LockInfo.checkLabel(label);
            return this;
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
         * @param url {@code redis://…}, {@code rediss://…}, {@code redis-socket://…},
         *     {@code redis-cluster://host:port[,host:port…]} ({@code rediss-cluster://} for TLS), or
         *     {@code redis-sentinel://host:port[,host:port…][/db]#master} ({@code rediss-sentinel://}); required
         * @throws IllegalArgumentException if malformed
         */
        public Builder redisUrl(String url) {
            RedisUrls.parseAny(url);
            this.redisUrl = url;
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
         * Connects.
         *
         * @throws IllegalArgumentException if no Redis URL was given, or trusted certificates were given for a URL that is not rediss://
         * @throws RedisCommandException if the server cannot be reached, refuses the credentials, or fails the TLS handshake
         * @throws io.echomq.MissingPermissionsException if the ACL user may not run a command the lock scripts run
         */
        @Override
        public LockClient build() {
            if (redisUrl == null) {
                throw new IllegalArgumentException("redisUrl is required");
            }
            io.echomq.internal.TlsTrust.checkScheme(redisUrl, trustedCertificates);
            RedisEngine engine = EngineConnector.connect(redisUrl, commandTimeout, trustedCertificates);
            try {
                PermissionCheck.forLocks(engine, namespace);
            } catch (RuntimeException e) {
                engine.close();
                throw e;
            }
            return new LockClient(this, engine);
        }
    }
}
