package io.echomq.queue;

import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;

/**
 * How one claimed {@link Attempt} is settled (completed, failed or returned), once, and the owner of its
 * {@link JobLease}: the public {@code Job} handle holds this record and delegates to it.
 *
 * <ol>
 *   <li>Grants the right to settle to the first settling call; any later one, even a concurrent one,
 *       throws {@link IllegalStateException}.</li>
 *   <li>Sends a call that got no answer again until the lease's deadline ({@link SettleRetry}), and reads the
 *       refusal of a repeated send back as our own earlier send where it was one ({@link SettleReadBack}).</li>
 *   <li>Gives the right back when Redis fails for good, so the outcome stays unknown and the call may be made
 *       again.</li>
 *   <li>Records the answer: the accepted outcome for a non-negative code, else
 *       {@link SettleOutcome#LEASE_LOST} ({@link SettleOutcome#CANCELLED} for a cancelled attempt),
 *       with the loss marked on the job's {@link JobLease}.</li>
 *   <li>Runs the settling calls of {@link Job}: complete, fail, return, and the two completes that carry a
 *       claim: {@link Job#completeAndClaimNext} (one script) and
 *       a worker's group commit through an {@link AckBatcher} ({@link #completeSent}, whose answer
 *       {@link #completed} takes).</li>
 *   <li>Keeps the error text of the fail call, for the worker's log line, and the instrumentation's
 *       handle of the attempt, for the thread that tells its settle.</li>
 * </ol>
 *
 * <p>Together because each path ends in the same once-only record, and the record is what
 * {@link Job#outcome()}, the lease's loss report and the lease keeper read. Thread-safe.
 */
final class JobSettlement {
    private final JobLine line;
    private final Attempt job;
    private final JobLease lease;
    // Plain volatile fields set through VarHandles rather than four atomic objects: a worker
    // creates one settlement per job, so each object saved is saved on every job processed.
    private static final VarHandle SETTLING = field("settling", boolean.class);
    private static final VarHandle TIMED_OUT = field("timedOut", boolean.class);
    private static final VarHandle TOLD = field("told", boolean.class);
    private volatile boolean settling;
    private volatile SettleOutcome settled;
    private volatile boolean timedOut;   // a worker's timeout fired
    private volatile boolean told;   // the worker counted and reported its settle
    private volatile String failText;
    private volatile Object observation;   // the instrumentation's handle of this attempt, or null

    /** The settlement of {@code attempt}, claimed on {@code line}, and its lease, counted from the claim. */
    JobSettlement(JobLine line, Attempt attempt) {
        this.line = line;
        this.job = attempt;
        this.lease = new JobLease(line.clock(), this::outcome, attempt.claimStartNanos(), attempt.leaseMs());
    }

    /** @return the lease belief of this attempt: its local deadline, its loss and its stop request */
    JobLease lease() {
        return lease;
    }

