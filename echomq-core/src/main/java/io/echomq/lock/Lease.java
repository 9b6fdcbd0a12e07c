package io.echomq.lock;

import io.echomq.MonotonicClock;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One grant of a lock: the handle that owns it. Ownership belongs to this object, not to a
 * thread, so a lease may be released from any thread, an executor, a virtual thread or a
 * {@code CompletableFuture} callback.
 *
 * <ol>
 *   <li>It names the acquisition: {@link #resource()}, {@link #token()} (128 bits from
 *       {@code SecureRandom}) and, for fenced leases, {@link #fence()}, which strictly increases
 *       across every grant of the resource.</li>
 *   <li>It knows how long it may be relied on: {@link #validUntilNanos()} is the monotonic start
 *       of the acquire + ttl − a drift allowance of ttl/100 + 2 ms. {@link #isHeld()} is false
 *       from then on unless a renewal moved it.</li>
 *   <li>It releases by compare-and-delete ({@link #release()}, {@link #close()}) and renews by
 *       compare-and-{@code PEXPIRE} ({@link #renew()}); neither ever touches a lock that has since
 *       been granted to someone else.</li>
 *   <li>Losing it is an event: {@link #lost()} completes and {@link #onLost} listeners run when a
 *       renewal or release finds the lock gone or taken, or the local deadline passes. Once lost,
 *       a lease is never renewed again.</li>
 * </ol>
 *
 * <p>Thread-safe.
 */
public final class Lease implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Lease.class);

    private enum Status { HELD, RELEASED, LOST }

    private static final VarHandle STATUS = handle("status", Status.class);
    private static final VarHandle LOST = handle("lost", CompletableFuture.class);
    private static final VarHandle LOSS_REASON = handle("lossReason", LossReason.class);
    private static final VarHandle DEADLINE_GUARDED = handle("deadlineGuarded", boolean.class);
    private static final VarHandle RELEASE_OUTCOME = handle("releaseOutcome", ReleaseOutcome.class);

    private static VarHandle handle(String field, Class<?> type) {
        try {
            return MethodHandles.lookup().findVarHandle(Lease.class, field, type);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Backend backend;
    private final String resource;
    private final String token;
    private final long fence;
    private final boolean watchdog;
    private volatile long ttlMillis;
    private volatile long validUntilNanos;
    // Plain volatile fields changed through VarHandles, not Atomic* objects: a lease is made and
    // dropped on every acquire, and each Atomic* was one more object per grant.
    private volatile Status status = Status.HELD;
    private volatile CompletableFuture<LossReason> lost;   // made when first asked for or on a loss
    // set before the status turns LOST, so that isLost() and lossReason() always agree, even while
    // the listeners of a loss are still being told
    private volatile LossReason lossReason;
    private volatile boolean deadlineGuarded;
    private volatile ReleaseOutcome releaseOutcome;
    private final Object held;   // the instrumentation's handle, or null when nobody listens

    Lease(Backend backend, String resource, String token, long fence, long ttlMillis, long startNanos,
          boolean watchdog) {
        this.backend = backend;
        this.resource = resource;
        this.token = token;
        this.fence = fence;
        this.ttlMillis = ttlMillis;
        this.watchdog = watchdog;
        this.validUntilNanos = deadline(startNanos, ttlMillis);
        if (watchdog) {
            deadlineGuarded = true;
        }
        this.held = backend.held(this);
    }

    /** @return start + ttl − (ttl/100 + 2 ms), in nanoseconds */
    static long deadline(long startNanos, long ttlMillis) {
        long ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMillis);
        long drift = ttlNanos / 100 + TimeUnit.MILLISECONDS.toNanos(2);
        return startNanos + ttlNanos - drift;
    }

    /** @return the locked resource, as passed to acquire */
    public String resource() {
        return resource;
    }

    /**
     * @return this acquisition's token: 128 bits from {@code SecureRandom} as 32 lowercase hex
     *     characters (never starting with '-', so it is safe as a shell or CLI argument)
     */
    public String token() {
        return token;
    }

    /** @return whether this lease was granted by the fenced acquire and so carries a fence */
    public boolean isFenced() {
        return fence > 0;
    }

    /**
     * @return the fence: a number that strictly increases across every grant of this resource,
     *     also across idle periods and data loss, while the server's clock does not step back.
     *     It is large (the server's clock in microseconds, about 1.8e15), not 1, 2, 3.
     *     Pass it to a guarded store ({@link FencedStore}, or SQL
     *     {@code UPDATE … WHERE fence <= ?}) so that it refuses a stale holder. On a lease from
     *     {@link RedlockClient} it is best-effort: the largest of the granting masters' own
     *     fences, which is not consensus and can fail to rise (see {@link RedlockClient}).
     * @throws IllegalStateException if the lease was acquired with {@link AcquireOptions#plain()}
     */
    public long fence() {
        if (fence <= 0) {
            throw new IllegalStateException("lease on '" + resource + "' was acquired plain and has no fence");
        }
        return fence;
    }

    /** @return the ttl that the last acquire or renewal set */
    public Duration ttl() {
        return Duration.ofMillis(ttlMillis);
    }

    /**
     * @return the local deadline, on the client's {@link io.echomq.MonotonicClock}: the monotonic
     *     time at which the acquire (or the last successful renewal) was sent, + ttl − drift.
     *     Until then the lease is held unless someone deleted the key behind its back.
     */
    public long validUntilNanos() {
        return validUntilNanos;
    }

    /** @return how long the lease may still be relied on; zero once released, lost or past due */
    public Duration remaining() {
        if (status != Status.HELD) {
            return Duration.ZERO;
        }
        long left = validUntilNanos - backend.clock().nanoTime();
        return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    /**
     * @return whether the holder may still act under this lease: not released, not lost, and
     *     before its local deadline. A local belief only; fence your writes for certainty.
     */
    public boolean isHeld() {
        return status == Status.HELD && backend.clock().nanoTime() < validUntilNanos;
    }

    /** @return whether the lease was lost (see {@link LossReason}) */
    public boolean isLost() {
        return status == Status.LOST;
    }

    /** @return why the lease was lost, or empty while it is not */
    public Optional<LossReason> lossReason() {
        return status == Status.LOST ? Optional.ofNullable(lossReason) : Optional.empty();
    }

    /** @return whether the client's watchdog renews this lease */
    public boolean hasWatchdog() {
        return watchdog;
    }

    /**
     * A future that completes with the reason when the lease is lost: a renewal or release found
     * it gone or taken, or its local deadline passed. It never completes for a lease released
     * cleanly. Completing or cancelling the returned copy does not affect the lease.
     *
     * <p>Asking for it arms a timer at the local deadline, so it fires even without a watchdog.
     *
     * @return a copy of the loss future
     */
    public CompletableFuture<LossReason> lost() {
        guardDeadline();
        return lostFuture().copy();
    }

    /**
     * Runs {@code listener} when the lease is lost, on a pool thread; at once if already lost.
     * Keep listeners quick: cancel the work, do not block. Exceptions they throw are logged.
     *
     * @throws IllegalArgumentException if {@code listener} is null
     */
    public void onLost(Consumer<LossReason> listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        guardDeadline();
        lostFuture().thenAcceptAsync(reason -> {
            try {
                listener.accept(reason);
            } catch (RuntimeException e) {
                log.warn("lease-lost listener for '{}' threw", resource, e);
            }
        });
    }

    /**
     * Renews with the ttl last used. See {@link #renew(Duration)}.
     *
     * @throws io.echomq.RedisCommandException if Redis fails; the outcome is then unknown and the
     *     renewal may be retried
     */
    public RenewOutcome renew() {
        return renew(Duration.ofMillis(ttlMillis));
    }

    /**
     * Sets the lock's ttl to {@code ttl} from now on the server, only while it still holds this
     * token. On {@link RenewOutcome#RENEWED} the local deadline moves; otherwise the lease is marked
     * lost. A lease that is already lost, or whose local deadline has passed, is not sent at all:
     * it answers {@code EXPIRED} (or {@code NOT_OWNER} if that is how it was lost) and is never
     * revived.
     *
     * @throws IllegalArgumentException if {@code ttl} is null, not positive or above
     *     {@link LockClient#MAX_TTL}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public RenewOutcome renew(Duration ttl) {
        return backend.awaitRenewal(renewAsync(ttl), resource);
    }

    /**
     * Asynchronous {@link #renew(Duration)}. The future fails with a
     * {@link io.echomq.RedisCommandException} if Redis fails.
     *
     * @throws IllegalArgumentException if {@code ttl} is invalid
     */
    public CompletableFuture<RenewOutcome> renewAsync(Duration ttl) {
        long ms = LockLimits.ttl(ttl);
        Optional<RenewOutcome> dead = refuseRenewal();
        if (dead.isPresent()) {
            return CompletableFuture.completedFuture(dead.get());
        }
        long sentAt = backend.clock().nanoTime();
        return backend.renew(resource, token, ms, sentAt)
                .whenComplete((outcome, error) -> {
                    if (error != null) {
                        onRenewError();
                    }
                })
                .thenApply(outcome -> {
                    onRenewReply(outcome, sentAt, ms);
                    return outcome;
                });
    }

    /** @return the answer for a lease that must not be renewed, or empty if it may be */
    Optional<RenewOutcome> refuseRenewal() {
        Status s = status;
        if (s == Status.HELD && backend.clock().nanoTime() >= validUntilNanos) {
            markLost(LossReason.DEADLINE_PASSED);
            s = status;
        }
        if (s == Status.HELD) {
            return Optional.empty();
        }
        if (s == Status.RELEASED) {
            return Optional.of(RenewOutcome.EXPIRED);
        }
        return Optional.of(lossReason == LossReason.NOT_OWNER ? RenewOutcome.NOT_OWNER : RenewOutcome.EXPIRED);
    }

    /** Applies a renewal's reply: move the deadline, or mark the lease lost. */
    void onRenewReply(RenewOutcome outcome, long sentAtNanos, long newTtlMillis) {
        backend.renewal(this, outcome);
        if (outcome == RenewOutcome.RENEWED) {
            if (status == Status.HELD) {
                ttlMillis = newTtlMillis;
                validUntilNanos = deadline(sentAtNanos, newTtlMillis);
            }
        } else {
            markLost(outcome == RenewOutcome.NOT_OWNER ? LossReason.NOT_OWNER : LossReason.EXPIRED);
        }
    }

    /**
     * Deletes the lock only while it still holds this token. Safe to retry: once an answer has
     * been received it is remembered and returned again without a round trip; after a failure
     * with an unknown outcome the retry asks Redis again, and {@code EXPIRED} then means the lock
     * is free either way. {@code NOT_OWNER} or {@code EXPIRED} also mark the lease lost.
     *
     * <p>An interrupted thread still releases: the interrupt does not end the wait for the
     * answer (the command timeout bounds it), and the thread's interrupt flag stays set. So a
     * holder interrupted on a loss (by its own choice), or one cancelled mid-work, still leaves the
     * lock free in its {@code finally} or try-with-resources.
     *
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public ReleaseOutcome release() {
        ReleaseOutcome known = releaseOutcome;
        if (known != null) {
            return known;
        }
        // waits on the backend's reply itself and applies it here: no further stage per release
        return onReleaseReply(backend.awaitRelease(backend.release(resource, token), resource));
    }

    /** Asynchronous {@link #release()}; the future fails with a {@link io.echomq.RedisCommandException}. */
    public CompletableFuture<ReleaseOutcome> releaseAsync() {
        ReleaseOutcome known = releaseOutcome;
        if (known != null) {
            return CompletableFuture.completedFuture(known);
        }
        return backend.release(resource, token).thenApply(this::onReleaseReply);
    }

    /** Applies a release's reply: the lease released, or lost. @return the first answer this lease got */
    private ReleaseOutcome onReleaseReply(ReleaseOutcome outcome) {
        if (outcome == ReleaseOutcome.RELEASED) {
            if (STATUS.compareAndSet(this, Status.HELD, Status.RELEASED) && held != null) {
                backend.ended(this, held, null);
            }
        } else if (releaseOutcome == null) {
            markLost(outcome == ReleaseOutcome.NOT_OWNER ? LossReason.NOT_OWNER : LossReason.EXPIRED);
        }
        // The first answer is the truth about this lease; a concurrent second release that
        // found the key already gone must not overwrite RELEASED with EXPIRED.
        return RELEASE_OUTCOME.compareAndSet(this, null, outcome) ? outcome : releaseOutcome;
    }

    /**
     * Ends this lease but leaves the lock on the server for {@code hold} from now, where it then
     * expires by itself: a token-checked {@code PEXPIRE} (the renewal's script) instead of the
     * delete. Until then nobody else can take the lock, this holder included. For a hold that
     * must outlast the work, as a scheduled task's "at least" time does.
     *
     * <p>On {@code RELEASED} the lease is done here as after {@link #release()}: {@link #isHeld()}
     * is false, the watchdog stops renewing it, and a later {@code release()} or {@link #close()}
     * returns the same answer without a round trip, so the lock is not deleted early. A hold
     * below 1 ms (zero or negative included: what is left of an "at least" time that has passed),
     * and a lease that is lost or past its local deadline, are released at once by
     * {@link #release()}: a lost lease is never revived nor lengthened. A watchdog renewal already
     * on the wire when this is sent can still land after it; the lock then expires at most one
     * ttl later, never earlier.
     *
     * <p>Like {@code release()}, an interrupt does not end the wait for the answer and the
     * thread's interrupt flag stays set.
     *
     * @param hold how long from now the lock stays before it expires
     * @return {@code RELEASED} when the lock now expires after {@code hold} (or was released at
     *     once); {@code NOT_OWNER} or {@code EXPIRED}, and the lease marked lost, when the lock was
     *     no longer this lease's
     * @throws IllegalArgumentException if {@code hold} is null or above {@link LockClient#MAX_TTL}
     * @throws io.echomq.RedisCommandException if Redis fails; the outcome is then unknown, the
     *     lease stays held, and the lock expires by the later of its ttl and {@code hold}
     */
    public ReleaseOutcome releaseAfter(Duration hold) {
        if (hold == null) {
            throw new IllegalArgumentException("hold must not be null");
        }
        long ms = hold.compareTo(Duration.ofMillis(1)) < 0 ? 0 : LockLimits.ttl(hold);
        ReleaseOutcome known = releaseOutcome;
        if (known != null) {
            return known;
        }
        if (ms == 0 || refuseRenewal().isPresent()) {
            return release();
        }
        long sentAt = backend.clock().nanoTime();
        RenewOutcome kept = RedisEngine.awaitUninterruptibly(backend.renew(resource, token, ms, sentAt),
                Scripts.RENEW.label(), resource);
        backend.renewal(this, kept);
        if (kept != RenewOutcome.RENEWED) {
            return onReleaseReply(kept == RenewOutcome.NOT_OWNER ? ReleaseOutcome.NOT_OWNER : ReleaseOutcome.EXPIRED);
        }
        return onReleaseReply(ReleaseOutcome.RELEASED);
    }

    /**
     * Releases, as {@link #release()}, so that try-with-resources works. An outcome other than
     * {@code RELEASED} is logged at DEBUG and otherwise ignored: the lock is not ours either way.
     *
     * @throws io.echomq.RedisCommandException if Redis fails; the lock then expires by its ttl
     */
    @Override
    public void close() {
        ReleaseOutcome outcome = release();
        if (outcome != ReleaseOutcome.RELEASED) {
            log.debug("lease on '{}' closed with {}", resource, outcome);
        }
    }

    /** Marks the lease lost once; completes {@link #lost()} and runs the listeners. */
    void markLost(LossReason reason) {
        if (status != Status.HELD) {
            return;
        }
        LOSS_REASON.compareAndSet(this, null, reason);   // the first reason seen is the one every reader gets
        if (STATUS.compareAndSet(this, Status.HELD, Status.LOST)) {
            LossReason why = lossReason;
            log.debug("lease on '{}' (fence {}) lost: {}", resource, fence, why);
            backend.ended(this, held, why);
            lostFuture().complete(why);
        }
    }

    /** A renewal sent for this lease failed in Redis: its outcome is unknown. */
    void onRenewError() {
        backend.renewal(this, null);
    }

    /** @return whether the watchdog or deadline timer should still look after this lease */
    boolean isActive() {
        return status == Status.HELD;
    }

    /** @return the loss future, made on first use; one instance for every caller */
    @SuppressWarnings("unchecked")
    private CompletableFuture<LossReason> lostFuture() {
        CompletableFuture<LossReason> f = lost;
        if (f == null) {
            CompletableFuture<LossReason> fresh = new CompletableFuture<>();
            f = (CompletableFuture<LossReason>) LOST.compareAndExchange(this, null, fresh);
            f = f == null ? fresh : f;
        }
        return f;
    }

    private void guardDeadline() {
        if (DEADLINE_GUARDED.compareAndSet(this, false, true)) {
            backend.guardDeadline(this);
        }
    }

    @Override
    public String toString() {
        return "Lease[" + resource + (fence > 0 ? ", fence=" + fence : ", plain") + ", " + status + "]";
    }

    /**
     * What a {@link Lease} needs from the client that granted it: its clock, a token-checked renewal
     * and release and the waits for their answers, and a deadline timer. A lease reaches the engine
     * only through this interface, declared with the handle because the two are one design: the
     * handle keeps the lease's rules, the backend reaches the server and the instrumentation. {@link LeaseIssuer} is the one implementation: it sends
     * renewals and releases to one server ({@link LockCalls}) or to a quorum of independent masters
     * ({@link RedlockRounds}), and arms the deadline on its watchdog. The lease's own rules (never
     * revive a lost lease, remember the first release answer, loss is an event) stay in {@link Lease}.
     */
    interface Backend {

        /** @return the monotonic clock of the lease's local deadline */
        MonotonicClock clock();

        /**
         * Renews {@code resource} to {@code ttlMillis} while it holds {@code token}. The future fails
         * with a {@link io.echomq.RedisCommandException} when the outcome is unknown.
         *
         * @param sentAtNanos the clock reading taken just before this call; the new deadline counts from it
         */
        CompletableFuture<RenewOutcome> renew(String resource, String token, long ttlMillis, long sentAtNanos);

        /**
         * Deletes {@code resource} while it holds {@code token}. The future fails with a
         * {@link io.echomq.RedisCommandException} when the outcome is unknown.
         */
        CompletableFuture<ReleaseOutcome> release(String resource, String token);

        /**
         * Waits for the answer of a {@link #renew} call, for the blocking {@code Lease.renew}; an
         * interrupt ends the wait.
         *
         * @return the outcome
         * @throws io.echomq.RedisCommandException if the renewal failed or the wait was interrupted
         */
        default RenewOutcome awaitRenewal(CompletableFuture<RenewOutcome> reply, String resource) {
            return RedisEngine.await(reply, Scripts.RENEW.label(), resource);
        }

        /**
         * Waits for the answer of a {@link #release} call, for the blocking {@code Lease.release}: an
         * interrupt does not end the wait (the command timeout bounds it), and the thread's interrupt
         * flag is set again before returning.
         *
         * @return the outcome
         * @throws io.echomq.RedisCommandException if the release failed
         */
        default ReleaseOutcome awaitRelease(CompletableFuture<ReleaseOutcome> reply, String resource) {
            return RedisEngine.awaitUninterruptibly(reply, Scripts.RELEASE.label(), resource);
        }

        /** Arms the timer that marks {@code lease} lost when its local deadline passes. */
        void guardDeadline(Lease lease);

        /**
         * Tells the client's instrumentation that {@code lease} is now held; called once, at the end
         * of the lease's constructor.
         *
         * @return the handle to pass to {@link #ended}, or null when nobody listens
         */
        default Object held(Lease lease) {
            return null;
        }

        /**
         * Tells the client's instrumentation that {@code lease} was released ({@code reason} null) or
         * lost; called once per lease, and only when {@link #held} returned a handle or the lease was lost.
         *
         * @param handle what {@link #held} returned, or null
         */
        default void ended(Lease lease, Object handle, LossReason reason) {
        }

        /**
         * Tells the client's instrumentation how a renewal of {@code lease} that was sent ended.
         *
         * @param outcome the server's answer, or null when the renewal failed in Redis and its outcome
         *     is unknown
         */
        default void renewal(Lease lease, RenewOutcome outcome) {
        }
    }
}
