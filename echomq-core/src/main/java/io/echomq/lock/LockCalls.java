package io.echomq.lock;

import io.echomq.MonotonicClock;
import io.echomq.RedisCommandException;
import io.echomq.internal.LockKeys;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The calls of {@link LockClient} on one server (or one Redis Cluster): each sends one script or
 * command, decodes its reply, and names the command in a failure. The counterpart of
 * {@link RedlockRounds} for a single server.
 *
 * <ol>
 *   <li>{@link #attempt}: one acquire, fenced ({@code acquire-2.lua}) or plain
 *       ({@code SET NX PX}), then the replica wait if the options ask for one.</li>
 *   <li>{@link #waitingAttempt}: the same for an acquire that waits, which when refused marks the
 *       resource as waited for in the same step ({@code wait-acquire-3.lua}).</li>
 *   <li>{@link #release}: compare-and-delete ({@code release-3.lua}), publishing only when someone
 *       may wait, or, when a waiting acquire
 *       of this client has posted an offer ({@link WaitLine}), the handoff to it
 *       ({@code handoff-2.lua}) in the same step.</li>
 *   <li>{@link #renew}: compare-and-{@code PEXPIRE} ({@code renew-2.lua}), on the main connection
 *       or on the watchdog's pipelined one.</li>
 *   <li>{@link #inspect}: holder, ttl and last fence in one read ({@code inspect-2.lua}).</li>
 * </ol>
 *
 * <p>Grants become leases through the {@link LeaseIssuer} it owns; it is also the leases'
 * way back here for renewals and releases.
 */
final class LockCalls implements LeaseIssuer.Commands {
    private final RedisEngine engine;
    private final LockKeys keys;
    private final MonotonicClock clock;
    private final WaitLine waitLine;
    private final LeaseIssuer issuer;
    private final AtomicLong handoffs = new AtomicLong();
    /** Whether every fenced grant stores the protocol-2 mark ({@link LocksBuilder#markFencesForProtocol1}). */
    private final boolean markAll;
    /** {@code "+"} + the holders' label, appended to every token with the lease's ttl; {@code null}: plain tokens. */
    private final String labelSuffix;

    /** The outcome of one acquire attempt: a lease, or the holder's remaining ttl ({@code -2}: unknown or free). */
    record Attempt(Lease lease, long pttlMillis) {
    }

    LockCalls(RedisEngine engine, LockKeys keys, MonotonicClock clock, WaitLine waitLine,
              LockObservations observations, boolean markAll, String holderLabel) {
        this.engine = engine;
        this.labelSuffix = holderLabel == null ? null : "+" + holderLabel;
        this.markAll = markAll;
        this.keys = keys;
        this.clock = clock;
        this.waitLine = waitLine;
        this.issuer = new LeaseIssuer(clock, this, () -> {
            StatefulConnection<String, String> conn = engine.pipelined();
            return new Watchdog.Batch() {
                @Override
                public CompletableFuture<RenewOutcome> renew(Lease lease, long ttlMillis, long sentAt) {
                    return LockCalls.this.renew(conn, lease.resource(), lease.token(), ttlMillis);
                }

                @Override
                public void flush() {
                    conn.flushCommands();
                }
            };
        }, observations);
    }

    LeaseIssuer issuer() {
        return issuer;
    }

    /**
     * @return a new token for a lease of {@code ttlMillis}: the random part alone, or with a holder
     *     label {@code <random>+<ttl ms>+<label>} (docs/protocol.md, "Holder values")
     */
    private String token(long ttlMillis) {
        String random = LeaseIssuer.newToken();
        return labelSuffix == null ? random : random + "+" + ttlMillis + labelSuffix;
    }

    /** @return the label of an acquire in failures: the script's or the plain command's */
    static String acquireLabel(AcquireOptions options) {
        return options.isFenced() ? Scripts.ACQUIRE.label() : "SET NX PX";
    }

    /**
     * The try of an acquire that waits, subscribed to the release channel: grants as
     * {@link #attempt} does (fenced or plain, then the replica wait if the options ask for one),
     * and when refused, marks the resource as waited for in the same script, for at least
     * {@code waitMillis}, so that every release until then publishes. The future fails as
     * {@link #attempt}'s does.
     */
    CompletableFuture<Attempt> waitingAttempt(String resource, long ttlMillis, AcquireOptions options,
                                              long waitMillis) {
        String token = token(ttlMillis);
        long start = clock.nanoTime();
        CompletableFuture<List<Object>> reply = engine.run(Scripts.WAIT_ACQUIRE, ScriptOutputType.MULTI,
                new String[] {keys.lock(resource), keys.fence(resource), keys.waiting(resource)},
                markAll(token, Long.toString(ttlMillis), options.isFenced() ? "1" : "0",
                        Long.toString(Math.max(1, waitMillis))));
        CompletableFuture<Attempt> f = Replies.decode(reply, r -> {
            long granted = (Long) r.get(0);
            long value = (Long) r.get(1);
            return granted == 1
                    ? new Attempt(issuer.issue(resource, token, value, ttlMillis, start, options), 0)
                    : new Attempt(null, value);
        }, Scripts.WAIT_ACQUIRE.label(), resource);
        return options.replicasToWait() > 0 ? f.thenCompose(a -> awaitReplicas(a, options)) : f;
    }

    /**
     * One acquire attempt. The clock is read before sending: the lease's local deadline errs early.
     * The future fails with a {@link RedisCommandException} (wrapping a {@link ReplicaAckException}
     * when too few replicas acknowledged; the grant was released).
     */
    CompletableFuture<Attempt> attempt(String resource, long ttlMillis, AcquireOptions options) {
        String token = token(ttlMillis);
        long start = clock.nanoTime();
        String lockKey = keys.lock(resource);
        CompletableFuture<Attempt> f;
        if (options.isFenced()) {
            CompletableFuture<List<Object>> reply = engine.run(Scripts.ACQUIRE, ScriptOutputType.MULTI,
                    new String[] {lockKey, keys.fence(resource)}, markAll(token, Long.toString(ttlMillis)));
            f = Replies.decode(reply, r -> {
                long granted = (Long) r.get(0);
                long value = (Long) r.get(1);
                return granted == 1
                        ? new Attempt(issuer.issue(resource, token, value, ttlMillis, start, options), 0)
                        : new Attempt(null, value);
            }, Scripts.ACQUIRE.label(), resource);
        } else {
            // Exactly the seed's command, in its order: SET <lock-key> <token> NX PX <ttl>.
            CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8)
                    .addKey(lockKey).addValue(token).add("NX").add("PX").add(ttlMillis);
            f = Replies.decode(engine.commands().dispatch(CommandType.SET, new StatusOutput<>(StringCodec.UTF8), args)
                    .toCompletableFuture(), ok -> ok != null
                            ? new Attempt(issuer.issue(resource, token, 0, ttlMillis, start, options), 0)
                            : new Attempt(null, -2), "SET NX PX", resource);
        }
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

    /**
     * Releases by token; when an acquire of this client waits for the resource and has posted an
     * offer ({@link WaitLine}), hands the lock to it in the same script instead.
     */
    @Override
    public CompletableFuture<ReleaseOutcome> release(String resource, String token) {
        WaitLine.Offer offer = waitLine.claim(resource, token);
        if (offer != null) {
            return handoff(resource, token, offer);
        }
        // Read after claim(): a waiter of this client that saw the lock held in its line joined the
        // line before that, so it is seen here, and the release publishes for it. Waiters of other
        // clients have marked the waiting key in their refused try (wait-acquire-3.lua).
        String localWaiters = waitLine.isBusy(resource) ? "1" : "0";
        CompletableFuture<Long> f = engine.run(Scripts.RELEASE, ScriptOutputType.INTEGER,
                new String[] {keys.lock(resource), keys.channel(resource), keys.waiting(resource)}, token,
                engine.publishMode(), localWaiters);
        return Replies.decode(f, ReleaseOutcome::ofCode, Scripts.RELEASE.label(), resource);
    }

    /**
     * {@code handoff-2.lua}: releases {@code token}'s grant and grants the lock to the waiter of
     * {@code offer}, whose result is then completed with the new lease (or with null when nothing
     * was granted, or the script failed: the waiter then tries on its own, as after a release).
     */
    private CompletableFuture<ReleaseOutcome> handoff(String resource, String token, WaitLine.Offer offer) {
        String newToken = token(offer.ttlMillis);
        long start = clock.nanoTime();   // before sending: the new lease's local deadline errs early
        CompletableFuture<List<Object>> f;
        try {
            f = engine.run(Scripts.HANDOFF, ScriptOutputType.MULTI,
                    new String[] {keys.lock(resource), keys.fence(resource)},
                    markAll(token, newToken, Long.toString(offer.ttlMillis)));
        } catch (RuntimeException e) {
            offer.result.complete(null);
            throw e;
        }
        return wrap(f.handle((reply, error) -> {
            if (error != null) {
                offer.result.complete(null);
                throw new CompletionException(error);
            }
            long code = (Long) reply.get(0);
            Lease lease = null;
            try {
                if (code == 1) {
                    handoffs.incrementAndGet();
                    lease = issuer.issue(resource, newToken, (Long) reply.get(1), offer.ttlMillis, start, offer.options);
                }
            } finally {
                offer.result.complete(lease);
            }
            return ReleaseOutcome.ofCode(code);
        }), Scripts.HANDOFF.label(), resource);
    }

    /** @return a fence-granting script's arguments, with the mark_all argument appended in the upgrade mode */
    private String[] markAll(String... args) {
        return markAll ? Scripts.withMarkAll(args) : args;
    }

    /** @return how many releases handed the lock to a local waiter; for tests and metrics */
    long handoffs() {
        return handoffs.get();
    }

    /** A lease's renewal, on the main connection. */
    @Override
    public CompletableFuture<RenewOutcome> renew(String resource, String token, long ttlMillis, long sentAtNanos) {
        return renew(engine.main(), resource, token, ttlMillis);
    }

    CompletableFuture<RenewOutcome> renew(StatefulConnection<String, String> conn, String resource, String token,
                                          long ttlMillis) {
        CompletableFuture<Long> f = engine.run(conn, Scripts.RENEW, ScriptOutputType.INTEGER,
                new String[] {keys.lock(resource), keys.fence(resource)}, token, Long.toString(ttlMillis));
        return Replies.decode(f, RenewOutcome::ofCode, Scripts.RENEW.label(), resource);
    }

    /**
     * {@code takeover-2.lua}: gives the lock to a new lease of this client while its holder's value
     * still starts with {@code expected} and, when {@code fenceSeen > 0}, its last fence is still
     * {@code fenceSeen}.
     *
     * @return the new lease (fenced, not watched), or null when the lock is free or its holder or fence changed
     */
    CompletableFuture<Lease> takeover(String resource, String expected, long fenceSeen, long ttlMillis) {
        String newToken = token(ttlMillis);
        long start = clock.nanoTime();
        CompletableFuture<List<Object>> f = engine.run(Scripts.TAKEOVER, ScriptOutputType.MULTI,
                new String[] {keys.lock(resource), keys.fence(resource)},
                markAll(expected, Long.toString(fenceSeen), newToken, Long.toString(ttlMillis)));
        return Replies.decode(f, r -> (Long) r.get(0) == 1
                ? issuer.issue(resource, newToken, (Long) r.get(1), ttlMillis, start, AcquireOptions.defaults())
                : null, Scripts.TAKEOVER.label(), resource);
    }

    /** @return holder, ttl and last fence, read in one script */
    CompletableFuture<LockInfo> inspect(String resource) {
        CompletableFuture<List<Object>> f = engine.run(Scripts.INSPECT, ScriptOutputType.MULTI,
                new String[] {keys.lock(resource), keys.fence(resource)});
        return f.thenApply(reply -> new LockInfo(resource, (String) reply.get(0), (Long) reply.get(1),
                (Long) reply.get(2)));
    }

    private static <T> CompletableFuture<T> wrap(CompletableFuture<T> f, String command, String resource) {
        return f.exceptionallyCompose(e -> CompletableFuture.failedFuture(RedisEngine.failure(e, command, resource)));
    }
}
