package io.echomq.queue;

import io.echomq.internal.QueueKeys;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The two sweeps of one queue (or one partition) that move jobs whose time has come, on the
 * server's clock, a bounded batch per call.
 *
 * <ol>
 *   <li>Reap ({@code reap-5.lua}): expired leases back to pending, or to dead when their attempts
 *       are spent ({@link #reapAsync}, {@link #reap}).</li>
 *   <li>Promote ({@code promote-5.lua}): due delayed jobs (delays, run-at times, retry backoffs)
 *       to pending ({@link #promoteAsync}, {@link #promote}).</li>
 * </ol>
 *
 * <p>Together because they are what a worker's {@link Maintenance} runs, and what an operator
 * runs by hand; a {@link ShardedQueue} sums them over its partitions. Limits are checked by the
 * callers.
 */
final class Sweeps {
    private final QueueWire wire;
    private final String[] reapKeys;
    private final String[] promoteKeys;
    private final QueueObservations observations;

    Sweeps(QueueWire wire, QueueObservations observations) {
        this.wire = wire;
        this.observations = observations;
        QueueKeys k = wire.keys();
        this.reapKeys = new String[] {k.active(), k.pending(), k.dead(), k.wake(), k.waitList()};
        this.promoteKeys = new String[] {k.pending(), k.delayed(), k.seq(), k.wake(), k.waitList()};
    }

    /** One reap-5 call: {returned, dead}; its moves are reported to the client's instrumentation. */
    CompletableFuture<List<Object>> reapAsync(int limit) {
        CompletableFuture<List<Object>> f = wire.run(Scripts.REAP, ScriptOutputType.MULTI, reapKeys, wire.prefix(),
                QueueWire.num(limit), wire.publish());
        if (!observations.observed()) {
            return f;
        }
        return f.thenApply(reply -> {
            observations.reaped((Long) reply.get(0), (Long) reply.get(1));
            return reply;
        });
    }

    ReapResult reap(int limit) {
        return result(wire.await(reapAsync(limit), Scripts.REAP.label()));
    }

    /** @return the reply of reap-5 as a result */
    static ReapResult result(List<Object> reaped) {
        return new ReapResult((Long) reaped.get(0), (Long) reaped.get(1));
    }

    /** One promote-5 call: {promoted, next_due_ms}. */
    CompletableFuture<List<Object>> promoteAsync(int limit) {
        return wire.run(Scripts.PROMOTE, ScriptOutputType.MULTI, promoteKeys, wire.prefix(),
                QueueWire.num(limit), wire.publish());
    }

    /** @return how many jobs were promoted */
    long promote(int limit) {
        return promoted(wire.await(promoteAsync(limit), Scripts.PROMOTE.label()));
    }

    /** @return the number promoted in a reply of promote-5 */
    static long promoted(List<Object> reply) {
        return (Long) reply.get(0);
    }
}
