package io.echomq.queue;

import io.echomq.RedisCommandException;
import io.echomq.internal.Checks;
import io.echomq.internal.LuaScript;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.Scripts;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The calls on one claimed attempt, each fenced by the attempt it was granted, and the codes
 * they answer ({@code docs/protocol.md}, "Queue codes").
 *
 * <ol>
 *   <li>Settles an attempt alone: complete ({@code complete-2.lua}), fail to a retry or to dead
 *       ({@code fail-4.lua}), return without spending it ({@code return-4.lua}).</li>
 *   <li>Keeps one going: extend leases, one call for many jobs ({@code extend-1.lua}), and
 *       record progress ({@code progress-1.lua}), store a result ({@code result-1.lua}).</li>
 *   <li>Turns the complete code {@link #NOT_A_HASH_CODE} (the job key holds another type)
 *       into the failure Redis itself would give ({@link #checkCompleteCode}), for claim-8's codes too.</li>
 *   <li>Reads what a settle leaves behind in the job's hash ({@link #settleTrace}), for a settle sent again
 *       after its first answer was lost ({@link SettleReadBack}).</li>
 * </ol>
 *
 * <p>They belong together because each sends a job's id and attempt and answers a fence code
 * that the job's settlement turns into its outcome; group commit goes through {@link Claims} instead.
 */
final class AttemptCalls {
    /** The complete code of claim-8 and complete-2 for a job key that holds another type than a hash. */
    static final long NOT_A_HASH_CODE = -5;

    private final long retainCompletedMs;
    private final int maxPayloadBytes;
    private final QueueWire wire;
    private final String[] completeKeys;
    private final String[] failKeys;
    private final String[] activeKey;
    private final String[] returnKeys;

    AttemptCalls(long retainCompletedMs, int maxPayloadBytes, QueueWire wire) {
        this.retainCompletedMs = retainCompletedMs;
        this.maxPayloadBytes = maxPayloadBytes;
        this.wire = wire;
        QueueKeys k = wire.keys();
        this.completeKeys = new String[] {k.active(), k.stats()};
        this.failKeys = new String[] {k.active(), k.delayed(), k.dead(), k.stats()};
        this.activeKey = new String[] {k.active()};
        this.returnKeys = new String[] {k.active(), k.pending(), k.wake(), k.waitList()};
    }

    /**
     * Completes one job alone.
     *
     * @return its complete code (1, or a negative lease code)
     * @throws RedisCommandException if Redis fails, or the job key holds another type
     */
    long complete(Attempt job) {
        List<Long> codes = wire.await(wire.run(Scripts.COMPLETE, ScriptOutputType.MULTI, completeKeys, wire.prefix(),
                QueueWire.num(retainCompletedMs), QueueWire.ONE, QueueWire.bytes(job.localId()),
                QueueWire.bytes(job.attemptText()), wire.publish()), Scripts.COMPLETE.label());
        return checkCompleteCode(job, codes.get(0), Scripts.COMPLETE);
    }

    /**
     * As {@link #checkCompleteCode} for a complete made by claim-8 (group commit, or complete and
     * claim the next).
     *
     * @throws RedisCommandException if {@code code} is {@link #NOT_A_HASH_CODE}
     */
    long checkClaimCompleteCode(Attempt job, long code) {
        return checkCompleteCode(job, code, Scripts.CLAIM);
    }

    /**
     * @param script the script that answered {@code code}, named in the failure
     * @return {@code code}, unless it says the job key is not a hash: then the failure, as Redis's own
     * @throws RedisCommandException if {@code code} is {@link #NOT_A_HASH_CODE}
     */
    long checkCompleteCode(Attempt job, long code, LuaScript script) {
        if (code == NOT_A_HASH_CODE) {
            throw new RedisCommandException(script.label(), wire.name(), new RedisCommandExecutionException(
                    "WRONGTYPE " + wire.keys().job(job.localId()) + " is not a hash; nothing of it was changed"));
        }
        return code;
    }

    /** @param delayMs the retry's exact delay in ms, or -1 to let the script use the job's backoff (an empty ARGV[7]) */
    long fail(Attempt job, String error, boolean retry, long delayMs) {
        byte[] jitter = Double.toString(ThreadLocalRandom.current().nextDouble()).getBytes(StandardCharsets.US_ASCII);
        byte[][] args = {wire.prefix(), QueueWire.bytes(job.localId()), QueueWire.bytes(job.attemptText()),
                QueueWire.bytes(error), jitter, retry ? QueueWire.ONE : QueueWire.ZERO,
                delayMs < 0 ? new byte[0] : QueueWire.num(delayMs), wire.publish()};
        List<Object> r = wire.await(wire.run(Scripts.FAIL, ScriptOutputType.MULTI, failKeys, args), Scripts.FAIL.label());
        return (Long) r.get(0);
    }

    /** @return one extend code per job, in order */
    List<Long> extend(long leaseMs, List<Attempt> jobs) {
        return wire.await(extendAsync(leaseMs, jobs), Scripts.EXTEND.label());
    }

    /** One extend-1 call for {@code jobs}, all of this queue: one code per job, in order. */
    CompletableFuture<List<Long>> extendAsync(long leaseMs, List<Attempt> jobs) {
        byte[][] args = new byte[2 + 2 * jobs.size()][];
        args[0] = wire.prefix();
        args[1] = QueueWire.num(leaseMs);
        for (int i = 0; i < jobs.size(); i++) {
            args[2 + 2 * i] = QueueWire.bytes(jobs.get(i).localId());
            args[3 + 2 * i] = QueueWire.bytes(jobs.get(i).attemptText());
        }
        return wire.run(Scripts.EXTEND, ScriptOutputType.MULTI, activeKey, args);
    }

    /** @throws IllegalArgumentException if progress is null or over the payload limit */
    long progress(Attempt job, byte[] progress) {
        Checks.notNull(progress, "progress");
        if (progress.length > maxPayloadBytes) {
            throw new IllegalArgumentException("progress is " + progress.length + " bytes; the limit is "
                    + maxPayloadBytes + " bytes");
        }
        return wire.<Long>await(wire.run(Scripts.PROGRESS, ScriptOutputType.INTEGER, activeKey, wire.prefix(),
                QueueWire.bytes(job.localId()), QueueWire.bytes(job.attemptText()), progress), Scripts.PROGRESS.label());
    }

    /**
     * @return true if stored; else false, and the job's lease is marked lost with the reason
     * @throws IllegalArgumentException if result is null or over {@link JobResult#MAX_BYTES}
     */
    boolean result(Attempt job, byte[] result, JobLease lease) {
        Checks.notNull(result, "result");
        if (result.length > JobResult.MAX_BYTES) {
            throw new IllegalArgumentException("a result is " + result.length + " bytes; the limit is "
                    + JobResult.MAX_BYTES + " bytes (a completed event carries it, and the stream keeps thousands)");
        }
        long code = wire.<Long>await(wire.run(Scripts.RESULT, ScriptOutputType.INTEGER, activeKey, wire.prefix(),
                QueueWire.bytes(job.localId()), QueueWire.bytes(job.attemptText()), result), Scripts.RESULT.label());
        if (code != 1) {
            lease.markLost(LeaseLossReason.ofCode(code));
        }
        return code == 1;
    }

    /**
     * Reads the fields a settle writes: one {@code HMGET} of the job's hash.
     *
     * @return {@code state}, {@code attempts} and {@code last_error}, each null when absent (all three when the
     *     hash is gone)
     * @throws RedisCommandException if Redis fails, or the job key holds another type
     */
    String[] settleTrace(Attempt job) {
        List<KeyValue<String, byte[]>> h = wire.await(wire.async().hmget(wire.keys().job(job.localId()), "state",
                "attempts", "last_error").toCompletableFuture(), "HMGET");
        String[] out = new String[3];
        for (int i = 0; i < out.length && i < h.size(); i++) {
            out[i] = h.get(i).hasValue() ? QueueWire.text(h.get(i).getValue()) : null;
        }
        return out;
    }

    long returnLease(Attempt job) {
        return returnLease(job, 0);
    }

    /** Returns the job and, when {@code holdMs} > 0, holds every claim of its queue that long (return-4's hold). */
    long returnLease(Attempt job, long holdMs) {
        return wire.<Long>await(wire.run(Scripts.RETURN, ScriptOutputType.INTEGER, returnKeys, wire.prefix(),
                QueueWire.bytes(job.localId()), QueueWire.bytes(job.attemptText()), wire.publish(),
                QueueWire.num(holdMs)), Scripts.RETURN.label());
    }
}
