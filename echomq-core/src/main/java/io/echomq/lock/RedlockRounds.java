package io.echomq.lock;

import io.echomq.MonotonicClock;
import io.echomq.internal.LockKeys;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.RedlockMasters;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/**
 * The Redlock rounds behind {@link RedlockClient}: each sends one command to every master at once,
 * waits for every answer (each bounded by the per-master timeout) and counts them against the
 * quorum of N/2+1.
 *
 * <ol>
 *   <li>{@link #acquire}: the acquire on every master, then the fence write-back, then the
 *       validity check; on any failure a release on every master.</li>
 *   <li>{@link #renew}: RENEWED only for a quorum within the new validity.</li>
 *   <li>{@link #release}: compare-and-delete on every master.</li>
 *   <li>{@link #inspect}: one snapshot per master.</li>
 * </ol>
 *
 * <p>Too few answers to decide is a {@link RedlockQuorumException}, never a guess.
 */
final class RedlockRounds implements LeaseIssuer.Commands {
    private final RedlockMasters masters;
    private final LockKeys keys;
    private final MonotonicClock clock;
    private final int quorum;
    /** Whether every fenced grant stores the protocol-2 mark ({@link LocksBuilder#markFencesForProtocol1}). */
    private final boolean markAll;

    /** One master's answer: a value, or why it gave none. */
    record Reply<T>(T value, Throwable failure) {
    }

    /**
     * A grant by a quorum, with validity left.
     *
     * @param token the token now on a quorum of masters
     * @param fence the largest fence among the granting masters (0 for a plain grant)
     * @param startNanos the clock reading taken before the acquire was sent
     */
    record Grant(String token, long fence, long startNanos) {
    }

    RedlockRounds(RedlockMasters masters, LockKeys keys, MonotonicClock clock, boolean markAll) {
        this.markAll = markAll;
        this.masters = masters;
        this.keys = keys;
        this.clock = clock;
        this.quorum = masters.size() / 2 + 1;
    }

    /** @return a fence-granting script's arguments, with the mark_all argument appended in the upgrade mode */
    private String[] args(String... args) {
        return markAll ? Scripts.withMarkAll(args) : args;
    }

    int quorum() {
        return quorum;
    }

    /**
     * One Redlock attempt. The clock is read exactly twice on success (before sending, and after
     * the write-back), which the validity tests rely on.
     *
     * @return a future of the grant, or empty (no quorum, or no validity left); it fails with a
     *     {@link RedlockQuorumException} when fewer than a quorum answered
     */
    CompletableFuture<Optional<Grant>> acquire(String resource, String token, long ttlMillis, boolean fenced) {
        String lockKey = keys.lock(resource);
        String ttl = Long.toString(ttlMillis);
        long start = clock.nanoTime();
        CompletableFuture<List<Reply<Long>>> sent;
        if (fenced) {
            sent = onAll(i -> masters.<List<Object>>run(i, Scripts.ACQUIRE, ScriptOutputType.MULTI,
                    new String[] {lockKey, keys.fence(resource)}, args(token, ttl))
                    .thenApply(x -> (Long) x.get(0) == 1 ? (Long) x.get(1) : (Long) 0L));
        } else {
            // A plain grant counts as fence 0; a refusal as -1.
            sent = onAll(i -> masters.setNxPx(i, lockKey, token, ttlMillis).thenApply(ok -> ok ? 0L : -1L));
        }
        return sent.thenCompose(replies -> {
            int granted = 0;
            long best = 0;
            for (Reply<Long> reply : replies) {
                if (reply.failure() == null && (fenced ? reply.value() > 0 : reply.value() == 0)) {
                    granted++;
                    best = Math.max(best, reply.value());
                }
            }
            long fence = best;
            if (granted < quorum) {
                return undo(resource, token, replies);
            }
            // Write the fence back before the lease is handed out, so that the next grant's quorum,
            // which overlaps ours, counts on from it (each master keeps it until its own clock has
            // passed it). Best-effort: a master that fails it is ignored.
            CompletableFuture<?> raised = fenced
                    ? onAll(i -> masters.run(i, Scripts.FENCE_RAISE, ScriptOutputType.INTEGER,
                            new String[] {keys.fence(resource)}, args(Long.toString(fence), ttl)))
                    : CompletableFuture.completedFuture(null);
            return raised.thenCompose(done -> {
                long end = clock.nanoTime();
                if (end - Lease.deadline(start, ttlMillis) >= 0) {
                    return undo(resource, token, replies);   // no validity left: ttl − elapsed − drift <= 0
                }
                return CompletableFuture.completedFuture(Optional.of(new Grant(token, fence, start)));
            });
        });
    }

    /**
     * Releases {@code token} on every master, even where the acquire got no answer; then fails
     * with a {@link RedlockQuorumException} if the acquire's {@code replies} had no quorum of
     * answers, or answers empty.
     */
    private CompletableFuture<Optional<Grant>> undo(String resource, String token, List<? extends Reply<?>> replies) {
        return onAll(i -> releaseOn(i, resource, token)).thenApply(released -> {
            if (answered(replies) < quorum) {
                throw quorumLost("REDLOCK acquire", resource, replies);
            }
            return Optional.<Grant>empty();
        });
    }

