package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32;

/**
 * One logical queue split into K partitions, each an ordinary queue with its own hash tag
 * ({@code emq:{<q>#0}:…}, {@code emq:{<q>#1}:…}), so that on Redis Cluster its load spreads over
 * the masters. Every partition keeps the whole claim-lease protocol; nothing in a partition knows
 * about the others.
 *
 * <pre>{@code
 * ShardedQueue orders = client.shardedQueue("orders", 6);
 * String id = orders.enqueue("{\"sku\":7}");                       // round-robin: "4-17"
 * orders.enqueue("customer-42", payload, EnqueueOptions.defaults()); // same key, same partition, FIFO
 * try (Worker w = client.worker(orders, job -> ship(job.payloadUtf8())).start()) { ... }
 * }</pre>
 *
 * <ul>
 *   <li><b>Where a job goes.</b> With an idempotency key and no partition key, to partition
 *       {@code crc32(idempotency key) mod K}, so the key still enqueues once. With a partition key
 *       ({@link #enqueue(String, byte[], EnqueueOptions)}), to {@code crc32(partition key) mod K}:
 *       jobs sharing a key keep FIFO order. Otherwise round-robin, from a random start per
 *       instance.</li>
 *   <li><b>Ids</b> name the partition: {@code <partition>-<id>}, where {@code <id>} is the
 *       partition's own id. {@link #remove}, {@link #inspect}, {@link #redrive(Collection)} and
 *       {@link #purgeDead(Collection)} go straight to that partition; {@link Job#id()} has the same
 *       form.</li>
 *   <li><b>The partition count</b> is declared by each instance and recorded in
 *       {@code emq:{<q>}:partitions} as a high-water mark that never goes down. Enqueue spreads
 *       over this instance's own count; claims, stats, reaping and dead letters span the mark, so
 *       a job enqueued by a client that uses more partitions is never stranded. Workers re-read
 *       the mark at every maintenance run.</li>
 *   <li><b>Order.</b> FIFO (within one priority) holds within a partition, not across them.</li>
 *   <li><b>Sums.</b> {@link #stats()} adds up one atomic snapshot per partition; the sum is not
 *       one atomic snapshot. Limits ({@link #reap}, {@link #promote}) apply per partition.</li>
 * </ul>
 *
 * <p>Obtained from {@link QueueClient#shardedQueue(String, int)}; thread-safe.
 *
 * <p>A facade over package-private parts: {@code PartitionSpan} (the mark, the partitions),
 * {@code ShardRouting} (where a job goes, where an id lives), {@code ClaimRound}, {@code ShardFanOut}
 * (calls to many partitions), {@code ShardControl} (pause, cancel), {@code ShardListing} (list,
 * retention, delete). Each partition is a plain {@link Queue}.
 */
public final class ShardedQueue extends QueueFacade implements QueueOperations {
    /** Most partitions one queue may have. */
    public static final int MAX_PARTITIONS = PartitionSpan.MAX_PARTITIONS;

    private final QueueContext context;
    private final String name;
    private final PartitionSpan span;
    private final ShardRouting routing;
    private final ClaimRound claims;
    private final ShardFanOut fanOut;
    private final ShardControl control;
    private final ShardListing whole;

    private ShardedQueue(QueueContext context, String name, int declared, int mark) {
        this.context = context;
        this.name = name;
        this.span = new PartitionSpan(context, name, Math.max(declared, mark));
        this.routing = new ShardRouting(declared, span);
        this.claims = new ClaimRound(span);
        this.fanOut = new ShardFanOut(name, span, routing);
        this.control = new ShardControl(span, routing);
        this.whole = new ShardListing(name, span);
    }

    /** Declares {@code partitions} in the mark (one round trip) and returns the queue; see {@link PartitionSpan#declare}. */
    static ShardedQueue open(QueueContext context, String name, int partitions) {
        return new ShardedQueue(context, name, partitions, PartitionSpan.declare(context, name, partitions));
    }

    /** @return the queue with the count already read from its mark, declaring nothing */
    static ShardedQueue ofStored(QueueContext context, String name, int stored) {
        return new ShardedQueue(context, name, stored, stored);
    }

    /**
     * Reads the mark again and spans any partitions another client added (workers do this at every
     * maintenance run).
     *
     * @return the number of partitions now spanned
     * @throws IllegalStateException if the mark holds something other than a count in 1..{@link #MAX_PARTITIONS}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public int refresh() {
        return RedisEngine.await(span.refreshAsync(), Scripts.PARTITIONS.label(), name);
    }

    /** @return the sharded queue's name (each partition is the queue {@code <name>#<i>}) */
    @Override
    public String name() {
        return name;
    }

    /** @return the partitions this instance enqueues into */
    public int declaredPartitions() {
        return routing.declared();
    }

