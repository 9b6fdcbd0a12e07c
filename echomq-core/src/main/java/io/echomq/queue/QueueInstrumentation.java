package io.echomq.queue;

import io.echomq.internal.JobFieldNames;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The hook through which a metrics or tracing library watches queues and jobs. Every method has an
 * empty default, so an implementation overrides only what it records. Set one on a queue client's
 * builder: {@code QueueClient.builder().instrumentation(x)}. {@code io.echomq.observe.Instrumentation}
 * joins this hook and the lock's ({@code io.echomq.lock.LockInstrumentation}) in one type, the one
 * to implement to watch both; {@code echomq-micrometer} and {@code echomq-opentelemetry} are ready
 * implementations; {@code docs/observability.md} lists what each call means.
 *
 * <p><b>Cost when unused.</b> A client built without one holds {@link #NONE}, and each call site
 * checks one final boolean before it reads a clock or builds anything: nothing is allocated and no
 * extra clock is read on the job's path.
 *
 * <p><b>It cannot break a job.</b> The client calls an implementation through a guard: an exception
 * (or an {@link Error} other than a {@link VirtualMachineError}) thrown by any method is caught,
 * logged at WARN once per method of that implementation (later ones at DEBUG), and otherwise
 * ignored. The job is still settled.
 *
 * <p><b>Threads.</b> Calls arrive on the caller's thread, a handler's thread or a Lettuce
 * event-loop thread. Keep them quick, never block, never call Redis from them, and be thread-safe.
 *
 * <p><b>Cardinality.</b> The arguments name a queue (a sharded queue's name, never a partition's)
 * but never a job id, so that a metric tagged by them stays bounded. The trace calls
 * ({@link #enqueueStarting}, {@link #jobStarting}) do see job ids, for a span's attributes, never
 * for a metric's tags.
 *
 * <p><b>Trace context in the job hash.</b> A tracing implementation carries its context from the
 * enqueue to the handler in extra fields of the job's hash ({@code traceparent}, {@code tracestate}):
 * {@link #enqueueStarting} gives them, every job the call creates stores them, and a worker reads
 * back the fields named by {@link #jobFields()} with one {@code HMGET} per job before its handler
 * runs. Without instrumentation, or with one that gives no fields and names none, nothing is sent
 * or read: no extra byte, no extra command. {@code docs/protocol.md} documents the fields.
 */
public interface QueueInstrumentation {

    /** Most extra fields one enqueue call may add to each job's hash ({@link #enqueueStarting}). */
    int MAX_JOB_FIELDS = JobFieldNames.MAX_FIELDS;

    /** Most bytes (UTF-8 names and values together) of the extra fields one enqueue call adds to each job. */
    int MAX_JOB_FIELD_BYTES = JobFieldNames.MAX_FIELD_BYTES;

    /** The implementation that records nothing; what a client holds when none was set. */
    QueueInstrumentation NONE = new QueueInstrumentation() {
        @Override
        public String toString() {
            return "QueueInstrumentation.NONE";
        }
    };

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
