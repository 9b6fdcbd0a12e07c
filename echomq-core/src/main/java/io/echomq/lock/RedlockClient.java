package io.echomq.lock;

import io.echomq.MonotonicClock;
import io.echomq.RedisCommandException;
import io.echomq.internal.Checks;
import io.echomq.internal.LockKeys;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.RedisUrls;
import io.echomq.internal.RedlockMasters;
import io.lettuce.core.RedisURI;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Redlock: one lock over N independent Redis masters (no replication between them), as the Redis
 * documentation describes it. The lease it returns is the same {@link Lease} as
 * {@link LockClient}'s.
 *
 * <pre>{@code
 * try (RedlockClient redlock = RedlockClient.create(List.of(
 *         "redis://10.0.0.1:6379", "redis://10.0.0.2:6379", "redis://10.0.0.3:6379"))) {
 *     try (Lease lease = redlock.acquire("orders", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
 *         // ... work, for at most lease.remaining() ...
 *     }
 * }
 * }</pre>
 *
 * <ol>
 *   <li><b>Acquire.</b> Read the monotonic clock, then send the same acquire, with the same random
 *       token, to every master in parallel, each bounded by the short per-master timeout. The lock
 *       is granted when at least a quorum of N/2+1 masters granted it and the validity
 *       {@code ttl − elapsed − drift} is still positive, with {@code drift = ttl/100 + 2 ms}. The
 *       lease's local deadline is the start + ttl − drift, so {@link Lease#remaining()} is that
 *       validity (checked again after the fence write-back, below). Otherwise the lock is released
 *       on every master, including those that did not answer or refused, and the attempt failed.</li>
 *   <li><b>Retry.</b> {@link #acquire} tries again after a random delay (the retry delay ±50%),
 *       so that clients that split the vote do not split it again, until {@code maxWait} runs
 *       out.</li>
 *   <li><b>Renew.</b> Compare-and-{@code PEXPIRE} on every master; it counts only if a quorum
 *       renewed it within the new validity. A lost lease is never renewed again.</li>
 *   <li><b>Release.</b> Compare-and-delete on every master, whatever the outcome of the acquire
 *       was.</li>
 * </ol>
 *
 * <p><b>Masters.</b> N must be odd and at least 3: a quorum of N/2+1 then tolerates (N−1)/2 masters
 * down. An even N tolerates no more failures than N−1, and one or two masters tolerate none (use
 * {@link LockClient} for one server). The masters must be distinct servers; a URL repeated, even
 * with another database number, would count one server twice.
 *
 * <p><b>The fence is best-effort.</b> With the fenced option (the default) each master increments
 * its own counter on a grant. The lease's {@link Lease#fence()} is the largest counter among the
 * masters that granted it, and before the lease is handed out that value is written back to every
 * master as a floor for its counter ({@code fence-raise-1.lua}). Any two quorums share a master, so
 * while the masters keep their data and the write-back reaches the granting masters, each grant's
 * fence is higher than the one before. That is not consensus: the counters are independent, and a
 * master that restarts without persistence (its counter back to a snapshot, or to 0), a write-back
 * lost to a failure, or a clock jump that expires a key early can each let a later grant carry a
 * fence no higher than an earlier one. When a stale holder must be refused for certain, take the
 * fencing number from a consensus store (a ZooKeeper zxid or sequential znode, an etcd revision, a
 * database sequence) and have the protected resource check it.
 *
 * <p>Thread-safe; one client serves a whole application. Closing it does not release outstanding
 * leases: they expire by their ttl.
 */
public final class RedlockClient implements AutoCloseable {
    /** The default timeout of one command on one master: short, so that a hung master costs little validity. */
    public static final Duration DEFAULT_MASTER_TIMEOUT = Duration.ofMillis(200);
    /** The default delay before another attempt of {@link #acquire}, jittered ±50%. */
    public static final Duration DEFAULT_RETRY_DELAY = Duration.ofMillis(200);

    private static final HexFormat TOKEN_ENCODING = HexFormat.of();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final RedlockMasters masters;
    private final RedlockRounds rounds;
    private final LockKeys keys;
    private final MonotonicClock clock;
    private final long retryDelayNanos;
    private volatile Watchdog watchdog;
    private final LeaseBackend leases = new LeaseBackend() {
        @Override
        public MonotonicClock clock() {
            return clock;
        }

        @Override
        public CompletableFuture<RenewOutcome> renew(String resource, String token, long ttlMillis, long sentAt) {
            return rounds.renew(resource, token, ttlMillis, sentAt);
        }

        @Override
        public CompletableFuture<ReleaseOutcome> release(String resource, String token) {
            return rounds.release(resource, token);
        }

        @Override
        public void guardDeadline(Lease lease) {
            watchdog().guardDeadline(lease);
        }
    };

    private RedlockClient(Builder b, RedlockMasters masters) {
        this.masters = masters;
        this.keys = new LockKeys(b.namespace);
        this.clock = b.clock;
        this.retryDelayNanos = b.retryDelay.toNanos();
        this.rounds = new RedlockRounds(masters, keys, clock);
    }

    /**
     * Connects to {@code redisUrls} with every default.
     *
     * @param redisUrls the masters: an odd number, at least 3, each a distinct server
     * @throws IllegalArgumentException if the list is null, too short, even, or holds a malformed
     *     or repeated URL
     * @throws RedisCommandException if fewer than a quorum of masters can be reached
     */
    public static RedlockClient create(List<String> redisUrls) {
        return builder().redisUrls(redisUrls).build();
    }

    /** @return a builder; {@link Builder#redisUrls} is required */
    public static Builder builder() {
        return new Builder();
    }

    /** @return N, the number of masters */
    public int masterCount() {
        return masters.size();
    }

    /** @return N/2+1, the number of masters that must agree */
    public int quorum() {
        return rounds.quorum();
    }

    /**
     * Fenced acquire without waiting. See {@link #tryAcquire(String, Duration, AcquireOptions)}.
     *
     * @throws IllegalArgumentException if the resource or ttl is invalid
     * @throws RedlockQuorumException if fewer than a quorum of masters answered
     * @throws RedisCommandException if Redis fails otherwise
     */
    public Optional<Lease> tryAcquire(String resource, Duration ttl) {
        return tryAcquire(resource, ttl, AcquireOptions.defaults());
    }

    /**
     * One Redlock attempt on {@code resource} for {@code ttl}: the acquire on every master in
     * parallel, a quorum and a positive validity, else a release on every master. The fenced form
     * runs the fenced acquire script on each master; the plain form sends each exactly one
     * {@code SET <lock> <token> NX PX <ttl>}.
     *
     * @return the lease, or empty when no quorum granted it (someone else holds it, or the vote
     *     split) or when the grant took so long that no validity was left
     * @throws IllegalArgumentException if the resource is null, empty or over 1024 bytes, the ttl
     *     is null, under 1 ms or over {@link LockClient#MAX_TTL}, or options is null
     * @throws RedlockQuorumException if fewer than a quorum of masters answered; nothing is held
     */
    public Optional<Lease> tryAcquire(String resource, Duration ttl, AcquireOptions options) {
        return RedisEngine.await(tryAcquireAsync(resource, ttl, options), "REDLOCK acquire", resource);
    }

    /**
     * Asynchronous {@link #tryAcquire(String, Duration, AcquireOptions)}. Arguments are checked
     * before this method returns; the future fails with a {@link RedlockQuorumException} when a
     * quorum did not answer.
     *
     * @throws IllegalArgumentException on bad input
     */
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(String resource, Duration ttl, AcquireOptions options) {
        String r = Checks.name(resource, "resource");
        long ttlMs = LockClient.checkTtl(ttl);
        Checks.notNull(options, "options");
        return attempt(r, ttlMs, options);
    }

    /**
     * Fenced acquire that waits up to {@code maxWait}. See
     * {@link #acquire(String, Duration, Duration, AcquireOptions)}.
     *
     * @throws IllegalArgumentException if any argument is invalid
     * @throws LockWaitTimeoutException if no attempt got a quorum before {@code maxWait} ran out
     * @throws RedlockQuorumException if fewer than a quorum of masters answered
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    public Lease acquire(String resource, Duration ttl, Duration maxWait) throws InterruptedException {
        return acquire(resource, ttl, maxWait, AcquireOptions.defaults());
    }

    /**
     * Acquires {@code resource}, trying again after a random delay (the retry delay ±50%) until
     * {@code maxWait} runs out. There is no release notification across masters: waiting is by
     * those retries.
     *
     * @return the lease
     * @throws IllegalArgumentException if any argument is invalid, or maxWait is negative
     * @throws LockWaitTimeoutException if no attempt got a quorum before {@code maxWait} ran out
     * @throws RedlockQuorumException if an attempt found fewer than a quorum of masters answering;
     *     it is thrown at once, not retried, and nothing is held
     * @throws InterruptedException if the thread is interrupted while waiting; nothing is then
     *     held, except that an attempt interrupted in flight may have been granted on some
     *     masters, and those grants expire by their ttl
     */
    public Lease acquire(String resource, Duration ttl, Duration maxWait, AcquireOptions options)
            throws InterruptedException {
        String r = Checks.name(resource, "resource");
        long ttlMs = LockClient.checkTtl(ttl);
        long waitNanos = Checks.waitNanos(maxWait, "maxWait");
        Checks.notNull(options, "options");
        long start = clock.nanoTime();
        while (true) {
            Optional<Lease> lease = RedisEngine.awaitInterruptibly(attempt(r, ttlMs, options), "REDLOCK acquire", r);
            if (lease.isPresent()) {
                return lease.get();
            }
            long left = waitNanos - (clock.nanoTime() - start);
            if (left <= 0) {
                throw new LockWaitTimeoutException(r, maxWait);
            }
            long pause = retryDelayNanos / 2 + ThreadLocalRandom.current().nextLong(retryDelayNanos + 1);
            TimeUnit.NANOSECONDS.sleep(Math.min(pause, left));
        }
    }

    /**
     * Releases {@code resource} on every master where it holds {@code token}. Safe to retry.
     *
     * @return {@code RELEASED} if any master deleted it; else {@code NOT_OWNER} if any master holds
     *     it under another token; else {@code EXPIRED}
     * @throws IllegalArgumentException if the resource or token is null or empty
     * @throws RedlockQuorumException if no master released it and fewer than a quorum answered;
     *     the keys on the others expire by their ttl
     */
    public ReleaseOutcome release(String resource, String token) {
        String r = Checks.name(resource, "resource");
        Checks.name(token, "token");
        return RedisEngine.await(rounds.release(r, token), "REDLOCK release", r);
    }

    /**
     * Sets the ttl of {@code resource} to {@code ttl} on every master where it holds
     * {@code token}. Never revives an expired lock.
     *
     * @return {@code RENEWED} if a quorum renewed it within the new validity; else
     *     {@code NOT_OWNER} if a master holds it under another token, else {@code EXPIRED}
     * @throws IllegalArgumentException if the resource, token or ttl is invalid
     * @throws RedlockQuorumException if fewer than a quorum renewed it and too few masters
     *     answered to know that it is lost
     */
    public RenewOutcome renew(String resource, String token, Duration ttl) {
        String r = Checks.name(resource, "resource");
        Checks.name(token, "token");
        long ms = LockClient.checkTtl(ttl);
        return RedisEngine.await(rounds.renew(r, token, ms, clock.nanoTime()), "REDLOCK renew", r);
    }

    /**
     * Reads the lock on every master: holder's token, remaining ttl and that master's last fence.
     *
     * @return one entry per master, in the order the URLs were given; empty for a master that did
     *     not answer
     * @throws IllegalArgumentException if the resource is invalid
     * @throws RedlockQuorumException if fewer than a quorum of masters answered
     */
    public List<Optional<LockInfo>> inspect(String resource) {
        String r = Checks.name(resource, "resource");
        return RedisEngine.await(rounds.inspect(r), "REDLOCK inspect", r);
    }

    /**
     * @return master {@code i}'s URL (0-based, in the order given), any password replaced by {@code ***}
     * @throws IndexOutOfBoundsException if {@code i} is not in {@code 0..masterCount()-1}
     */
    public String masterUrl(int i) {
        return masters.describe(i);
    }

    /**
     * @return the Redis key that holds {@code resource}'s token on every master
     * @throws IllegalArgumentException if the resource is invalid
     */
    public String lockKey(String resource) {
        return keys.lock(Checks.name(resource, "resource"));
    }

    /** Closes the connections and stops the watchdog. Leases are not released; see the class doc. */
    @Override
    public void close() {
        Watchdog w = watchdog;
        if (w != null) {
            w.close();
        }
        masters.close();
    }

    /** One attempt through {@link RedlockRounds#acquire}; a grant becomes a {@link Lease}. */
    private CompletableFuture<Optional<Lease>> attempt(String resource, long ttlMillis, AcquireOptions options) {
        return rounds.acquire(resource, newToken(), ttlMillis, options.isFenced()).thenApply(grant -> grant.map(g -> {
            Lease lease = new Lease(leases, resource, g.token(), g.fence(), ttlMillis, g.startNanos(),
                    options.hasWatchdog());
            if (options.hasWatchdog()) {
                watchdog().watch(lease);
            }
            return lease;
        }));
    }

    private Watchdog watchdog() {
        Watchdog w = watchdog;
        if (w == null) {
            synchronized (this) {
                w = watchdog;
                if (w == null) {
                    w = new Watchdog(clock, () -> new Watchdog.Batch() {
                        @Override
                        public CompletableFuture<RenewOutcome> renew(Lease lease, long ttlMillis, long sentAt) {
                            return rounds.renew(lease.resource(), lease.token(), ttlMillis, sentAt);
                        }

                        @Override
                        public void flush() {
                            // every master's connection flushes by itself
                        }
                    });
                    watchdog = w;
                }
            }
        }
        return w;
    }

    private static String newToken() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return TOKEN_ENCODING.formatHex(bytes);
    }

    /**
     * Configuration of a {@link RedlockClient}; checked as each setting is given, with messages
     * that name the setting.
     */
    public static final class Builder {
        private List<String> urls;
        private String namespace = LockKeys.DEFAULT_NAMESPACE;
        private Duration masterTimeout = DEFAULT_MASTER_TIMEOUT;
        private Duration retryDelay = DEFAULT_RETRY_DELAY;
        private MonotonicClock clock = MonotonicClock.SYSTEM;

        private Builder() {
        }

        /**
         * @param urls the masters, {@code redis://…} or {@code rediss://…}: an odd number, at
         *     least 3, each a different server (host and port)
         * @throws IllegalArgumentException if null, empty, holding fewer than 3 or an even number of
         *     URLs, or a malformed or repeated one (the message names it, never its password)
         */
        public Builder redisUrls(List<String> urls) {
            if (urls == null || urls.isEmpty()) {
                throw new IllegalArgumentException("redisUrls must name the Redlock masters: an odd number, at least 3");
            }
            int n = urls.size();
            if (n < 3) {
                throw new IllegalArgumentException("redisUrls names " + n + " master" + (n == 1 ? "" : "s")
                        + "; Redlock needs an odd number of at least 3 (with fewer, one failure stops it; "
                        + "for one server use LockClient)");
            }
            if (n % 2 == 0) {
                throw new IllegalArgumentException("redisUrls names " + n + " masters; use an odd number: "
                        + n + " tolerate no more failures than " + (n - 1) + " (quorum " + (n / 2 + 1) + ")");
            }
            List<String> checked = new ArrayList<>();
            List<String> servers = new ArrayList<>();
            for (String url : urls) {
                RedisURI uri = RedisUrls.parse(url);
                String server = uri.getSocket() != null ? uri.getSocket()
                        : uri.getHost().toLowerCase(Locale.ROOT) + ":" + uri.getPort();
                if (servers.contains(server)) {
                    throw new IllegalArgumentException("redisUrls names the server " + server
                            + " twice; Redlock masters must be independent servers");
                }
                servers.add(server);
                checked.add(url.trim());
            }
            this.urls = checked;
            return this;
        }

        /**
         * @param namespace prefix of every key on every master, default {@code emq:lock:}
         * @throws IllegalArgumentException if null or containing '{' or '}'
         */
        public Builder namespace(String namespace) {
            new LockKeys(namespace);
            this.namespace = namespace;
            return this;
        }

        /**
         * @param timeout how long one command may take on one master, default 200 ms. Keep it well
         *     under the ttl: a master that hangs costs this much of every grant's validity.
         * @throws IllegalArgumentException if null, under 1 ms or over one minute
         */
        public Builder masterTimeout(Duration timeout) {
            Checks.ttlMillis(timeout, Duration.ofMinutes(1), "masterTimeout");
            this.masterTimeout = timeout;
            return this;
        }

        /**
         * @param delay the pause between attempts of {@link RedlockClient#acquire}, jittered ±50%,
         *     default 200 ms
         * @throws IllegalArgumentException if null, under 1 ms or over one minute
         */
        public Builder retryDelay(Duration delay) {
            Checks.ttlMillis(delay, Duration.ofMinutes(1), "retryDelay");
            this.retryDelay = delay;
            return this;
        }

        /**
         * @param clock the monotonic clock for validity and local deadlines, default {@link System#nanoTime()}
         * @throws IllegalArgumentException if null
         */
        public Builder clock(MonotonicClock clock) {
            this.clock = Checks.notNull(clock, "clock");
            return this;
        }

        /**
         * Connects to every master in parallel.
         *
         * @throws IllegalArgumentException if no URLs were given
         * @throws RedisCommandException if fewer than a quorum of masters can be reached; the
         *     others are retried on use
         */
        public RedlockClient build() {
            if (urls == null) {
                throw new IllegalArgumentException("redisUrls is required");
            }
            List<RedisURI> copies = new ArrayList<>();
            for (String url : urls) {
                copies.add(RedisUrls.parse(url));
            }
            RedlockMasters m = RedlockMasters.connect(copies, masterTimeout, copies.size() / 2 + 1);
            return new RedlockClient(this, m);
        }
    }
}