    /** @return where a worker of this queue claims from: every partition, rotating */
    @Override
    ClaimSource claimSource() {
        return ClaimSource.of(name, span, claims);
    }

    /** @return true: ids name their partition, and a partition key chooses one */
    @Override
    public boolean isSharded() {
        return true;
    }

    /** @return the partitions claims, stats and dead letters span: the mark, at least the declared count */
    @Override
    public int partitions() {
        return span.queues().size();
    }

    @Override
    List<Partition> span() {
        return span.queues();
    }

    @Override
    JobHome locate(String id) {
        return routing.locate(id);
    }

    /** @return what the client that opened this queue built it with */
    QueueContext context() {
        return context;
    }

    // ------------------------------------------------------------------ enqueue (and QueueOperations' defaults)

    /**
     * Enqueues one job in one round trip, to the partition its idempotency key hashes to, or
     * round-robin when it has none.
     *
     * @return the id ({@code <partition>-<id>}) and whether it was created
     * @throws IllegalArgumentException if payload or options is null, or the payload is over the limit
     * @throws io.echomq.RedisCommandException if Redis fails; the job may or may not have been added
     */
    @Override
    public EnqueueResult enqueue(byte[] payload, EnqueueOptions options) {
        return enqueueAll(List.of(new JobRequest(payload, options))).get(0);
    }

    /**
     * Enqueues one job to the partition {@code partitionKey} hashes to ({@code crc32 mod K}), so
     * that jobs sharing a key are claimed in enqueue order (within one priority). An idempotency
     * key then dedupes among the jobs of that partition key.
     *
     * @throws IllegalArgumentException if the key is null, empty or over 1024 bytes, or the job is invalid
     * @throws io.echomq.RedisCommandException if Redis fails; the job may or may not have been added
     */
    @Override
    public EnqueueResult enqueue(String partitionKey, byte[] payload, EnqueueOptions options) {
        return enqueueAll(partitionKey, List.of(new JobRequest(payload, options))).get(0);
    }

    /**
     * Enqueues many jobs: each goes where {@link #enqueue(byte[], EnqueueOptions)} would send it,
     * the jobs of one partition in chunks of 1000 (one atomic script each), and every call is
     * written before the first answer is awaited.
     *
     * @return one result per request, in order
     * @throws IllegalArgumentException if the list is null or empty, or any request is invalid;
     *     then nothing is sent
     * @throws io.echomq.RedisCommandException if Redis fails; some jobs may have been added
     */
    @Override
    public List<EnqueueResult> enqueueAll(List<JobRequest> requests) {
        return fanOut.enqueue(requests, routing::targets);
    }

    /**
     * Enqueues many jobs to the one partition {@code partitionKey} hashes to, keeping their order.
     *
     * @return one result per request, in order
     * @throws IllegalArgumentException if the key is invalid, the list is null or empty, or any
     *     request is invalid; then nothing is sent
     * @throws io.echomq.RedisCommandException if Redis fails; some jobs may have been added
     */
    @Override
    public List<EnqueueResult> enqueueAll(String partitionKey, List<JobRequest> requests) {
        Checks.name(partitionKey, "partition key");
        return fanOut.enqueue(requests, checked -> routing.sameTarget(partitionKey, checked.size()));
    }

    /**
     * @return the partition a partition key or idempotency key selects among {@code k}:
     *     the CRC-32 (IEEE, as {@link CRC32}) of its UTF-8 bytes, unsigned, modulo {@code k}
     * @throws IllegalArgumentException if the key is null or k is outside 1..{@link #MAX_PARTITIONS}
     */
    public static int partitionOf(String key, int k) {
        return ShardRouting.partitionOf(key, k);
    }

    // ------------------------------------------------------------------ claim

