package io.echomq;

import io.echomq.lock.Lease;
import io.echomq.lock.LossReason;
import io.echomq.queue.EnqueueResult;
import io.echomq.queue.Job;
import io.echomq.queue.SettleOutcome;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The hook through which a metrics or tracing library watches locks and queues. Every method has
 * an empty default, so an implementation overrides only what it records. Set one on a client's
 * builder: {@code LockClient.builder().instrumentation(x)}, the same on
 * {@code RedlockClient.builder()}, and {@code QueueClient.builder().instrumentation(x)}.
 * {@code echomq-micrometer} is the ready implementation; {@code docs/observability.md} lists what
 * each call means.
 *
 * <p><b>Cost when unused.</b> A client built without one holds {@link #NONE}, and each call site
 * checks one final boolean before it reads a clock or builds anything: nothing is allocated and no
 * extra clock is read on the lock's or the job's path.
 *
 * <p><b>It cannot break a lock or a job.</b> The clients call an implementation through a guard:
 * an exception (or an {@link Error} other than a {@link VirtualMachineError}) thrown by any method
 * is caught, logged at WARN once per method of that implementation (later ones at DEBUG), and
 * otherwise ignored. The lock is still granted, released or renewed, the job still settled.
 *
 * <p><b>Threads.</b> Calls arrive on the caller's thread, a handler's thread, the watchdog's or a
 * Lettuce event-loop thread. Keep them quick, never block, never call Redis from them, and be
 * thread-safe.
 *
 * <p><b>Cardinality.</b> The arguments name a queue (a sharded queue's name, never a partition's)
 * but never a job id or a lock's resource, so that a metric tagged by them stays bounded. The
 * {@link Lease} passed to {@link #leaseHeld} is for tracking only: read {@link Lease#isHeld()},
 * not its resource, for a tag. The trace calls ({@link #enqueueStarting}, {@link #jobStarting})
 * do see job ids, for a span's attributes, never for a metric's tags.
 *
 * <p><b>Trace context in the job hash.</b> A tracing implementation carries its context from the
 * enqueue to the handler in extra fields of the job's hash ({@code traceparent}, {@code tracestate}):
 * {@link #enqueueStarting} gives them, every job the call creates stores them, and a worker reads
 * back the fields named by {@link #jobFields()} with one {@code HMGET} per job before its handler
 * runs. Without instrumentation, or with one that gives no fields and names none, nothing is sent
 * or read: no extra byte, no extra command. {@code docs/protocol.md} documents the fields.
 */
public interface Instrumentation {

    /** Which kind of lock a call was about. */
    enum LockMode {
        /** {@code SET NX PX}, no fence ({@code AcquireOptions.plain()}). */
        PLAIN,
        /** The fenced acquire of {@code LockClient}, the default. */
        FENCED,
        /** Any acquire of {@code RedlockClient}, over N masters. */
        REDLOCK
    }

    /** How one call of {@code tryAcquire} or {@code acquire} ended. */
    enum AcquireOutcome {
        /** A lease was granted. */
        ACQUIRED,
        /** {@code tryAcquire} found the lock held (or, on Redlock, no quorum granted it). */
        BUSY,
        /** {@code acquire} waited its whole {@code maxWait} ({@code LockWaitTimeoutException}). */
        TIMED_OUT,
        /** Redis failed, too few replicas acknowledged, or the waiting thread was interrupted. */
        ERROR
    }

    /** How one renewal of a lease ended, by hand or by the watchdog. */
    enum RenewalResult {
        /** The server renewed it. */
        RENEWED,
        /** The server refused it: the lock was gone or held under another token; the lease is lost. */
        REFUSED,
        /** Redis failed; the outcome is unknown (the watchdog retries until the deadline). */
        ERROR
    }

    /** Most extra fields one enqueue call may add to each job's hash ({@link #enqueueStarting}). */
    int MAX_JOB_FIELDS = 8;

    /** Most bytes (UTF-8 names and values together) of the extra fields one enqueue call adds to each job. */
    int MAX_JOB_FIELD_BYTES = 2048;

    /** The implementation that records nothing; what a client holds when none was set. */
    Instrumentation NONE = new Instrumentation() {
        @Override
        public String toString() {
            return "Instrumentation.NONE";
        }
    };

    // ------------------------------------------------------------------ locks

    /**
     * One {@code tryAcquire} or {@code acquire} call ended (its asynchronous form: when its
     * future completed). Arguments rejected before Redis was touched are not reported.
     *
     * @param mode the kind of lock
     * @param outcome how it ended
     * @param nanos the call's time on the client's clock, waiting included
     */
    default void lockAcquire(LockMode mode, AcquireOutcome outcome, long nanos) {
    }

    /**
     * A lease was granted and is now held. The value returned is handed back to
     * {@link #leaseEnded} when the lease is released or lost; return {@code null} to hear nothing
     * then. A lease whose holder neither releases it nor asks about it ends, as far as the client
     * knows, only at its local deadline, and no call reports that: an implementation that tracks
     * held leases should drop those for which {@link Lease#isHeld()} turned false.
     *
     * @param mode the kind of lock
     * @param lease the lease, for tracking only (never use its resource or token as a tag)
     * @return a handle for {@link #leaseEnded}, or null
     */
    default Object leaseHeld(LockMode mode, Lease lease) {
        return null;
    }

    /**
     * A lease for which {@link #leaseHeld} returned {@code handle} was released or lost. Called
     * once per lease.
     *
     * @param handle what {@link #leaseHeld} returned, never null
     */
    default void leaseEnded(Object handle) {
    }

    /**
     * A lease was lost: a renewal or release found it gone or taken, or its local deadline
     * passed. Once per lease, before {@link #leaseEnded}.
     *
     * @param mode the kind of lock
     * @param reason why
     */
    default void leaseLost(LockMode mode, LossReason reason) {
    }

    /**
     * A renewal of a held lease was answered (by hand, {@code Lease.renew}, or by the watchdog).
     * A renewal refused locally, because the lease was already lost or past its deadline, sends
     * nothing and is not reported.
     *
     * @param mode the kind of lock
     * @param result how it ended
     */
    default void leaseRenewal(LockMode mode, RenewalResult result) {
    }

    // ------------------------------------------------------------------ queues

    /**
     * Jobs were added to {@code queue} by one enqueue call (a duplicate idempotency key adds
     * nothing and is not counted). Called once per call that created at least one job.
     *
     * @param queue the queue's name
     * @param count how many jobs were created, at least 1
     */
    default void jobsEnqueued(String queue, int count) {
    }

    /**
     * A job was claimed for its first attempt, {@code millis} after it was enqueued, both on the
     * server's clock (the job's {@code created_at}). Not reported: later attempts, whose wait
     * would include the earlier ones; jobs enqueued with a delay or a run-at time, whose wait
     * would include the delay; jobs without {@code created_at} (older clients, other producers).
     *
     * @param queue the queue's name
     * @param millis the wait in milliseconds, never negative
     */
    default void jobWaited(String queue, long millis) {
    }

    /**
     * A worker settled a job it ran: once per attempt, after the server answered, before the
     * worker's {@code WorkerListener.onSettled}.
     *
     * @param queue the queue's name
     * @param outcome how the attempt was settled
     * @param nanos from the start of the handler to the server's answer, on the client's clock
     */
    default void jobSettled(String queue, SettleOutcome outcome, long nanos) {
    }

    /**
     * A timeout (the job's own, its queue's default or the worker's) ended an attempt: the worker
     * interrupted its handler and failed it. Called once per such attempt, just before
     * {@link #jobSettled} reports the same attempt with the same outcome.
     *
     * @param queue the queue's name
     * @param outcome how the timed-out attempt was settled: {@code RETRYING} or {@code DEAD}
     */
    default void jobTimedOut(String queue, SettleOutcome outcome) {
    }

    /**
     * A reap (a worker's maintenance or {@code Queue.reap}) returned expired leases: some to
     * pending, the others, whose attempts were spent, to dead. Called only when it moved any.
     *
     * @param queue the queue's name
     * @param returned how many went back to pending
     * @param dead how many went to dead
     */
    default void leasesReaped(String queue, long returned, long dead) {
    }

    // ------------------------------------------------------------------ traces

    /**
     * An enqueue call is about to send {@code count} jobs to {@code queue}, on the caller's
     * thread (its arguments were checked; a call refused before Redis is touched is not reported).
     * Each {@code fields.accept(name, value)} adds a field that every job this call creates
     * stores in its hash, written by the same atomic script as the job. A job that a duplicate
     * idempotency key maps to an existing one is not written to. Jobs a schedule fires are not
     * reported.
     *
     * <p>A name is 1 to 64 characters of {@code a-z}, {@code 0-9}, {@code _} and {@code -},
     * starting with a letter, and is none of the fields the protocol itself gives a job hash
     * ({@code payload}, {@code state}, {@code attempts}, … as listed in {@code docs/protocol.md});
     * at most {@link #MAX_JOB_FIELDS} fields of at most {@link #MAX_JOB_FIELD_BYTES} bytes in all
     * (the value of a name given twice is replaced). {@code fields.accept} throws
     * {@link IllegalArgumentException} for a bad name, a null value or a field past a bound; like
     * anything this method throws, that is caught and logged, and the call then enqueues its jobs
     * with no extra field. {@code fields} is valid only during this call.
     *
     * @param queue the queue's name
     * @param count how many jobs the call sends, at least 1
     * @param fields takes the extra fields
     * @return a handle for {@link #enqueueEnded}, or null to hear nothing more of this call
     */
    default Object enqueueStarting(String queue, int count, BiConsumer<String, String> fields) {
        return null;
    }

    /**
     * The enqueue call for which {@link #enqueueStarting} returned {@code handle} ended, on the
     * caller's thread: with one result per job sent, or with the exception it throws to its caller.
     *
     * @param handle what {@link #enqueueStarting} returned, never null
     * @param results one per job, in order (ids as the caller sees them), or null when it failed
     * @param error null, or what the call throws ({@code RedisCommandException} and the like)
     */
    default void enqueueEnded(Object handle, List<EnqueueResult> results, Throwable error) {
    }

    /**
     * Names the job hash fields a worker reads, with one {@code HMGET} per job, before each job's
     * handler runs, for {@link #jobStarting}. Asked once, when the client is built; names that break
     * the rules of {@link #enqueueStarting} are dropped (logged). Empty, the default, reads nothing.
     *
     * @return the field names, for example {@code traceparent} and {@code tracestate}
     */
    default Set<String> jobFields() {
        return Set.of();
    }

    /**
     * A worker is about to run {@code job}'s handler, on the thread that will run it. What this
     * thread holds when it returns (a tracing context made current) is what the handler sees;
     * {@link #handlerReturned} follows on the same thread.
     *
     * @param queue the queue's name
     * @param job the job (its id and attempt for a span's attributes; do not settle it here)
     * @param fields the fields of {@link #jobFields()} that the job's hash holds (absent ones are
     *     missing; a failed read gives an empty map, logged at DEBUG)
     * @return a handle for {@link #handlerReturned} and {@link #jobEnded}, or null
     */
    default Object jobStarting(String queue, Job job, Map<String, String> fields) {
        return null;
    }

    /**
     * The handler of a job for which {@link #jobStarting} returned {@code handle} returned or threw,
     * on its own thread: undo here what {@link #jobStarting} bound to the thread.
     *
     * @param handle what {@link #jobStarting} returned, never null
     * @param error what the handler threw, or null
     */
    default void handlerReturned(Object handle, Throwable error) {
    }

    /**
     * The attempt for which {@link #jobStarting} returned {@code handle} was settled, right after
     * {@link #jobSettled}, on the handler's thread or the thread of the worker's timeout; or its
     * settle failed (Redis did not answer, {@code outcome} null: its lease runs out and the reaper
     * returns it). Called at most once per attempt, and never for a worker that was abandoned
     * (as a killed process would be).
     *
     * @param handle what {@link #jobStarting} returned, never null
     * @param outcome how the attempt was settled, or null when its settle failed
     * @param error what the handler threw (or the timeout, or the failed settle), or null
     */
    default void jobEnded(Object handle, SettleOutcome outcome, Throwable error) {
    }
}
