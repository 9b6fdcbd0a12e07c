package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.QueueKeys;
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
 * <p>It is a facade over package-private parts sharing one {@code QueueWire}: {@code Enqueuer},
 * {@code Claims} (claim-8), {@code AttemptCalls} (a claimed job's fenced calls), {@code Sweeps}
 * (reap, promote), {@code QueueReads} (stats, dead, inspect), {@code QueueAdmin} (remove,
 * redrive, purge), {@code QueueControl} (pause, resume, cancel), {@code QueueListing} (list),
 * {@code RetentionStore}, {@code QueueDeletion} (delete); {@code QueueLimits} checks the arguments.
 * {@code DefaultTimeoutStore} keeps the queue's default timeout, for both kinds of queue.
 */
public final class Queue implements QueueOperations {
    /** Shortest lease accepted. */
    public static final Duration MIN_LEASE = QueueLimits.MIN_LEASE;
    /** Longest lease accepted; longer jobs extend. */
    public static final Duration MAX_LEASE = QueueLimits.MAX_LEASE;
    /** Most jobs one {@link #claim(int, Duration)} may ask for. */
    public static final int MAX_CLAIM = QueueLimits.MAX_CLAIM;
    /** Most entries one reap, promote, redrive, purge or dead listing handles. */
    public static final int MAX_BATCH = QueueLimits.MAX_BATCH;

    private final QueueContext context;
    private final String logicalName;   // the sharded queue's name for a partition, else the queue's name
    private final String idPrefix;      // "<partition>-" for a partition, else ""
    private final QueueWire wire;
    private final Enqueuer enqueuer;
    private final Claims claims;
    private final AttemptCalls attempts;
    private final Sweeps sweeps;
    private final QueueReads reads;
    private final QueueAdmin admin;
    private final QueueControl control;
    private final QueueObservations observations;
    private final QueueListing listing;
    private final RetentionStore retention;
    private final QueueDeletion deletion;

    Queue(QueueContext context, QueueKeys keys) {
        this(context, keys, keys.queue(), "");
    }

    /** A partition of a sharded queue: its jobs carry {@code idPrefix} and {@code logicalName}. */
    Queue(QueueContext context, QueueKeys keys, String logicalName, String idPrefix) {
        this.context = context;
        this.logicalName = logicalName;
        this.idPrefix = idPrefix;
        this.wire = new QueueWire(keys, context.engine());
        this.observations = context.observations(logicalName);
        this.enqueuer = new Enqueuer(context.maxPayloadBytes(), wire, observations);
        this.claims = new Claims(this, context, wire);
        this.attempts = new AttemptCalls(context, wire);
        this.sweeps = new Sweeps(wire, observations);
        this.reads = new QueueReads(wire);
        this.admin = new QueueAdmin(wire);
        this.control = new QueueControl(context.retainCompletedMs(), wire);
        this.listing = new QueueListing(wire, idPrefix);
        this.retention = new RetentionStore(wire);
        this.deletion = new QueueDeletion(wire);
    }

    /** @return the queue name */
    public String name() {
        return wire.name();
    }

    // ------------------------------------------------------------------ enqueue (enqueue(String) and
    // enqueue(byte[]) are QueueOperations' defaults, the same for a sharded queue)

    /**
     * Enqueues one job in one round trip.
     *
     * @return the id, and whether it was created (false: an idempotency key in its window named
     *     an existing job, whose id is returned)
     * @throws IllegalArgumentException if payload or options is null, or the payload is over the limit
     * @throws io.echomq.RedisCommandException if Redis fails; the job may or may not have been added
     */
    public EnqueueResult enqueue(byte[] payload, EnqueueOptions options) {
        return enqueueAll(List.of(new JobRequest(payload, options))).get(0);
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
        return enqueuer.enqueue(requests);
    }

    // ------------------------------------------------------------------ claim

    /**
     * Claims up to {@code max} jobs in one script, in claim order.
     *
     * @throws IllegalArgumentException if max is outside 1..{@link #MAX_CLAIM} or the lease is invalid
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public List<Job> claim(int max, Duration lease) {
        QueueLimits.claimMax(max);
        return claims.claim(max, QueueLimits.leaseMillis(lease), null).jobs();
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
        QueueLimits.batch(limit);
        return sweeps.promote(limit);
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
        QueueLimits.batch(limit);
        return sweeps.reap(limit);
    }

    // ------------------------------------------------------------------ operators

    /**
     * Removes a job wherever it is (pending, active, delayed, dead, done), with its lock subkey
     * and idempotency key. A pending job of priority 0 (or an unknown id) costs an {@code LREM} of
     * the wait LIST, O(n) in its length on the server; any other job costs O(log n).
     *
     * @param force remove even while a worker holds the job's lock subkey
     * @return {@link RemoveOutcome#REMOVED}, {@link RemoveOutcome#LOCKED} (held, not forced) or
     *     {@link RemoveOutcome#MISSING}
     * @throws IllegalArgumentException if the id is null, empty, over 1024 bytes or holds ':'
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public RemoveOutcome remove(String id, boolean force) {
        return admin.remove(id, force);
    }

    /**
     * @return the counts, read in one atomic script
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public QueueStats stats() {
        return reads.stats();
    }

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
     * Lists the oldest dead jobs with their reason and last error.
     *
     * @param limit 1..{@link #MAX_BATCH}
     * @throws IllegalArgumentException if limit is out of range
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public List<DeadJob> dead(int limit) {
        QueueLimits.batch(limit);
        return reads.dead(limit);
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
        QueueLimits.batch(limit);
        return admin.redrive(limit, List.of());
    }

    /**
     * Moves the named dead jobs back to pending with a fresh budget; ids not in the dead set are skipped.
     *
     * @return how many were moved
     * @throws IllegalArgumentException if ids is null, empty, over {@link #MAX_BATCH}, or holds an invalid id
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public long redrive(Collection<String> ids) {
        return admin.redrive(1, QueueLimits.jobIds(ids));
    }

    /**
     * Deletes up to {@code limit} of the oldest dead jobs for good.
     *
     * @return how many were deleted
     * @throws IllegalArgumentException if limit is outside 1..{@link #MAX_BATCH}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public long purgeDead(int limit) {
        QueueLimits.batch(limit);
        return admin.purge(limit, List.of());
    }

    /**
     * Deletes the named dead jobs for good; ids not in the dead set are skipped.
     *
     * @return how many were deleted
     * @throws IllegalArgumentException if ids is null, empty, over {@link #MAX_BATCH}, or holds an invalid id
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public long purgeDead(Collection<String> ids) {
        return admin.purge(1, QueueLimits.jobIds(ids));
    }

    /**
     * Reads one job's hash.
     *
     * @return the job, or empty when there is no hash under its key
     * @throws IllegalArgumentException if the id is invalid
     * @throws io.echomq.RedisCommandException if Redis fails, for example when the key is not a hash
     */
    public Optional<JobInfo> inspect(String id) {
        return reads.inspect(id);
    }

    @Override
    public JobPage list(JobState state, int limit, String cursor) {
        Checks.notNull(state, "state");
        QueueLimits.batch(limit);
        return listing.list(state, limit, cursor);
    }

    @Override
    public Optional<QueueRetention> retention() {
        return retention.read();
    }

    @Override
    public void setRetention(QueueRetention settings) {
        retention.write(Checks.notNull(settings, "retention"));
    }

    @Override
    public DeleteResult delete(boolean force, LongConsumer progress) {
        return deletion.delete(force, Checks.notNull(progress, "progress"));
    }

    // ------------------------------------------------------------------ the parts, for Worker and ShardedQueue

    QueueListing listing() {
        return listing;
    }

    QueueDeletion deletion() {
        return deletion;
    }

    Enqueuer enqueuer() {
        return enqueuer;
    }

    Claims claims() {
        return claims;
    }

    AttemptCalls attempts() {
        return attempts;
    }

    Sweeps sweeps() {
        return sweeps;
    }

    QueueReads reads() {
        return reads;
    }

    QueueObservations observations() {
        return observations;
    }

    QueueWire wire() {
        return wire;
    }

    // ------------------------------------------------------------------ plumbing for Job

    long clockNanos() {
        return context.clock().nanoTime();
    }

    QueueKeys keys() {
        return wire.keys();
    }

    /** @return the name users know the queue by: a partition answers its sharded queue's name */
    String logicalName() {
        return logicalName;
    }

    /** @return what a partition puts before its jobs' ids ({@code "<partition>-"}), else "" */
    String idPrefix() {
        return idPrefix;
    }

    /** @return what the client that opened this queue built it with */
    QueueContext context() {
        return context;
    }

    @Override
    public String toString() {
        return "Queue[" + name() + "]";
    }
}
