package io.echomq.queue;

import io.echomq.internal.Checks;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * One named job queue: enqueue, claim under a lease, and the operator's calls (stats, reap,
 * promote, remove, dead letters). Every state change is one Lua script on the server, on the
 * server's clock; see {@code docs/protocol.md} for the keys and {@code docs/queue.md} for usage.
 *
 * <pre>{@code
 * Queue emails = client.queue("emails");
 * String id = emails.enqueue("{\"to\":\"ada@example.com\"}");
 * Optional<Job> job = emails.claim(Duration.ofSeconds(30));
 * job.ifPresent(j -> { send(j.payloadUtf8()); j.complete(); });
 * }</pre>
 *
 * <p>Obtained from {@link QueueClient#queue(String)}; thread-safe; lives as long as its client.
 * Every method checks its arguments before Redis is touched and throws
 * {@link IllegalArgumentException} for bad ones, and throws {@link io.echomq.RedisCommandException}
 * when Redis fails.
 *
 * <p>The facade over one package-private {@code Partition}, which owns the queue's keys and call
 * parts; the calls it shares with a {@link ShardedQueue} (settings, layout, groups, flow control,
 * results) come from {@code QueueFacade}, over a span of this one partition.
 */
public final class Queue extends QueueFacade implements QueueOperations {
    /** Shortest lease accepted. */
    public static final Duration MIN_LEASE = QueueLimits.MIN_LEASE;
    /** Longest lease accepted; longer jobs extend. */
    public static final Duration MAX_LEASE = QueueLimits.MAX_LEASE;
    /** Most jobs one {@link #claim(int, Duration)} may ask for. */
    public static final int MAX_CLAIM = QueueLimits.MAX_CLAIM;
    /** Most entries one reap, promote, redrive, purge or dead listing handles. */
    public static final int MAX_BATCH = QueueLimits.MAX_BATCH;

    private final Partition partition;

    Queue(Partition partition) {
        this.partition = partition;
    }

    /** @return the queue name */
    @Override
    public String name() {
        return partition.name();
    }

    /** @return false: a plain queue's ids are its partition's own */
    @Override
    public boolean isSharded() {
        return false;
    }

    /** @return 1: a plain queue is one partition */
    @Override
    public int partitions() {
        return 1;
    }

    /**
     * @return a list of one: this queue's {@link #stats()}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public List<QueueStats> partitionStats() {
        return List.of(stats());
    }

    // ------------------------------------------------------------------ enqueue

    /**
     * Enqueues one job in one round trip.
     *
     * @return the id, and whether it was created (false: an idempotency key in its window named
     *     an existing job, whose id is returned)
     * @throws IllegalArgumentException if payload or options is null, or the payload is over the limit
     * @throws io.echomq.RedisCommandException if Redis fails; the job may or may not have been added
     */
    public EnqueueResult enqueue(byte[] payload, EnqueueOptions options) {
        return partition.enqueue(payload, options);
    }

    /**
     * Enqueues many jobs in one round trip: chunks of 1000 jobs, each chunk one atomic script,
     * all chunks written before the first answer is awaited.
     *
     * @return one result per request, in order
     * @throws IllegalArgumentException if the list is null or empty, or any request is invalid;
     *     then nothing is sent
     * @throws io.echomq.RedisCommandException if Redis fails; earlier chunks may have been added
     */
    public List<EnqueueResult> enqueueAll(List<JobRequest> requests) {
        return partition.enqueueAll(requests);
    }

    /**
     * Enqueues one job, as {@link #enqueue(byte[], EnqueueOptions)}: a plain queue is one
     * partition, which every partition key names.
     *
     * @throws IllegalArgumentException if the key is null, empty or over 1024 bytes, or the job is invalid
     * @throws io.echomq.RedisCommandException if Redis fails; the job may or may not have been added
     */
    @Override
    public EnqueueResult enqueue(String partitionKey, byte[] payload, EnqueueOptions options) {
        Checks.name(partitionKey, "partition key");
        return enqueue(payload, options);
    }

    /**
     * Enqueues many jobs, as {@link #enqueueAll(List)}: every partition key names this queue's one
     * partition.
     *
     * @throws IllegalArgumentException if the key is invalid, the list is null or empty, or any
     *     request is invalid; then nothing is sent
     * @throws io.echomq.RedisCommandException if Redis fails; some jobs may have been added
     */
    @Override
    public List<EnqueueResult> enqueueAll(String partitionKey, List<JobRequest> requests) {
        Checks.name(partitionKey, "partition key");
        return enqueueAll(requests);
    }

    // ------------------------------------------------------------------ claim

    /**
     * Claims up to {@code max} jobs in one script, in claim order.
     *
     * @throws IllegalArgumentException if max is outside 1..{@link #MAX_CLAIM} or the lease is invalid
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public List<Job> claim(int max, Duration lease) {
        return partition.claim(max, lease);
    }

    /**
     * Promotes due delayed jobs (delays, run-at times and retry backoffs) to pending. Workers do
     * this on every claim and in their maintenance; operators rarely need it.
     *
     * @param limit 1..{@link #MAX_BATCH}
     * @return how many were promoted
     * @throws IllegalArgumentException if limit is out of range
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public long promote(int limit) {
        return partition.promote(limit);
    }

    /**
     * Returns expired leases to pending (or to dead, for jobs that spent their attempts), at most
     * {@code limit} per call, on the server clock. Never touches a lease extended in time. Safe to
     * call from many processes at once.
     *
     * @throws IllegalArgumentException if limit is outside 1..{@link #MAX_BATCH}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public ReapResult reap(int limit) {
        return partition.reap(limit);
    }

    // ------------------------------------------------------------------ operators

    /**
     * Removes a job wherever it is (pending, active, delayed, dead, done), with its lock subkey (if
     * any) and idempotency key. A pending job of priority 0 (or an unknown id) costs an {@code LREM} of
     * the wait LIST, O(n) in its length on the server; any other job costs O(log n).
     *
     * @param force remove even while a worker holds the job: its lease deadline in active is still
     *     ahead of the server's clock, or its lock subkey exists (ZSET layout)
     * @return {@link RemoveOutcome#REMOVED}, {@link RemoveOutcome#LOCKED} (held, not forced) or
     *     {@link RemoveOutcome#MISSING}
     * @throws IllegalArgumentException if the id is null, empty, over 1024 bytes or holds ':'
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public RemoveOutcome remove(String id, boolean force) {
        return partition.remove(id, force);
    }

    /**
     * @return the counts, read in one atomic script
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public QueueStats stats() {
        return partition.stats();
    }

    @Override
    public boolean pause() {
        return partition.pause();
    }

    @Override
    public boolean resume() {
        return partition.resume();
    }

    @Override
    public boolean isPaused() {
        return partition.isPaused();
    }

    @Override
    public CancelOutcome cancel(String id) {
        return partition.cancel(id);
    }

    /**
     * Lists the oldest dead jobs with their reason and last error.
     *
     * @param limit 1..{@link #MAX_BATCH}
     * @throws IllegalArgumentException if limit is out of range
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public List<DeadJob> dead(int limit) {
        return partition.dead(limit);
    }

    /**
     * Moves up to {@code limit} of the oldest dead jobs back to pending, each with a fresh budget
     * of attempts. Entries with no payload stay dead.
     *
     * @return how many were moved
     * @throws IllegalArgumentException if limit is outside 1..{@link #MAX_BATCH}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public long redrive(int limit) {
        return partition.redrive(limit);
    }

    /**
     * Moves the named dead jobs back to pending with a fresh budget; ids not in the dead set are skipped.
     *
     * @return how many were moved
     * @throws IllegalArgumentException if ids is null, empty, over {@link #MAX_BATCH}, or holds an invalid id
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public long redrive(Collection<String> ids) {
        return partition.redrive(ids);
    }

    /**
     * Deletes up to {@code limit} of the oldest dead jobs for good.
     *
     * @return how many were deleted
     * @throws IllegalArgumentException if limit is outside 1..{@link #MAX_BATCH}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public long purgeDead(int limit) {
        return partition.purgeDead(limit);
    }

    /**
     * Deletes the named dead jobs for good; ids not in the dead set are skipped.
     *
     * @return how many were deleted
     * @throws IllegalArgumentException if ids is null, empty, over {@link #MAX_BATCH}, or holds an invalid id
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public long purgeDead(Collection<String> ids) {
        return partition.purgeDead(ids);
    }

    /**
     * Reads one job's hash.
     *
     * @return the job, or empty when there is no hash under its key (a completed job keeps none
     *     unless the queue's retention or the client's {@code retainCompleted} asks)
     * @throws IllegalArgumentException if the id is invalid
     * @throws io.echomq.RedisCommandException if Redis fails, for example when the key is not a hash
     */
    public Optional<JobInfo> inspect(String id) {
        return partition.inspect(id);
    }

    @Override
    public JobPage list(JobState state, int limit, String cursor) {
        return partition.list(state, limit, cursor);
    }

    @Override
    public Optional<QueueRetention> retention() {
        return partition.retention();
    }

    @Override
    public void setRetention(QueueRetention settings) {
        partition.setRetention(settings);
    }

    @Override
    public DeleteResult delete(boolean force, LongConsumer progress) {
        return partition.delete(force, progress);
    }

    // ------------------------------------------------------------------ the span, for QueueFacade

    /** @return the one partition this queue is */
    Partition partition() {
        return partition;
    }

    @Override
    List<Partition> span() {
        return List.of(partition);
    }

    @Override
    ClaimSource claimSource() {
        return ClaimSource.of(partition);
    }

    @Override
    JobHome locate(String id) {
        return new JobHome(partition, Checks.jobId(id));
    }

    @Override
    public String toString() {
        return "Queue[" + name() + "]";
    }
}
