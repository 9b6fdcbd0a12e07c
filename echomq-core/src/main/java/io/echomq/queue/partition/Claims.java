package io.echomq.queue;

import io.echomq.MonotonicClock;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongConsumer;

/**
 * The claim of one queue (or one partition): {@code claim-8.lua}, which completes, promotes and
 * claims in one atomic call.
 *
 * <ol>
 *   <li>Encodes a call ({@link #settleAsync}): up to {@link #MAX_COMPLETES} completes, each
 *       fenced by its own attempt; then a promotion of at most {@link #PROMOTE_PER_CLAIM} due
 *       jobs and a claim of up to {@code n} jobs (neither when {@code n} is 0).</li>
 *   <li>Decodes the reply into a {@link Claimed}: one complete code per job completed, the
 *       earliest due time, the malformed jobs moved to dead, and the jobs claimed, each an
 *       {@link Attempt} with the timeout the script found for it (its own, else its queue's default),
 *       handed to the caller's wrapper as it is decoded. Each job's local lease counts from the clock
 *       reading taken before the call was sent; each first claim's wait goes to the client's
 *       instrumentation.</li>
 * </ol>
 *
 * <p>One class for both directions because the reply's layout follows the call's: k codes for k
 * completes, then seven values per job claimed. Its callers are a partition's claims (a hand claim and
 * a worker's {@code Dispatcher}, each attempt wrapped in the public {@code Job} handle), a settlement's
 * complete-and-claim-next and a worker's group commit; it never names the handle, which sits a layer
 * above it.
 */
final class Claims {
    /** Due delayed jobs promoted by each claim call. */
    static final int PROMOTE_PER_CLAIM = 100;
    /** Most completes one call carries: the bound of a worker's group commit. */
    static final int MAX_COMPLETES = 256;

    private final MonotonicClock clock;
    private final long retainCompletedMs;
    private final QueueWire wire;
    private final LongConsumer claimWaits;   // null: nobody listens

    Claims(MonotonicClock clock, long retainCompletedMs, QueueWire wire, LongConsumer claimWaits) {
        this.clock = clock;
        this.retainCompletedMs = retainCompletedMs;
        this.wire = wire;
        this.claimWaits = claimWaits;
    }

    /**
     * Claims up to {@code n} jobs and, first, completes {@code complete} when it is not null.
     *
     * @param wrap what each claimed attempt is given as, applied in the reply's order
     */
    <J> Claimed<J> claim(int n, long leaseMs, Attempt complete, Function<Attempt, J> wrap) {
        return wire.await(settleAsync(complete == null ? List.of() : List.of(complete), n, leaseMs, wrap),
                Scripts.CLAIM.label());
    }

    /**
     * One claim of up to {@code n} jobs, completing none.
     *
     * @param wrap what each claimed attempt is given as, applied in the reply's order
     */
    <J> CompletableFuture<Claimed<J>> claimAsync(int n, long leaseMs, Function<Attempt, J> wrap) {
        return settleAsync(List.of(), n, leaseMs, wrap);
    }

    /**
     * One claim-8 call: completes {@code completes} (at most {@link #MAX_COMPLETES}, each fenced
     * by its own attempt), then promotes and claims up to {@code n} jobs (no promotion when
     * {@code n} is 0).
     *
     * @param wrap what each claimed attempt is given as, applied in the reply's order
     * @throws IllegalArgumentException if there are more than {@link #MAX_COMPLETES} completes
     */
    <J> CompletableFuture<Claimed<J>> settleAsync(List<Attempt> completes, int n, long leaseMs,
                                                  Function<Attempt, J> wrap) {
        long start = clock.nanoTime();
        return send(n, leaseMs, n > 0 ? PROMOTE_PER_CLAIM : 0, completes)
                .thenApply(r -> decode(r, leaseMs, start, wrap));
    }

    private CompletableFuture<List<Object>> send(int n, long leaseMs, int promote, List<Attempt> completes) {
        if (completes.size() > MAX_COMPLETES) {
            throw new IllegalArgumentException("at most " + MAX_COMPLETES + " completes per call, was "
                    + completes.size());
        }
        byte[][] args = new byte[7 + 2 * completes.size()][];
        args[0] = wire.prefix();
        args[1] = QueueWire.num(leaseMs);
        args[2] = QueueWire.num(n);
        args[3] = QueueWire.num(promote);
        args[4] = QueueWire.num(retainCompletedMs);
        args[5] = wire.publish();
        args[6] = QueueWire.num(completes.size());
        for (int i = 0; i < completes.size(); i++) {
            Attempt job = completes.get(i);
            args[7 + 2 * i] = QueueWire.bytes(job.localId());
            args[8 + 2 * i] = QueueWire.bytes(job.attemptText());
        }
        return wire.run(Scripts.CLAIM, ScriptOutputType.MULTI, wire.keys().claimKeys(), args);
    }

    @SuppressWarnings("unchecked")
    private <J> Claimed<J> decode(List<Object> r, long leaseMs, long start, Function<Attempt, J> wrap) {
        List<J> jobs = new ArrayList<>((r.size() - 4) / 7);
        for (int i = 4; i + 6 < r.size(); i += 7) {
            jobs.add(wrap.apply(new Attempt(QueueWire.text(r.get(i)), (byte[]) r.get(i + 1), (Long) r.get(i + 2),
                    (Long) r.get(i + 3), (Long) r.get(i + 4), (Long) r.get(i + 6), leaseMs, start)));
            if (claimWaits != null) {
                claimWaits.accept((Long) r.get(i + 5));
            }
        }
        return new Claimed<>((List<Long>) r.get(0), (Long) r.get(1), (Long) r.get(2), jobs);
    }
}
