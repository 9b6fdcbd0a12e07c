package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.QueueKeys;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

/**
 * One queue's keys, its wire and its call parts: the unit every queue is made of. A plain
 * {@link Queue} is the facade over one partition; a {@link ShardedQueue} is the facade over a span of
 * them ({@code emq:{<q>#<i>}:…}). The workers, schedules and the sharded queue's parts work on
 * partitions, never on a facade.
 *
 * <p>It owns one {@code QueueWire} and the parts sharing it: {@code Enqueuer}, {@code Claims}
 * (claim-8), {@code AttemptCalls} (a claimed job's fenced calls), {@code Sweeps} (reap, promote),
 * {@code QueueReads} (stats, dead, inspect), {@code QueueAdmin} (remove, redrive, purge),
 * {@code QueueControl} (pause, resume, cancel), {@code QueueListing} (list), {@code RetentionStore},
 * {@code QueueDeletion} (delete). Its calls are the ones {@link Queue} documents: each checks its
 * arguments ({@code QueueLimits}) before Redis is touched, throws {@link IllegalArgumentException}
 * for bad ones and {@link io.echomq.RedisCommandException} when Redis fails. Thread-safe.
 */
final class Partition {
    private final QueueContext context;
    private final String logicalName;   // the sharded queue's name for a partition, else the queue's name
    private final String idPrefix;      // "<partition>-" for a partition, else ""
    private final QueueWire wire;
    private final Enqueuer enqueuer;
    private final JobLine line;
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

    Partition(QueueContext context, QueueKeys keys) {
        this(context, keys, keys.queue(), "");
    }

    /** A partition of a sharded queue: its jobs carry {@code idPrefix} and {@code logicalName}. */
    Partition(QueueContext context, QueueKeys keys, String logicalName, String idPrefix) {
        this.context = context;
        this.logicalName = logicalName;
        this.idPrefix = idPrefix;
        this.wire = new QueueWire(keys, context.engine());
        this.observations = context.observations(logicalName);
        this.enqueuer = new Enqueuer(context.maxPayloadBytes(), wire, observations, context.replicaWait());
        this.line = new JobLine(wire, logicalName, idPrefix, context.clock(), context.retainCompletedMs(),
                context.maxPayloadBytes(), observations.observed() ? observations::claimed : null);
        this.claims = line.claims();
        this.attempts = line.attempts();
        this.sweeps = new Sweeps(wire, observations);
        this.reads = new QueueReads(wire);
        this.admin = new QueueAdmin(wire);
        this.control = new QueueControl(context.retainCompletedMs(), wire);
        this.listing = new QueueListing(wire, idPrefix);
        this.retention = new RetentionStore(wire);
        this.deletion = new QueueDeletion(wire);
    }

    String name() {
        return wire.name();
    }

    // ------------------------------------------------------------------ enqueue

    EnqueueResult enqueue(byte[] payload, EnqueueOptions options) {
        return enqueueAll(List.of(new JobRequest(payload, options))).get(0);
    }

    List<EnqueueResult> enqueueAll(List<JobRequest> requests) {
        return enqueuer.enqueue(requests);
    }

    // ------------------------------------------------------------------ claim

    List<Job> claim(int max, Duration lease) {
        QueueLimits.claimMax(max);
        return claims.claim(max, QueueLimits.leaseMillis(lease), null, this::job).jobs();
    }

    long promote(int limit) {
        QueueLimits.batch(limit);
        return sweeps.promote(limit);
    }

    ReapResult reap(int limit) {
        QueueLimits.batch(limit);
        return sweeps.reap(limit);
    }

    // ------------------------------------------------------------------ operators

    RemoveOutcome remove(String id, boolean force) {
        return admin.remove(id, force);
    }

    QueueStats stats() {
        return reads.stats();
    }

    boolean pause() {
        return control.pause(true);
    }

    boolean resume() {
        return control.pause(false);
    }

    boolean isPaused() {
        return control.isPaused();
    }

    CancelOutcome cancel(String id) {
        return control.cancel(id);
    }

    List<DeadJob> dead(int limit) {
        QueueLimits.batch(limit);
        return reads.dead(limit);
    }

    long redrive(int limit) {
        QueueLimits.batch(limit);
        return admin.redrive(limit, List.of());
    }

    long redrive(Collection<String> ids) {
        return admin.redrive(1, QueueLimits.jobIds(ids));
    }

    long purgeDead(int limit) {
        QueueLimits.batch(limit);
        return admin.purge(limit, List.of());
    }

    long purgeDead(Collection<String> ids) {
        return admin.purge(1, QueueLimits.jobIds(ids));
    }

    Optional<JobInfo> inspect(String id) {
        return reads.inspect(id);
    }

    JobPage list(JobState state, int limit, String cursor) {
        Checks.notNull(state, "state");
        QueueLimits.batch(limit);
        return listing.list(state, limit, cursor);
    }

    Optional<QueueRetention> retention() {
        return retention.read();
    }

    void setRetention(QueueRetention settings) {
        retention.write(Checks.notNull(settings, "retention"));
    }

    DeleteResult delete(boolean force, LongConsumer progress) {
        return deletion.delete(force, Checks.notNull(progress, "progress"));
    }

    // ------------------------------------------------------------------ the parts, for the workers and the sharded queue

    QueueListing listing() {
        return listing;
    }

    QueueDeletion deletion() {
        return deletion;
    }

    Enqueuer enqueuer() {
        return enqueuer;
    }

    /** @return what this partition's claimed jobs reach of it */
    JobLine line() {
        return line;
    }

    /**
     * One claim of up to {@code n} jobs on this partition, each claimed attempt wrapped in the public
     * {@link Job} handle on this partition's line, in the reply's order.
     */
    CompletableFuture<Claimed<Job>> claimAsync(int n, long leaseMs) {
        return claims.claimAsync(n, leaseMs, this::job);
    }

    private Job job(Attempt granted) {
        return new Job(line, granted);
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
        return "Partition[" + name() + "]";
    }
}
