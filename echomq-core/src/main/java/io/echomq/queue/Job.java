package io.echomq.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One claimed job: its id, payload and the attempt it was granted, and the fenced calls that
 * settle it. Each call runs one script that checks, on the server, that this attempt is still the
 * job's current attempt, that the job is active, and that its lease has not run out; otherwise
 * it answers {@link SettleOutcome#LEASE_LOST} and changes nothing. So a worker that was paused past
 * its lease, and whose job was reaped and claimed again, can never complete or fail the newer
 * attempt.
 *
 * <p>A job is settled by its first accepted or refused {@link #complete()}, {@link #fail},
 * {@link #returnLease()}: later settling calls throw {@link IllegalStateException}.
 * {@link #extend} and {@link #progress} may be called any number of times before that.
 *
 * <p>Thread-safe. Calls block for one round trip and throw
 * {@link io.echomq.RedisCommandException} when Redis fails; the outcome is then unknown, and the
 * lease, if it was not extended, runs out and the reaper returns the job. A settling call that got
 * no answer is first sent again (after a short pause, doubling) while the lease is not lost and
 * its local deadline has not come; a repeat the server refuses because the first send was applied
 * counts as that send's outcome. Only then does it throw, the job unsettled.
 *
 * <p>Stopping: when the lease is lost (cancel and shutdown past its grace included) or the timeout
 * fires, a {@link Worker} asks the handler to stop through {@link #stopRequested()} and
 * {@link #stopSignal()}; it interrupts the handler's thread only when built with
 * {@link Worker.Builder#interruptHandlers(boolean)}, because an interrupt closes the socket under
 * a blocking call on a virtual thread, breaking a pooled connection the handler borrowed.
 *
 * <p>This class is the public handle. The lease belief (local deadline, loss, stop request)
 * is its package-private {@code JobLease}, the once-only settling record its {@code JobSettlement},
 * and the stored error text is shaped by {@code FailureText}; the worker's parts reach the first
 * two through {@code leaseState()} and {@code settlement()}.
 */
public final class Job {
    private final JobLine line;
    private final String id;
    private final Attempt granted;   // what the claim answered: id, payload, fence, timeout, lease
    private final JobSettlement settlement;   // the once-only settling record
    private final JobLease localLease;   // the local deadline and the loss
    private volatile Optional<Instant> scheduledFor;   // null until scheduledFor() first reads it

    /** The handle of {@code granted}, claimed on {@code line}; its local lease counts from the claim. */
    Job(JobLine line, Attempt granted) {
        this.line = line;
        this.id = line.idPrefix() + granted.localId();
        this.granted = granted;
        this.settlement = new JobSettlement(line, granted);
        this.localLease = settlement.lease();
    }

    /** @return the handle of {@code granted}, or null when there is none (the claim found no job) */
    static Job of(JobLine line, Attempt granted) {
        return granted == null ? null : new Job(line, granted);
    }

    /**
     * @return this job's place in the order this JVM decoded claims ({@link Attempt#decodeSeq}): a later claim, a
     *     larger number
     */
    long handleSeq() {
        return granted.decodeSeq();
    }

    /** @return the queue the job belongs to (for a partition of a sharded queue, the sharded queue's name) */
    public String queueName() {
        return line.logicalName();
    }

    /**
     * @return the job id, unique within its queue; in a sharded queue it names the partition too,
     *     as {@code <partition>-<id>}
     */
    public String id() {
        return id;
    }

    /** @return the id inside its own queue or partition: the one the scripts know */
    String localId() {
        return granted.localId();
    }

    /** @return the queue (or partition) whose scripts settle this job */
    JobLine line() {
        return line;
    }

    /** @return a copy of the payload bytes */
    public byte[] payload() {
        return granted.payload().clone();
    }

    /** @return the payload decoded as UTF-8 */
    public String payloadUtf8() {
        return new String(granted.payload(), StandardCharsets.UTF_8);
    }

    /** @return the attempt this claim was granted: the job's fence, 1 on the first claim */
    public long attempt() {
        return granted.attempt();
    }

    /** @return attempts spent against {@link #maxAttempts()}, this one included */
    public long spentAttempts() {
        return granted.spent();
    }

    /** @return attempts allowed before the job goes to dead */
    public long maxAttempts() {
        return granted.maxAttempts();
    }

    /**
     * @return the timeout the claim carried: the job's own ({@link EnqueueOptions#withTimeout}), else
     *     its queue's default ({@link QueueOperations#setDefaultTimeout}); empty for neither, when a
     *     worker applies its own, if any. A worker enforces it; a hand claimer may read it
     */
    public Optional<Duration> timeout() {
        long timeoutMs = granted.timeoutMs();
        return timeoutMs > 0 ? Optional.of(Duration.ofMillis(timeoutMs)) : Optional.empty();
    }

    /**
     * The fire time of a job a recurring schedule enqueued ({@link Schedules}): the instant the
     * schedule computed, not the moment it was enqueued or claimed. Read lazily, so the claim carries
     * nothing for it: the first call costs one round trip ({@code HGET} of the job hash's
     * {@code idem} field, the idempotency key {@code schedule:<id>:<fire time ms>} the schedule gave
     * it); later calls answer from memory. A job enqueued by hand with an idempotency key of that
     * form reads as scheduled too. If the job's hash is gone (the job was removed), it answers empty.
     *
     * @return the fire time, or empty for a job no schedule enqueued
     * @throws io.echomq.RedisCommandException if Redis fails on the first call (a later call reads again)
     */
    public Optional<Instant> scheduledFor() {
        Optional<Instant> known = scheduledFor;
        if (known == null) {
            QueueWire wire = line.wire();
            byte[] key = wire.await(wire.async().hget(wire.keys().job(granted.localId()), "idem").toCompletableFuture(),
                    "HGET idem");
            known = FireKey.fireTime(key == null ? null : new String(key, StandardCharsets.UTF_8));
            scheduledFor = known;
        }
        return known;
    }

    /** @return the lease this job was claimed (or last extended) with */
    public Duration lease() {
        return Duration.ofMillis(granted.leaseMs());
    }

    /**
     * Whether the lease is lost, decided at the call: true once a fenced call or a renewal was
     * refused, and true the moment the local deadline has passed (the claim, or the last
     * successful renewal, as sent on the client's {@link io.echomq.MonotonicClock}, + lease − 1% −
     * 2 ms), whether or not a renewal tick or answer has noticed yet. So a handler resumed after a
     * pause past its lease (a stop signal, a long GC) sees true at its first check, before it
     * writes.
     *
     * <p>Sticky: the first call that finds the deadline passed marks the job lost with
     * {@link LeaseLossReason#DEADLINE_PASSED} (the first reason wins) and requests its handler's
     * stop ({@link #stopSignal()}), as any loss does; a renewal answered later never revives it. A job settled cleanly
     * (completed, failed, returned) is not lost: its lease simply ended.
     *
     * @return true once the lease is lost. A handler that sees true should stop: another worker
     *     may own the job, and its result is not kept (a worker does not complete a job whose
     *     loss it has seen; the fence refuses stale calls in any case)
     */
    public boolean leaseLost() {
        return localLease.checkDeadline(localLease.nowNanos());
    }

    /**
     * As {@link io.echomq.lock.Lease#isHeld()}: whether the handler may still act under this lease.
     * Decided at the call on the monotonic clock, so it answers false after a pause past the local
     * deadline even before any renewal tick has run; finding the deadline passed marks the job
     * lost, as {@link #leaseLost()} does. A local belief only: fence your writes with
     * {@link #attempt()} for certainty.
     *
     * @return true while the job is not settled, not lost, and before its local deadline
     */
    public boolean isHeld() {
        return !localLease.checkDeadline(localLease.nowNanos()) && settlement.outcome() == null;
    }

    /**
     * As {@link io.echomq.lock.Lease#remaining()}: how long the lease may still be relied on.
     *
     * @return the time to the local deadline; zero once the job is settled, lost or past its
     *     deadline (which then marks it lost, as {@link #isHeld()} does)
     */
    public Duration remaining() {
        long now = localLease.nowNanos();
        if (localLease.checkDeadline(now) || settlement.outcome() != null) {
            return Duration.ZERO;
        }
        long left = localLease.deadlineNanos() - now;
        return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    /**
     * @return why the lease was lost, or empty while it is believed held; decided at the call, as
     *     {@link #leaseLost()}
     */
    public Optional<LeaseLossReason> lossReason() {
        localLease.checkDeadline(localLease.nowNanos());
        return Optional.ofNullable(localLease.reason());
    }

    /**
     * Whether an operator cancelled this attempt ({@link QueueOperations#cancel(String)}), as far
     * as this process has learnt: by a worker's cancel message or lease renewal, or by a refused
     * call of this job. A handler that sees true should stop; {@link #stopRequested()} is true too.
     *
     * @return true once the loss is known to be {@link LeaseLossReason#CANCELLED}; no clock is read
     */
    public boolean cancelled() {
        return localLease.reason() == LeaseLossReason.CANCELLED;
    }

    /**
     * Whether the timeout fired for this attempt (the job's own, its queue's default or the
     * worker's {@link Worker.Builder#timeout}, as {@link JobTimeoutException} says): its
     * handler is asked to stop ({@link #stopRequested()}, {@link #stopSignal()}; interrupted only
     * when the worker was built to), and the worker fails the job with a
     * {@link JobTimeoutException} (unless the handler's own settle had begun first). A handler
     * that sees true should stop: whatever it returns or settles later is not kept. The lease is
     * not lost by a timeout; {@link #leaseLost()} stays false.
     *
     * @return true once the timeout fired; no clock is read
     */
    public boolean timedOut() {
        return settlement.timedOut();
    }

    /**
     * @return a future completed with the reason when the lease is lost; never completed otherwise.
     *     It completes when the loss is seen: by a refused call, by a worker's renewal tick, or by
     *     a call of {@link #leaseLost()}, {@link #isHeld()}, {@link #remaining()} or
     *     {@link #lossReason()} after the local deadline
     */
    public CompletableFuture<LeaseLossReason> lost() {
        return localLease.lostFuture().copy();
    }

    /**
     * Whether the worker asks this job's handler to stop: its lease is lost (a refused renewal or
     * call, its local deadline passed, an operator's {@link QueueOperations#cancel cancel}, or a
     * shutdown that gave the lease back after its grace), or its timeout fired. Decided at the call,
     * as {@link #leaseLost()}. Once true, stays true.
     *
     * <p>A worker does not interrupt the handler's thread by default (see
     * {@link Worker.Builder#interruptHandlers(boolean)}): this request, and {@link #stopSignal()}, are
     * how the handler learns that it should stop. Whatever it does afterwards is not kept: the
     * worker has settled the job (failed it at a timeout) or will not settle it (a loss), and any
     * later {@link #complete()} or {@link #fail} of this attempt is refused by the server's fence.
     *
     * @return true once a stop was requested
     */
    public boolean stopRequested() {
        return localLease.isStopRequested() || leaseLost();
    }

    /**
     * A future completed when the worker asks this job's handler to stop ({@link #stopRequested()}
     * turns true from a loss or a timeout); never completed otherwise. Attach what ends the
     * handler's blocking work without breaking what it borrowed, for example
     * {@code job.stopSignal().thenRun(() -> cancelQuietly(statement))} to cancel a JDBC statement
     * on the server, while its connection stays whole and goes back to its pool.
     *
     * <p>It completes on a thread of a small shared pool of daemon threads, never on a Redis
     * connection's or the worker's own threads, shortly after the stop; its dependent actions run
     * there, one thread each while they block, so they may block briefly. A loss seen only by the
     * clock (a pause past the deadline) completes it when a renewal tick or a call of
     * {@link #stopRequested()}, {@link #leaseLost()} or {@link #isHeld()} sees it. Completing the
     * returned copy does not complete the original.
     *
     * @return a copy of the stop request's future, completed with null
     */
    public CompletableFuture<Void> stopSignal() {
        return localLease.stopFuture().copy();
    }

    /** @return the settling outcome, or empty while the job is unsettled */
    public Optional<SettleOutcome> outcome() {
        return Optional.ofNullable(settlement.outcome());
    }

    /** @return true once complete, fail or returnLease has answered */
    public boolean isSettled() {
        return settlement.outcome() != null;
    }

    /**
     * Completes the job: removes it from active, drops its lock subkey (ZSET layout), and marks it
     * done.
     *
     * @return {@link SettleOutcome#COMPLETED}, or {@link SettleOutcome#LEASE_LOST}
     * @throws IllegalStateException if the job is already settled
     * @throws io.echomq.ProtocolVersionException if the queue's data needs a later wire protocol;
     *     nothing was changed
     * @throws io.echomq.RedisCommandException if Redis still fails when sent again until the lease's deadline
     */
    public SettleOutcome complete() {
        return settlement.complete();
    }

    /**
     * Completes the job and claims the next one in the same round trip (for a job of a sharded
     * queue, from the job's own partition).
     *
     * @param lease the lease of the next job
     * @return the next job, or empty when none is pending; {@link #outcome()} holds this job's answer
     * @throws IllegalArgumentException if the lease is invalid
     * @throws IllegalStateException if the job is already settled
     * @throws io.echomq.RedisCommandException if Redis still fails when sent again until the lease's deadline
     */
    public Optional<Job> completeAndClaimNext(Duration lease) {
        return settlement.completeAndClaimNext(QueueLimits.leaseMillis(lease)).map(next -> new Job(line, next));
    }

    /**
     * Fails this attempt with {@code error}: a retry after the backoff, or dead once the attempts
     * are spent.
     *
     * @param error the error to keep, truncated to 16 KiB characters; null becomes empty
     * @return {@link SettleOutcome#RETRYING}, {@link SettleOutcome#DEAD} or {@link SettleOutcome#LEASE_LOST}
     * @throws IllegalStateException if the job is already settled
     * @throws io.echomq.RedisCommandException if Redis still fails when sent again until the lease's deadline
     */
    public SettleOutcome fail(String error) {
        return settlement.fail(error, true, -1);
    }

    /**
     * Fails this attempt with the stack trace of {@code error}.
     *
     * @return as {@link #fail(String)}; a {@link NonRetryableException} goes to dead at once, and a
     *         {@link RetryAfterException} retries after its delay (attempts left permitting)
     * @throws IllegalStateException if the job is already settled
     * @throws io.echomq.RedisCommandException if Redis still fails when sent again until the lease's deadline
     */
    public SettleOutcome fail(Throwable error) {
        return fail(error, null);
    }

    /** Fails this attempt as {@code policy} and the handler's own signal decide ({@link RetryDecision}). */
    SettleOutcome fail(Throwable error, RetryPolicy policy) {
        RetryDecision d = RetryDecision.of(error, policy, spentAttempts());
        return settlement.fail(FailureText.stackTrace(error), d.retry(), d.delayMs());
    }

    /**
     * Fails this attempt and sends the job to dead at once, whatever attempts are left.
     *
     * @return {@link SettleOutcome#DEAD} or {@link SettleOutcome#LEASE_LOST}
     * @throws IllegalStateException if the job is already settled
     * @throws io.echomq.RedisCommandException if Redis still fails when sent again until the lease's deadline
     */
    public SettleOutcome failWithoutRetry(String error) {
        return settlement.fail(error, false, -1);
    }

    /**
     * Renews the lease to the server's now plus {@code lease}: the active score and the lock
     * subkey move together. Never revives a lease that has run out. A {@link Worker} does this by
     * itself at a third of the lease; manual claimers call it. A lease already known to be lost
     * (see {@link #leaseLost()}) is not sent at all and answers {@code false}.
     *
     * @return true if the lease now ends at the server's now plus {@code lease}; false if it is
     *     lost, and {@link #lossReason()} says why
     * @throws IllegalArgumentException if the lease is invalid
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public boolean extend(Duration lease) {
        long ms = QueueLimits.leaseMillis(lease);
        if (localLease.isLost()) {
            return false;   // sticky: a lost lease is never renewed
        }
        long start = line.clock().nanoTime();
        long code = line.attempts().extend(ms, java.util.List.of(granted)).get(0);
        return localLease.onExtended(code, start, ms);
    }

    /**
     * Stores {@code progress} in the job hash's {@code progress} field.
     *
     * @return true if the value was stored; false if the lease is lost, and {@link #lossReason()}
     *     says why
     * @throws IllegalArgumentException if progress is null or over the payload limit
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public boolean progress(byte[] progress) {
        long code = line.attempts().progress(granted, progress);
        if (code == 1) {
            return true;
        }
        localLease.markLost(LeaseLossReason.ofCode(code));
        return false;
    }

    /**
     * As {@link #progress(byte[])} with UTF-8 text.
     *
     * @return true if the value was stored; false if the lease is lost
     * @throws IllegalArgumentException if progress is null or over the payload limit
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public boolean progress(String progress) {
        return progress(progress == null ? null : progress.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Stores this attempt's result, at most {@link JobResult#MAX_BYTES}; its completed event
     * carries it to {@link QueueOperations#awaitResult}, and the job keeps it while it is kept.
     *
     * @return true if stored; false if the lease is lost ({@link #lossReason()} says why)
     * @throws IllegalArgumentException if result is null or over the limit
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public boolean result(byte[] result) {
        return line.attempts().result(granted, result, localLease);
    }

    /**
     * Gives the lease back without spending the attempt: the job returns to pending at its old
     * place. Used by graceful shutdown.
     *
     * @return {@link SettleOutcome#RETURNED} or {@link SettleOutcome#LEASE_LOST}
     * @throws IllegalStateException if the job is already settled
     * @throws io.echomq.RedisCommandException if Redis still fails when sent again until the lease's deadline
     */
    public SettleOutcome returnLease() {
        return settlement.returnLease();
    }

    // ----- package-private plumbing for Queue and Worker -----

    String attemptText() {
        return granted.attemptText();
    }

    /** @return the attempt as the claim granted it, which the parts below this handle work on */
    Attempt granted() {
        return granted;
    }

    /**
     * @return the client's belief about this job's lease: the local deadline, the sticky loss, the
     *     stop request and the loss report (for the worker's parts)
     */
    JobLease leaseState() {
        return localLease;
    }

    /** @return the once-only settling record, and the group-commit path (for the worker's runner) */
    JobSettlement settlement() {
        return settlement;
    }

    @Override
    public String toString() {
        return "Job[" + line.name() + "/" + id + " attempt " + granted.attempt() + "]";
    }
}