    private static VarHandle field(String name, Class<?> type) {
        try {
            return MethodHandles.lookup().findVarHandle(JobSettlement.class, name, type);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** @return the settling outcome, or null while the job is unsettled */
    SettleOutcome outcome() {
        return settled;
    }

    /** Marks the timeout fired. @return false if it was marked already */
    boolean markTimedOut() {
        return TIMED_OUT.compareAndSet(this, false, true);
    }

    /** @return whether the timeout fired for this attempt ({@link Job#timedOut}) */
    boolean timedOut() {
        return timedOut;
    }

    /** @return true for the first caller only: the one that counts and reports this job's settle */
    boolean markTold() {
        return TOLD.compareAndSet(this, false, true);
    }

    /** @return true once a settling call (complete, fail, return) has begun, even if its answer is not in */
    boolean started() {
        return settling;
    }

    /** @return the instrumentation's handle of this attempt ({@code QueueInstrumentation.jobStarting}), or null */
    Object observation() {
        return observation;
    }

    /** Keeps the instrumentation's handle of this attempt, for whichever thread tells its settle. */
    void observation(Object handle) {
        observation = handle;
    }

    /** @return the error text this attempt was failed with (as kept, truncated), or null before a fail call */
    String failText() {
        return failText;
    }

    /**
     * Runs one settling call: claims the right to settle; when Redis cannot be reached, sends it again until the
     * lease's deadline ({@link SettleRetry}), reading a refusal of a repeated send back with {@code readBack}; and
     * gives the right back if it never got through.
     */
    SettleOutcome settleWith(String what, LongFunction<SettleOutcome> accepted, LongSupplier call,
                             SettleReadBack.Check readBack) {
        checkUnsettled(what);
        long code;
        try {
            code = call.getAsLong();
        } catch (RuntimeException e) {
            code = retried(e, call, readBack);
        }
        return settle(accepted.apply(code), code);
    }

    /**
     * The answer of {@code call} sent again after {@code failure} ({@link SettleRetry#again}), a refusal read back
     * as our own earlier send where it was one.
     *
     * @throws RuntimeException the last failure, having given the right to settle back
     */
    private long retried(RuntimeException failure, LongSupplier call, SettleReadBack.Check readBack) {
        long code;
        try {
            code = SettleRetry.again(lease, failure, call);
        } catch (RuntimeException e) {
            settling = false;
            throw e;
        }
        return code < 0 ? readBack.code(line.attempts(), job, failText, code) : code;
    }

    /**
     * Fails the attempt with {@code error}, kept as {@link FailureText#kept} says.
     *
     * @param delayMs the retry's exact delay, or -1 for the job's own backoff
     */
    SettleOutcome fail(String error, boolean retry, long delayMs) {
        String kept = FailureText.kept(error);
        failText = kept;
        return settleWith("fail", code -> code == 3 ? SettleOutcome.DEAD : SettleOutcome.RETRYING,
                () -> line.attempts().fail(job, kept, retry, delayMs), SettleReadBack::fail);
    }

    /** See {@link Job#complete()}. */
    SettleOutcome complete() {
        return settleWith("complete", code -> SettleOutcome.COMPLETED, () -> line.attempts().complete(job),
                SettleReadBack::complete);
    }

    /** See {@link Job#returnLease()}. */
    SettleOutcome returnLease() {
        return settleWith("return", code -> SettleOutcome.RETURNED, () -> line.attempts().returnLease(job),
                SettleReadBack::returned);
    }

    /**
     * See {@link Job#completeAndClaimNext}; {@code leaseMs} is already checked.
     *
     * @return the attempt claimed next, on the same line, if any; the caller wraps it
     */
    Optional<Attempt> completeAndClaimNext(long leaseMs) {
        @SuppressWarnings("unchecked")
        Claimed<Attempt>[] box = new Claimed[1];
        settleWith("complete", code -> SettleOutcome.COMPLETED, () -> {
            box[0] = line.claims().claim(1, leaseMs, job, Function.identity());
            return line.attempts().checkClaimCompleteCode(job, box[0].completeCodes().get(0));
        }, SettleReadBack::complete);
        Claimed<Attempt> c = box[0];
        return c.jobs().isEmpty() ? Optional.empty() : Optional.of(c.jobs().get(0));
    }

    /**
     * Sends the job's complete through a worker's group commit, without waiting for its answer: the call may carry
     * other jobs' completes too. {@link #completed} takes the answer. From this call on the right to settle is
     * taken, so a timeout can no longer fail the job.
     *
     * @param claims how many jobs the call also claims for the job's run (0 for none)
     * @return the answer on its way; it fails when the call fails
     * @throws IllegalStateException if the job is already settled
     */
    CompletableFuture<AckBatcher.Answer> completeSent(AckBatcher batch, int claims) {
        checkUnsettled("complete");
        try {
            return batch.complete(job, claims);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Takes the answer of {@link #completeSent}, waiting for it if it is not in yet: this job's own code settles it
     * exactly as {@link Job#complete()} would. A call that failed is sent again alone, without a claim, as
     * {@link SettleRetry} says: the run then takes its next jobs from the worker's own claims.
     *
     * @return the answer: this job's ack code and the attempts claimed with it, if any. A code of
     *     {@link AttemptCalls#NOT_A_HASH_CODE} leaves the job unsettled; the caller reports it.
     * @throws io.echomq.RedisCommandException if the call and its sends again fail; the job stays unsettled
     */
    AckBatcher.Answer completed(CompletableFuture<AckBatcher.Answer> sent, AckBatcher batch) {
        AckBatcher.Answer answer;
        try {
            answer = RedisEngine.await(sent, Scripts.CLAIM.label(), line.name());
        } catch (RuntimeException e) {
            AckBatcher.Answer[] again = new AckBatcher.Answer[1];
            long code = retried(e, () -> {
                again[0] = RedisEngine.await(batch.complete(job, 0), Scripts.CLAIM.label(), line.name());
                return again[0].code();
            }, SettleReadBack::complete);
            answer = again[0] != null && code == again[0].code() ? again[0] : new AckBatcher.Answer(code, List.of(), 0);
        }
        if (answer.code() == AttemptCalls.NOT_A_HASH_CODE) {
            settling = false;
        } else {
            settle(SettleOutcome.COMPLETED, answer.code());
        }
        return answer;
    }

    /** Records the settling answer: {@code accepted} for a non-negative code, else the loss. */
    private SettleOutcome settle(SettleOutcome accepted, long code) {
        SettleOutcome out = accepted;
        if (code < 0) {
            LeaseLossReason reason = LeaseLossReason.ofCode(code);
            lease.markLost(reason);
            out = reason == LeaseLossReason.CANCELLED ? SettleOutcome.CANCELLED : SettleOutcome.LEASE_LOST;
        }
        settled = out;
        return out;
    }

    /** Claims the right to settle; a second settling call, even a concurrent one, throws. */
    private void checkUnsettled(String what) {
        if (!SETTLING.compareAndSet(this, false, true)) {
            SettleOutcome s = settled;
            throw new IllegalStateException("cannot " + what + " job " + line.idPrefix() + job.localId() + " of queue "
                    + line.name() + " (attempt " + job.attempt() + "): it is already "
                    + (s == null ? "being settled" : "settled as " + s));
        }
    }
}
