package io.echomq.lock;

import io.echomq.MonotonicClock;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Where a grant becomes a {@link Lease}, for {@link LockClient} and {@link RedlockClient} alike.
 *
 * <ol>
 *   <li>Mints the token of every acquire ({@link #newToken()}): 128 bits from {@code SecureRandom}
 *       as 32 lowercase hex characters.</li>
 *   <li>Turns a grant into a lease ({@link #issue}): the local deadline counts from the clock
 *       reading taken before the acquire was sent, and a lease that asked for the watchdog is put
 *       under it.</li>
 *   <li>Is the leases' {@link Lease.Backend}: their renewals and releases go to the client's
 *       {@link Commands}, and their deadline timers to the watchdog.</li>
 *   <li>Owns the client's {@link Watchdog}: started on first use, stopped by {@link #close()}.</li>
 *   <li>Passes what its leases report (held, released or lost, renewed) to the client's
 *       {@link LockObservations}.</li>
 * </ol>
 *
 * <p>What differs between the clients (one server or a quorum of masters) is only in the
 * {@link Commands} and the watchdog's {@link Watchdog.Batch}; the lease's own rules stay in
 * {@link Lease}.
 */
final class LeaseIssuer implements Lease.Backend, AutoCloseable {
    private static final HexFormat TOKEN_ENCODING = HexFormat.of();
    // One generator for the JVM, kept on purpose: a token must be unguessable (docs/security.md),
    // and minting one from this shared NativePRNG costs about 0.3 µs even with 16 threads minting
    // at once, less than a stripe of DRBG generators did (BENCHMARKS.md, the lock path's client cost).
    private static final SecureRandom RANDOM = new SecureRandom();

    /** The token-checked commands of one client, as {@link Lease.Backend} states them. */
    interface Commands {
        CompletableFuture<RenewOutcome> renew(String resource, String token, long ttlMillis, long sentAtNanos);

        CompletableFuture<ReleaseOutcome> release(String resource, String token);
    }

    private final MonotonicClock clock;
    private final Commands commands;
    private final Supplier<Watchdog.Batch> batches;
    private final LockObservations observations;
    private volatile Watchdog watchdog;

    /**
     * An issuer whose watchdog renews through {@code commands} too, each renewal sent at once.
     *
     * @param clock the monotonic clock of every lease's local deadline
     * @param commands where leases' renewals and releases go
     * @param observations what the client's instrumentation hears
     */
    LeaseIssuer(MonotonicClock clock, Commands commands, LockObservations observations) {
        this(clock, commands, unbatched(commands), observations);
    }

    /**
     * @param clock the monotonic clock of every lease's local deadline
     * @param commands where leases' renewals and releases go
     * @param batches opens one watchdog pass's batch of renewals (see {@link Watchdog})
     * @param observations what the client's instrumentation hears
     */
    LeaseIssuer(MonotonicClock clock, Commands commands, Supplier<Watchdog.Batch> batches,
                LockObservations observations) {
        this.clock = clock;
        this.commands = commands;
        this.batches = batches;
        this.observations = observations;
    }

    /** @return what the client's instrumentation hears */
    LockObservations observations() {
        return observations;
    }

    private static Supplier<Watchdog.Batch> unbatched(Commands commands) {
        Watchdog.Batch batch = new Watchdog.Batch() {
            @Override
            public CompletableFuture<RenewOutcome> renew(Lease lease, long ttlMillis, long sentAtNanos) {
                return commands.renew(lease.resource(), lease.token(), ttlMillis, sentAtNanos);
            }

            @Override
            public void flush() {
                // each renewal was sent as it was made
            }
        };
        return () -> batch;
    }

    /** @return a fresh token: 128 bits from {@code SecureRandom}, 32 lowercase hex characters */
    static String newToken() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return TOKEN_ENCODING.formatHex(bytes);
    }

    /**
     * @param startNanos the clock reading taken before the acquire was sent
     * @param fence the grant's fence, 0 for a plain grant
     * @return the lease of this grant, under the watchdog if the options ask for it
     */
    Lease issue(String resource, String token, long fence, long ttlMillis, long startNanos, AcquireOptions options) {
        Lease lease = new Lease(this, resource, token, fence, ttlMillis, startNanos, options.hasWatchdog());
        if (options.hasWatchdog()) {
            watchdog().watch(lease);
        }
        return lease;
    }

    @Override
    public MonotonicClock clock() {
        return clock;
    }

    @Override
    public CompletableFuture<RenewOutcome> renew(String resource, String token, long ttlMillis, long sentAtNanos) {
        return commands.renew(resource, token, ttlMillis, sentAtNanos);
    }

    @Override
    public CompletableFuture<ReleaseOutcome> release(String resource, String token) {
        return commands.release(resource, token);
    }

    @Override
    public void guardDeadline(Lease lease) {
        watchdog().guardDeadline(lease);
    }

    @Override
    public Object held(Lease lease) {
        return observations.held(lease);
    }

    @Override
    public void ended(Lease lease, Object handle, LossReason reason) {
        if (reason != null) {
            observations.lost(lease, reason);
        }
        if (handle != null) {
            observations.ended(handle);
        }
    }

    @Override
    public void renewal(Lease lease, RenewOutcome outcome) {
        observations.renewal(lease, outcome == null ? LockInstrumentation.RenewalResult.ERROR
                : outcome == RenewOutcome.RENEWED ? LockInstrumentation.RenewalResult.RENEWED
                : LockInstrumentation.RenewalResult.REFUSED);
    }

    /** @return the watchdog, started on first use */
    Watchdog watchdog() {
        Watchdog w = watchdog;
        if (w == null) {
            synchronized (this) {
                w = watchdog;
                if (w == null) {
                    w = new Watchdog(clock, batches);
                    watchdog = w;
                }
            }
        }
        return w;
    }

    /** Stops the watchdog, if it was started. Leases are not released. */
    @Override
    public void close() {
        Watchdog w = watchdog;
        if (w != null) {
            w.close();
        }
    }
}