    /**
     * Claims up to {@code max} jobs: from the partitions in turn, starting one partition further
     * on each call, until {@code max} are claimed or every partition has been asked once. So no
     * partition starves: each is asked first at least once in every K calls.
     *
     * @throws IllegalArgumentException if max is outside 1..{@link Queue#MAX_CLAIM} or the lease is invalid
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public List<Job> claim(int max, Duration lease) {
        QueueLimits.claimMax(max);
        long leaseMs = QueueLimits.leaseMillis(lease);
        return RedisEngine.await(claims.claimAsync(max, leaseMs), Scripts.CLAIM.label(), name).jobs();
    }

    // ------------------------------------------------------------------ operators

    /**
     * Promotes due delayed jobs in every partition, at most {@code limit} per partition.
     *
     * @return how many were promoted in all
     * @throws IllegalArgumentException if limit is outside 1..{@link Queue#MAX_BATCH}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public long promote(int limit) {
        QueueLimits.batch(limit);
        return fanOut.promote(limit);
    }

    /**
     * Reaps every partition, at most {@code limit} expired leases per partition.
     *
     * @return the sums over the partitions
     * @throws IllegalArgumentException if limit is outside 1..{@link Queue#MAX_BATCH}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public ReapResult reap(int limit) {
        QueueLimits.batch(limit);
        return fanOut.reap(limit);
    }

    /**
     * Removes the job {@code <partition>-<id>} from its partition; see {@link Queue#remove}.
     *
     * @return REMOVED, LOCKED, or MISSING (also for a partition beyond the mark)
     * @throws IllegalArgumentException if the id is not of the form {@code <partition>-<id>}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public RemoveOutcome remove(String id, boolean force) {
        JobHome at = routing.locate(id);
        return at == null ? RemoveOutcome.MISSING : at.partition().remove(at.localId(), force);
    }

    /**
     * Reads one job's hash from its partition.
     *
     * @return the job (its {@link JobInfo#id()} in the {@code <partition>-<id>} form), or empty
     * @throws IllegalArgumentException if the id is not of the form {@code <partition>-<id>}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public Optional<JobInfo> inspect(String id) {
        return routing.inspect(id);
    }

    /**
     * Sums the partitions' counts. Each partition's counts are one atomic snapshot, read in
     * parallel; the sum is not one snapshot.
     *
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public QueueStats stats() {
        return fanOut.stats();
    }

    /** Pauses each partition of the mark, one call each (see {@link QueueOperations#pause()}). */
    @Override
    public boolean pause() {
        return control.pause(true);
    }

    @Override
    public boolean resume() {
        return control.pause(false);
    }

    @Override
    public boolean isPaused() {
        return control.isPaused();
    }

    @Override
    public CancelOutcome cancel(String id) {
        return control.cancel(id);
    }

    /**
     * @return each partition's counts, index i for partition i, read in parallel
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public List<QueueStats> partitionStats() {
        return fanOut.partitionStats();
    }

    /**
     * Lists the oldest dead jobs over all partitions, oldest death first, ids in the
     * {@code <partition>-<id>} form.
     *
     * @param limit 1..{@link Queue#MAX_BATCH}, in all
     * @throws IllegalArgumentException if limit is out of range
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public List<DeadJob> dead(int limit) {
        QueueLimits.batch(limit);
        return fanOut.dead(limit);
    }

    /**
     * Redrives up to {@code limit} dead jobs in all, partition after partition.
     *
     * @return how many were moved
     * @throws IllegalArgumentException if limit is outside 1..{@link Queue#MAX_BATCH}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public long redrive(int limit) {
        QueueLimits.batch(limit);
        return fanOut.spend(limit, (p, left) -> p.redrive(left));
    }

    /**
     * Redrives the named dead jobs ({@code <partition>-<id>}), one call per partition.
     *
     * @return how many were moved
     * @throws IllegalArgumentException if ids is null, empty, over {@link Queue#MAX_BATCH}, or holds
     *     an id not of the form {@code <partition>-<id>}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public long redrive(Collection<String> ids) {
        return fanOut.perPartition(ids, (p, own) -> p.redrive(own));
    }

    /**
     * Purges up to {@code limit} dead jobs in all, partition after partition.
     *
     * @return how many were deleted
     * @throws IllegalArgumentException if limit is outside 1..{@link Queue#MAX_BATCH}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public long purgeDead(int limit) {
        QueueLimits.batch(limit);
        return fanOut.spend(limit, (p, left) -> p.purgeDead(left));
    }

    /**
     * Purges the named dead jobs ({@code <partition>-<id>}), one call per partition.
     *
     * @return how many were deleted
     * @throws IllegalArgumentException if ids is null, empty, over {@link Queue#MAX_BATCH}, or holds
     *     an id not of the form {@code <partition>-<id>}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public long purgeDead(Collection<String> ids) {
        return fanOut.perPartition(ids, (p, own) -> p.purgeDead(own));
    }

    /** Partitions one after the other, 0 first, each in its own order; the cursor names its partition. */
    @Override
    public JobPage list(JobState state, int limit, String cursor) {
        Checks.notNull(state, "state");
        QueueLimits.batch(limit);
        return whole.list(state, limit, cursor);
    }

    @Override
    public Optional<QueueRetention> retention() {
        return whole.retention();
    }

    @Override
    public void setRetention(QueueRetention settings) {
        whole.setRetention(Checks.notNull(settings, "retention"));
    }

    @Override
    public DeleteResult delete(boolean force, java.util.function.LongConsumer progress) {
        return whole.delete(force, Checks.notNull(progress, "progress"));
    }

    @Override
    public String toString() {
        return "ShardedQueue[" + name + ", " + partitions() + " partitions]";
    }
}
