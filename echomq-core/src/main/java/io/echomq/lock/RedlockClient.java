package io.echomq.lock;

import io.echomq.MonotonicClock;
import io.echomq.RedisCommandException;
import io.echomq.internal.Checks;
import io.echomq.internal.LockKeys;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.RedisUrls;
import io.echomq.internal.RedlockMasters;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Redlock: one lock over N independent Redis masters (no replication between them), as the Redis
 * documentation describes it, behind the same {@link Locks} contract as {@link LockClient}; the
 * lease it returns is the same {@link Lease}.
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
 *   <li><b>Inspect.</b> {@link #inspect} gives the masters' verdict (held only by a token that a
 *       quorum holds); {@link #inspectMasters} gives each master's own snapshot.</li>
 * </ol>
 *
 * <p><b>Masters.</b> N must be odd and at least 3: a quorum of N/2+1 then tolerates (N−1)/2 masters
 * down. An even N tolerates no more failures than N−1, and one or two masters tolerate none (use
 * {@link LockClient} for one server). The masters must be distinct servers; a URL repeated, even
 * with another database number, would count one server twice.
 *
 * <p><b>The fence is best-effort.</b> With the fenced option (the default) each master takes its
 * own fence on a grant, as one server does: max(its last fence + 1, its clock in microseconds),
 * in a key that expires. The lease's {@link Lease#fence()} is the largest fence among the
 * masters that granted it, and before the lease is handed out that value is written back to every
 * master as a floor ({@code fence-raise-1.lua}), kept until that master's own clock has passed
 * it. Any two quorums share a master, so while the write-back reaches the granting masters and
 * no clock steps back, each grant's fence is higher than the one before, also after a master
 * lost its data. That is not consensus: the masters are independent, and a write-back lost to a
 * failure (with a shared master whose clock is behind), or a clock that steps back, can each let
 * a later grant carry a fence no higher than an earlier one. When a stale holder must be refused for certain, take the
 * fencing number from a consensus store (a ZooKeeper zxid or sequential znode, an etcd revision, a
 * database sequence) and have the protected resource check it.
 *
 * <p>Thread-safe; one client serves a whole application. Closing it does not release outstanding
 * leases: they expire by their ttl.
 */
public final class RedlockClient implements Locks {
    /** The default timeout of one command on one master: short, so that a hung master costs little validity. */
    public static final Duration DEFAULT_MASTER_TIMEOUT = Duration.ofMillis(200);
    /** The default delay before another attempt of {@link #acquire}, jittered ±50%. */
    public static final Duration DEFAULT_RETRY_DELAY = Duration.ofMillis(200);

    private final RedlockMasters masters;
    private final RedlockRounds rounds;
    private final LockKeys keys;
    private final MonotonicClock clock;
    private final long retryDelayNanos;
    private final LeaseIssuer issuer;
    private final String labelSuffix;   // "+<label>", or null: tokens are the random part alone

    private RedlockClient(Builder b, RedlockMasters masters) {
        this.masters = masters;
        this.keys = new LockKeys(b.namespace);
        this.clock = b.clock;
        this.retryDelayNanos = b.retryDelay.toNanos();
        this.rounds = new RedlockRounds(masters, keys, clock, b.markFencesForProtocol1);
        this.issuer = new LeaseIssuer(clock, rounds, b.observations(true));
        this.labelSuffix = b.holderLabel == null ? null : "+" + b.holderLabel;
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
     * One Redlock attempt on {@code resource} for {@code ttl}: the acquire on every master in
     * parallel, a quorum and a positive validity, else a release on every master. The fenced form
     * runs the fenced acquire script on each master; the plain form sends each exactly one
     * {@code SET <lock> <token> NX PX <ttl>}.
     *
     * @return the lease, or empty when no quorum granted it (someone else holds it, or the vote
     *     split) or when the grant took so long that no validity was left
     * @throws IllegalArgumentException if the resource breaks the name rule of {@link Locks} (null,
     *     empty, over 1024 bytes, or holding '{' or '}'), the ttl is null, under 1 ms or over
     *     {@link LockClient#MAX_TTL}, or options is null
     * @throws UnsupportedOperationException if the options wait for replicas
     *     ({@link AcquireOptions#waitForReplicas}), which Redlock refuses; nothing was sent
     * @throws RedlockQuorumException if fewer than a quorum of masters answered; nothing is held
     */
    @Override
    public Optional<Lease> tryAcquire(String resource, Duration ttl, AcquireOptions options) {
        return RedisEngine.await(tryAcquireAsync(resource, ttl, options), "REDLOCK acquire", resource);
    }

    /**
     * Asynchronous {@link #tryAcquire(String, Duration, AcquireOptions)}. Arguments are checked
     * before this method returns; the future fails with a {@link RedlockQuorumException} when a
     * quorum did not answer.
     *
     * @throws IllegalArgumentException on bad input
     * @throws UnsupportedOperationException if the options wait for replicas
     */
    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(String resource, Duration ttl, AcquireOptions options) {
        String r = Checks.resource(resource);
        long ttlMs = LockLimits.ttl(ttl);
        checkOptions(options);
        LockObservations observations = issuer.observations();
        return observations.tried(attempt(r, ttlMs, options), options, observations.start());
    }

    /**
     * Acquires {@code resource}, trying again after a random delay (the retry delay ±50%) until
     * {@code maxWait} runs out. There is no release notification across masters: waiting is by
     * those retries.
     *
     * @return the lease
     * @throws IllegalArgumentException if any argument is invalid, or maxWait is negative
     * @throws UnsupportedOperationException if the options wait for replicas; nothing was sent
     * @throws LockWaitTimeoutException if no attempt got a quorum before {@code maxWait} ran out
     * @throws RedlockQuorumException if an attempt found fewer than a quorum of masters answering;
     *     it is thrown at once, not retried, and nothing is held
     * @throws InterruptedException if the thread is interrupted while waiting; nothing is then
     *     held, except that an attempt interrupted in flight may have been granted on some
     *     masters, and those grants expire by their ttl
     */
    @Override
    public Lease acquire(String resource, Duration ttl, Duration maxWait, AcquireOptions options)
            throws InterruptedException {
        String r = Checks.resource(resource);
        long ttlMs = LockLimits.ttl(ttl);
        long waitNanos = Checks.waitNanos(maxWait, "maxWait");
        checkOptions(options);
        LockObservations observations = issuer.observations();
        long observedStart = observations.start();
        try {
            Lease lease = acquireWaiting(r, ttlMs, waitNanos, maxWait, options);
            observations.waited(options, observedStart, LockInstrumentation.AcquireOutcome.ACQUIRED);
            return lease;
        } catch (InterruptedException | RuntimeException e) {
            observations.waited(options, observedStart, LockObservations.outcomeOf(e));
            throw e;
        }
    }

    /** The retry loop of {@link #acquire(String, Duration, Duration, AcquireOptions)}, its arguments checked. */
    private Lease acquireWaiting(String r, long ttlMs, long waitNanos, Duration maxWait, AcquireOptions options)
            throws InterruptedException {
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
     * @throws IllegalArgumentException if the resource or token is invalid
     * @throws RedlockQuorumException if no master released it and fewer than a quorum answered;
     *     the keys on the others expire by their ttl
     */
    @Override
    public ReleaseOutcome release(String resource, String token) {
        String r = Checks.resource(resource);
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
    @Override
    public RenewOutcome renew(String resource, String token, Duration ttl) {
        String r = Checks.resource(resource);
        Checks.name(token, "token");
        long ms = LockLimits.ttl(ttl);
        return RedisEngine.await(rounds.renew(r, token, ms, clock.nanoTime()), "REDLOCK renew", r);
    }

    /**
     * The masters' verdict on {@code resource}, read on every master at once: held by the token
     * that at least a quorum of them hold, with the remaining ttl for which a quorum still will
     * (the quorum-th longest of that token's ttls; {@code -1} if that many hold it with no
     * expiry), and the largest last fence among them. When no token holds a quorum, the lock is
     * reported free (with that largest fence): a minority grant is not a lock. Per-master detail:
     * {@link #inspectMasters}.
     *
     * @throws IllegalArgumentException if the resource is invalid
     * @throws RedlockQuorumException if fewer than a quorum of masters answered
     */
    @Override
    public LockInfo inspect(String resource) {
        String r = Checks.resource(resource);
        return RedlockVerdict.of(r, RedisEngine.await(rounds.inspect(r), "REDLOCK inspect", r), quorum());
    }

    /**
     * Reads the lock on every master: holder's token, remaining ttl and that master's last fence.
     *
     * @return one entry per master, in the order the URLs were given; empty for a master that did
     *     not answer
     * @throws IllegalArgumentException if the resource is invalid
     * @throws RedlockQuorumException if fewer than a quorum of masters answered
     */
    public List<Optional<LockInfo>> inspectMasters(String resource) {
        String r = Checks.resource(resource);
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
    @Override
    public String lockKey(String resource) {
        return keys.lock(Checks.resource(resource));
    }

    /** Closes the connections and stops the watchdog. Leases are not released; see the class doc. */
    @Override
    public void close() {
        issuer.close();
        masters.close();
    }

    /** One attempt through {@link RedlockRounds#acquire}; a grant becomes a {@link Lease}. */
    private CompletableFuture<Optional<Lease>> attempt(String resource, long ttlMillis, AcquireOptions options) {
        String random = LeaseIssuer.newToken();
        String token = labelSuffix == null ? random : random + "+" + ttlMillis + labelSuffix;
        return rounds.acquire(resource, token, ttlMillis, options.isFenced()).thenApply(grant -> grant.map(
                g -> issuer.issue(resource, g.token(), g.fence(), ttlMillis, g.startNanos(), options)));
    }

    private static void checkOptions(AcquireOptions options) {
        Checks.notNull(options, "options");
        if (options.replicasToWait() > 0) {
            // Redlock's safety comes from a quorum of independent masters, not from replication;
            // a WAIT on each master would need its own quorum rule, and none is defined.
            throw new UnsupportedOperationException("waitForReplicas is not supported by RedlockClient: "
                    + "a grant is safe once a quorum of independent masters holds it; acquire without "
                    + "waitForReplicas, or use LockClient on a single server with replicas");
        }
    }

    /**
     * Configuration of a {@link RedlockClient}; checked as each setting is given, with messages
     * that name the setting. The namespace and clock are set as on every lock client's builder
     * ({@link LocksBuilder}).
     */
    public static final class Builder extends LocksBuilder<Builder> {
        private List<String> urls;
        private Duration masterTimeout = DEFAULT_MASTER_TIMEOUT;
        private Duration retryDelay = DEFAULT_RETRY_DELAY;
        private String holderLabel;

        private Builder() {
        }

        /**
         * Names this client's holders for operators, as {@link LockClient.Builder#holderLabel} does:
         * every token it mints reads {@code <random>+<ttl ms>+<label>} on every master, so that the
         * {@link LockInfo} of {@link #inspect} shows the label and the last renewal.
         *
         * @param label 1 to {@value LockInfo#MAX_LABEL} characters of {@code A-Z a-z 0-9 . _ - : @ /};
         *     null for none
         * @throws IllegalArgumentException if the label is empty, too long, or has another character
         */
        public Builder holderLabel(String label) {
            this.holderLabel = label == null ? null : LockInfo.checkLabel(label);
            return this;
        }

        /**
         * @param urls the masters, {@code redis://…} or {@code rediss://…}: an odd number, at
         *     least 3, each a different server (host and port)
         * @throws IllegalArgumentException if null, empty, holding fewer than 3 or an even number of
         *     URLs, or a malformed or repeated one (the message names it, never its password)
         */
        public Builder redisUrls(List<String> urls) {
            this.urls = RedlockMasters.checkUrls(urls);
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
         * Connects to every master in parallel.
         *
         * @throws IllegalArgumentException if no URLs were given
         * @throws RedisCommandException if fewer than a quorum of masters can be reached; the
         *     others are retried on use
         */
        @Override
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
