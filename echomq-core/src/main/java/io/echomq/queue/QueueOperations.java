package io.echomq.queue;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * What a producer, a consumer claiming by hand, and an operator can do with a queue, whether it is
 * one {@link Queue} or a {@link ShardedQueue} split into partitions. Code (such as the {@code emq}
 * command, the dashboard and {@link QueueClient#worker(String, JobHandler)}) that should work with
 * both takes this type, and never needs to ask which it holds: a plain queue is a queue of one
 * partition, into which every partition key goes.
 *
 * <p>Sealed to the library's two queues: the contract holds no implementation, and every
 * implementation is one the library's workers, stores and tools know how to reach.
 *
 * <p>Every method checks its arguments before Redis is touched and throws
 * {@link IllegalArgumentException} for bad ones, and throws {@link io.echomq.RedisCommandException}
 * when Redis fails. The implementations document where they differ: for a sharded queue, ids name
 * their partition, limits apply per partition, and sums over partitions are not one atomic
 * snapshot.
 */
public sealed interface QueueOperations permits Queue, ShardedQueue {
    /** @return the queue's name */
    String name();

    /**
     * @return whether the queue is sharded: its job ids then have the form {@code <partition>-<id>}
     *     and a partition key chooses the partition a job goes to
     */
    boolean isSharded();

    /**
     * @return the partitions this queue spans: 1 for a plain queue; for a sharded queue, the count
     *     its claims, stats and dead letters span (the stored mark, at least the declared count)
     */
    int partitions();

    /**
     * @return each partition's counts, index i for partition i, each read in one atomic script (a
     *     plain queue's list holds its {@link #stats()})
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    List<QueueStats> partitionStats();

    /**
     * Enqueues {@code text} (as UTF-8) with the default options.
     *
     * @return the new job's id
     * @throws IllegalArgumentException if text is null or over the payload limit
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    String enqueue(String text);

    /**
     * Enqueues {@code payload} with the default options.
     *
     * @return the new job's id
     * @throws IllegalArgumentException if payload is null or over the payload limit
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    String enqueue(byte[] payload);

    /**
     * Enqueues one job.
     *
     * @return the id, and whether it was created (false: an idempotency key in its window named an
     *     existing job, whose id is returned)
     * @throws IllegalArgumentException if payload or options is null, or the payload is over the limit
     * @throws io.echomq.RedisCommandException if Redis fails; the job may or may not have been added
     */
    EnqueueResult enqueue(byte[] payload, EnqueueOptions options);

    /**
     * Enqueues one job whose payload is {@code text} in UTF-8, as {@link #enqueue(byte[], EnqueueOptions)}.
     *
     * @return the id, and whether it was created
     * @throws IllegalArgumentException if text or options is null, or the payload is over the limit
     * @throws io.echomq.RedisCommandException if Redis fails; the job may or may not have been added
     */
    EnqueueResult enqueue(String text, EnqueueOptions options);

    /**
     * Enqueues many jobs, all script calls written before the first answer is awaited.
     *
     * @return one result per request, in order
     * @throws IllegalArgumentException if the list is null or empty, or any request is invalid;
     *     then nothing is sent
     * @throws io.echomq.RedisCommandException if Redis fails; some jobs may have been added
     */
    List<EnqueueResult> enqueueAll(List<JobRequest> requests);

    /**
     * Enqueues one job to the partition {@code partitionKey} hashes to, so that jobs sharing a key
     * keep their FIFO order (within a priority). A plain queue has one partition, which every key
     * names.
     *
     * @return the id, and whether it was created
     * @throws IllegalArgumentException if the key, payload or options is null, or the payload is over the limit
     * @throws io.echomq.RedisCommandException if Redis fails; the job may or may not have been added
     */
    EnqueueResult enqueue(String partitionKey, byte[] payload, EnqueueOptions options);

    /**
     * Enqueues many jobs to the partition {@code partitionKey} hashes to, as
     * {@link #enqueue(String, byte[], EnqueueOptions)} does one.
     *
     * @return one result per request, in order
     * @throws IllegalArgumentException if the key is null, or as {@link #enqueueAll(List)}
     * @throws io.echomq.RedisCommandException if Redis fails; some jobs may have been added
     */
    List<EnqueueResult> enqueueAll(String partitionKey, List<JobRequest> requests);

    /**
     * Claims one job, if any is pending: the next in claim order (highest priority first, oldest
     * first within a priority; docs/protocol.md, "Claim order"); on a sharded queue, from the
     * first partition, in a rotating order, that has one. It is {@code claim(1, lease)}.
     *
     * @param lease how long the claim holds without an extend, on the server clock
     * @return the job, or empty when none is pending
     * @throws IllegalArgumentException if the lease is null or outside {@link Queue#MIN_LEASE}..{@link Queue#MAX_LEASE}
     * @throws io.echomq.RedisCommandException if Redis fails; a job claimed in that call comes back by reaping
     */
    Optional<Job> claim(Duration lease);

    /**
     * Claims up to {@code max} jobs.
     *
     * @throws IllegalArgumentException if max is outside 1..{@link Queue#MAX_CLAIM} or the lease is invalid
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    List<Job> claim(int max, Duration lease);

    /**
     * Promotes due delayed jobs to pending.
     *
     * @param limit 1..{@link Queue#MAX_BATCH}
     * @return how many were promoted
     * @throws IllegalArgumentException if limit is out of range
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    long promote(int limit);

    /**
     * Returns expired leases to pending (or to dead), on the server clock.
     *
     * @param limit 1..{@link Queue#MAX_BATCH}
     * @throws IllegalArgumentException if limit is out of range
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    ReapResult reap(int limit);

    /**
     * Removes a job wherever it is, with its lock subkey (if any) and idempotency key. A pending
     * job of priority 0 costs an O(n) {@code LREM} of its queue's wait LIST on the server.
     *
     * @param force remove even while a worker holds the job: its lease deadline in active is still
     *     ahead of the server's clock, or its lock subkey exists (ZSET layout)
     * @return {@link RemoveOutcome#REMOVED}, {@link RemoveOutcome#LOCKED} or {@link RemoveOutcome#MISSING}
     * @throws IllegalArgumentException if the id is invalid
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    RemoveOutcome remove(String id, boolean force);

    /**
     * @return the queue's counts
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    QueueStats stats();

    /**
     * Pauses claims, for every client at once: from the next claim on, no job is claimed or
     * promoted by a claim (a claim's completes are still made), and running jobs go on and settle
     * as usual. A worker that finds the queue paused waits for the resume's wake message, or its
     * idle poll, as it does on an empty queue. A sharded queue pauses each partition of its mark,
     * one call each (a partition added later starts unpaused).
     *
     * @return true if the call paused it, false if it was paused already (for a sharded queue: if
     *     every partition was)
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    boolean pause();

    /**
     * Resumes claims paused by {@link #pause()}, and wakes idle workers at once. A sharded queue
     * resumes every partition of its mark.
     *
     * @return true if the call resumed it, false if it was not paused (for a sharded queue: if no
     *     partition was)
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    boolean resume();

    /**
     * @return whether claims are paused; for a sharded queue, whether any partition is
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    boolean isPaused();

    /**
     * Cancels one job, in one script on the server. A pending or delayed job leaves its set and
     * will not run. A running job's attempt ends now: its holder, wherever it runs, is told on the
     * queue's cancel channel and by its next lease renewal, and a {@link Worker} then asks the
     * handler to stop ({@link Job#cancelled()} and {@link Job#stopRequested()} read true) and settles it as {@link SettleOutcome#CANCELLED};
     * any later complete or fail of that attempt is refused with {@link SettleOutcome#CANCELLED}.
     * The job ends in state {@code cancelled}, its hash kept for the completed-job retention. A
     * pending job of priority 0 costs an O(n) {@code LREM} of the wait LIST on the server.
     *
     * @return {@link CancelOutcome#CANCELLED}, {@link CancelOutcome#SIGNALLED},
     *     {@link CancelOutcome#ALREADY_FINISHED} or {@link CancelOutcome#NOT_FOUND}
     * @throws IllegalArgumentException if the id is invalid (null, empty, over 1024 bytes, holding
     *     ':'; for a sharded queue, not {@code <partition>-<id>})
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    CancelOutcome cancel(String id);

    /**
     * Lists the oldest dead jobs.
     *
     * @param limit 1..{@link Queue#MAX_BATCH}
     * @throws IllegalArgumentException if limit is out of range
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    List<DeadJob> dead(int limit);

    /**
     * Moves up to {@code limit} dead jobs back to pending with a fresh budget of attempts.
     *
     * @return how many were moved
     * @throws IllegalArgumentException if limit is outside 1..{@link Queue#MAX_BATCH}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    long redrive(int limit);

    /**
     * Moves the named dead jobs back to pending; ids not in the dead set are skipped.
     *
     * @return how many were moved
     * @throws IllegalArgumentException if ids is null, empty, over {@link Queue#MAX_BATCH}, or holds an invalid id
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    long redrive(Collection<String> ids);

    /**
     * Deletes up to {@code limit} dead jobs for good.
     *
     * @return how many were deleted
     * @throws IllegalArgumentException if limit is outside 1..{@link Queue#MAX_BATCH}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    long purgeDead(int limit);

    /**
     * Deletes the named dead jobs for good; ids not in the dead set are skipped.
     *
     * @return how many were deleted
     * @throws IllegalArgumentException if ids is null, empty, over {@link Queue#MAX_BATCH}, or holds an invalid id
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    long purgeDead(Collection<String> ids);

    /**
     * Reads one job's hash.
     *
     * @return the job, or empty when there is no such job: never enqueued, removed, or ended and
     *     not kept (a completed job keeps no hash unless the queue's {@link QueueRetention} or the
     *     client's {@code retainCompleted} asks; {@link #awaitResult} still finds its end in the
     *     events stream)
     * @throws IllegalArgumentException if the id is invalid
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    Optional<JobInfo> inspect(String id);

    /**
     * One page of the jobs in {@code state}, in that state's order: claim order for pending,
     * lease deadline for active, due time for delayed, time of death for dead, time of
     * completion for done. The page is one atomic read; over a walk of many pages, a job that
     * stays in the state and keeps its place is listed exactly once (docs/queue.md, "Listing
     * jobs", says what "keeps its place" means per state). A sharded queue lists its partitions
     * one after the other, each in its own order.
     *
     * @param limit  1..{@link Queue#MAX_BATCH}
     * @param cursor null for the first page, else a page's {@link JobPage#next()} of the same
     *               queue and state, as it was
     * @throws IllegalArgumentException if state is null, limit is out of range, or the cursor is
     *     malformed or belongs to another state's listing
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    JobPage list(JobState state, int limit, String cursor);

    /**
     * @return the retention settings stored with the queue, or empty when it stores none (then
     *     completed jobs are kept as each client's {@code retainCompleted} says (by default not
     *     at all: deleted at completion), at most
     *     {@link QueueRetention#DEFAULT_DONE_MAX}, and dead ones by the defaults)
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    Optional<QueueRetention> retention();

    /**
     * Stores the retention settings with the queue (every partition of a sharded queue), where
     * every client's scripts read them. Sets over their caps shrink over the next completes and
     * deaths, a bounded number per call.
     *
     * @throws IllegalArgumentException if settings is null
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    void setRetention(QueueRetention settings);

    /** @return this queue's fair groups: per-group concurrency, pause, resume, counts ({@link FairGroups}) */
    FairGroups groups();

    /**
     * @return the default timeout stored with the queue: how long a {@link Worker}'s handler may
     *     run on a job that has no timeout of its own; empty when none is stored (or what is stored
     *     is not an integer in 1..86400000 ms, which the claim ignores too). A sharded queue answers
     *     its partition 0's
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    Optional<Duration> defaultTimeout();

    /**
     * Stores the queue's default timeout (in {@code emq:{q}:settings}, every partition of a sharded
     * queue's mark; a partition added later has none until it is set again). The claim reads it:
     * from each worker's next claim on, a job enqueued without {@link EnqueueOptions#withTimeout}
     * runs under it, and the worker's own {@link Worker.Builder#timeout} applies only to jobs of a
     * queue with no default. So a job's own timeout wins over the queue's, which wins over the
     * worker's. A job already running keeps the timeout its claim carried.
     *
     * @param timeout 1 ms..{@link EnqueueOptions#MAX_TIMEOUT} (one day)
     * @throws IllegalArgumentException if null, zero, negative, under 1 ms or over one day; nothing is written
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    void setDefaultTimeout(Duration timeout);

    /**
     * Removes the queue's default timeout (from every partition of a sharded queue): from each
     * worker's next claim on, jobs without their own timeout run under the worker's, if any.
     *
     * @return true if a default was stored (in any partition), false if none was
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    boolean clearDefaultTimeout();

    /** @return the queue's rate limit and concurrency cap, stored in Redis per queue (per partition of a sharded one) */
    FlowControl flowControl();

    /**
     * @return how many cancellations the queue records now, the jobs {@link JobState#CANCELLED}
     *     lists: the last 10,000 cancels (of each partition, summed for a sharded queue), an id
     *     counted once however often it was cancelled
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    long cancelledRecorded();

    /**
     * @return where the queue keeps its pending jobs of priority 0, as stored with it
     *     ({@link QueueLayout#LIST} when nothing is stored); for a sharded queue,
     *     {@link QueueLayout#ZSET} only when every partition of the mark has it
     * @throws io.echomq.RedisCommandException if Redis fails, or the layout key holds another type than a string
     */
    QueueLayout layout();

    /**
     * Stores the queue's pending layout, which every client's scripts then follow: with
     * {@link QueueLayout#ZSET}, every pending job (priority 0 included) waits in the pending ZSET,
     * where a consumer that only {@code ZPOPMIN}s it sees them all, in claim order. Allowed at
     * any time, jobs pending or not: a switch to {@link QueueLayout#ZSET} moves the jobs waiting
     * in the wait LIST into the ZSET in the same atomic script, in their order (O(n) in the
     * LIST's length, blocking the server meanwhile); a switch to {@link QueueLayout#LIST} moves
     * nothing, since every claim takes the ZSET's priority-0 jobs first, which are the older. A
     * sharded queue sets each partition of the mark, one call each (a partition added later
     * starts in the LIST layout).
     *
     * @return the layout set, whether the call changed it, and how many jobs it moved
     * @throws IllegalArgumentException if layout is null
     * @throws io.echomq.RedisCommandException if Redis fails; a sharded queue may then be set in part
     */
    LayoutChange setLayout(QueueLayout layout);

    /**
     * Waits for job {@code id} to end, from any process: woken by the queue's events stream
     * ({@link QueueEvents}), never by polling. It checks the job first, so a job that ended before
     * the call is answered at once: from its hash while it is kept, else from its completed, dead
     * or cancelled event while the stream keeps it (a completed job's hash is deleted at once by
     * default; its completed event carries the result, {@link Job#result}). Blocks on a connection
     * of its own, opened for the call.
     *
     * @return COMPLETED with the result (null when none was stored), DEAD with the reason,
     *     CANCELLED, NOT_FOUND (never enqueued, removed, or gone from hash and stream), or
     *     TIMED_OUT when it had not ended within {@code timeout}
     * @throws IllegalArgumentException if the id is invalid (for a sharded queue, not
     *     {@code <partition>-<id>}) or the timeout null or negative
     * @throws IllegalStateException if the queue's events are off ({@link QueueEventSettings})
     * @throws InterruptedException if the calling thread is interrupted while waiting
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    JobResult awaitResult(String id, Duration timeout) throws InterruptedException;

    /**
     * Deletes the queue and every key of it, as {@link #delete(boolean, LongConsumer)} with no
     * progress report.
     *
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    DeleteResult delete(boolean force);

    /**
     * Deletes the queue and every key of it: first, in one script, its sets, counters and
     * settings (refused, changing nothing, while jobs are active and {@code force} is false);
     * then, in batches, every other key under its prefix. Stop producers and workers first: a
     * worker's later fenced calls on a deleted queue are refused. A sharded queue deletes each
     * partition, then its partition count.
     *
     * @param force    delete even while jobs are active
     * @param progress told the running count of deleted keys after each batch
     * @throws IllegalArgumentException if progress is null
     * @throws io.echomq.RedisCommandException if Redis fails; the delete may be part done, and can
     *     be run again
     */
    DeleteResult delete(boolean force, LongConsumer progress);
}