    /**
     * Compare-and-delete on every master.
     *
     * @return RELEASED if any master deleted it; else NOT_OWNER if any holds another token; else
     *     EXPIRED, or a {@link RedlockQuorumException} if fewer than a quorum answered
     */
    @Override
    public CompletableFuture<ReleaseOutcome> release(String resource, String token) {
        return onAll(i -> releaseOn(i, resource, token)).thenApply(replies -> {
            boolean notOwner = false;
            for (Reply<ReleaseOutcome> r : replies) {
                if (r.value() == ReleaseOutcome.RELEASED) {
                    return ReleaseOutcome.RELEASED;
                }
                notOwner |= r.value() == ReleaseOutcome.NOT_OWNER;
            }
            if (notOwner) {
                return ReleaseOutcome.NOT_OWNER;
            }
            if (answered(replies) < quorum) {
                throw quorumLost("REDLOCK release", resource, replies);
            }
            return ReleaseOutcome.EXPIRED;
        });
    }

    /**
     * Compare-and-{@code PEXPIRE} on every master. RENEWED needs a quorum of renewals that came back
     * before the new validity ran out; a quorum that came back too late counts as EXPIRED (the
     * lease cannot be relied on). NOT_OWNER or EXPIRED need enough definite answers that no quorum
     * can still hold the token; anything in between is unknown and fails with a
     * {@link RedlockQuorumException}.
     *
     * @param sentAt the clock reading taken before this call; the new validity counts from it
     */
    @Override
    public CompletableFuture<RenewOutcome> renew(String resource, String token, long ttlMillis, long sentAt) {
        String ttl = Long.toString(ttlMillis);
        return onAll(i -> masters.<Long>run(i, Scripts.RENEW, ScriptOutputType.INTEGER,
                new String[] {keys.lock(resource), keys.fence(resource)}, token, ttl).thenApply(RenewOutcome::ofCode))
                .thenApply(replies -> {
                    long end = clock.nanoTime();
                    int renewed = 0;
                    int lost = 0;
                    boolean notOwner = false;
                    for (Reply<RenewOutcome> r : replies) {
                        if (r.value() == RenewOutcome.RENEWED) {
                            renewed++;
                        } else if (r.value() != null) {
                            lost++;
                            notOwner |= r.value() == RenewOutcome.NOT_OWNER;
                        }
                    }
                    if (renewed >= quorum) {
                        return end - Lease.deadline(sentAt, ttlMillis) < 0 ? RenewOutcome.RENEWED : RenewOutcome.EXPIRED;
                    }
                    if (lost > masters.size() - quorum) {
                        return notOwner ? RenewOutcome.NOT_OWNER : RenewOutcome.EXPIRED;
                    }
                    throw quorumLost("REDLOCK renew", resource, replies);
                });
    }

    /**
     * @return one snapshot per master, empty where it did not answer; fails with a
     *     {@link RedlockQuorumException} if fewer than a quorum answered
     */
    CompletableFuture<List<Optional<LockInfo>>> inspect(String resource) {
        return onAll(i -> masters.<List<Object>>run(i, Scripts.INSPECT, ScriptOutputType.MULTI,
                new String[] {keys.lock(resource), keys.fence(resource)})
                .thenApply(x -> new LockInfo(resource, (String) x.get(0), (Long) x.get(1), (Long) x.get(2))))
                .thenApply(replies -> {
                    if (answered(replies) < quorum) {
                        throw quorumLost("REDLOCK inspect", resource, replies);
                    }
                    List<Optional<LockInfo>> infos = new ArrayList<>();
                    for (Reply<LockInfo> reply : replies) {
                        infos.add(Optional.ofNullable(reply.value()));
                    }
                    return infos;
                });
    }

    private CompletableFuture<ReleaseOutcome> releaseOn(int i, String resource, String token) {
        return masters.<Long>run(i, Scripts.RELEASE, ScriptOutputType.INTEGER,
                // "1": publish as before; Redlock waiters do not mark the waiting key
                new String[] {keys.lock(resource), keys.channel(resource), keys.waiting(resource)}, token,
                "PUBLISH", "1")
                .thenApply(ReleaseOutcome::ofCode);
    }

    /** Sends {@code op} to every master at once; completes when each has answered or failed. */
    private <T> CompletableFuture<List<Reply<T>>> onAll(IntFunction<CompletableFuture<T>> op) {
        List<CompletableFuture<Reply<T>>> sent = new ArrayList<>();
        for (int i = 0; i < masters.size(); i++) {
            CompletableFuture<T> f;
            try {
                f = op.apply(i);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            sent.add(f.handle((v, e) -> new Reply<>(e == null ? v : null,
                    e == null ? null : RedisEngine.unwrap(e))));
        }
        return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]))
                .thenApply(done -> sent.stream().map(CompletableFuture::join).toList());
    }

    private static int answered(List<? extends Reply<?>> replies) {
        int n = 0;
        for (Reply<?> r : replies) {
            if (r.failure() == null) {
                n++;
            }
        }
        return n;
    }

    private RedlockQuorumException quorumLost(String command, String resource, List<? extends Reply<?>> replies) {
        StringBuilder failed = new StringBuilder();
        Throwable first = null;
        for (int i = 0; i < replies.size(); i++) {
            Throwable f = replies.get(i).failure();
            if (f != null) {
                first = first == null ? f : first;
                Throwable root = f.getCause() != null ? f.getCause() : f;
                failed.append(failed.length() == 0 ? "" : ", ").append(masters.describe(i)).append(" (")
                        .append(root.getMessage()).append(')');
            }
        }
        return new RedlockQuorumException(command, resource, answered(replies), quorum, masters.size(),
                failed.toString(), first);
    }
}
