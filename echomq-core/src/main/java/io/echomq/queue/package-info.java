/**
 * The job queue: jobs claimed under a lease that no crash can lose and no stale worker can finish.
 *
 * <p>{@link io.echomq.queue.QueueClient} connects and hands out a {@link io.echomq.queue.Queue}
 * (or a {@link io.echomq.queue.ShardedQueue}, one queue split over several partitions). A queue
 * enqueues ({@link io.echomq.queue.EnqueueOptions}: priority, delay, attempts, backoff, idempotency
 * key) and is operated on (stats, dead letters, redrive, reap, remove). A
 * {@link io.echomq.queue.Worker} runs a {@link io.echomq.queue.JobHandler} for every job it claims,
 * renews the leases it holds, and reaps the expired leases of crashed workers.
 *
 * <p>{@link io.echomq.queue.Schedules} stores a queue's recurring schedules
 * ({@link io.echomq.queue.Schedule}, when by a {@link io.echomq.queue.ScheduleSpec}: a fixed
 * interval, or cron with the {@code echomq-cron} module); the queue's workers, or a
 * {@link io.echomq.queue.Scheduler}, fire each fire time exactly once.
 *
 * <p>Every claim raises the job's {@code attempts}, its fence. Each later call on a
 * {@link io.echomq.queue.Job} (complete, fail, extend, progress, return) carries that attempt, and
 * the script refuses it, with {@link io.echomq.queue.SettleOutcome#LEASE_LOST}, unless it is still
 * the job's current attempt, active, and within its lease on the server's clock. A handler checks
 * {@link io.echomq.queue.Job#isHeld()} before its side effects, and stops on
 * {@link io.echomq.queue.Job#stopSignal()}: a worker does not interrupt it unless built to.
 *
 * <p>{@code docs/queue.md} covers the API and its guarantees; {@code docs/protocol.md} the keys and
 * scripts, for producers and workers in other languages.
 *
 * <p>The public types sit in this package's folder. Its package-private parts sit in folders named
 * for their role ({@code partition/}, {@code shard/}, {@code settings/}, {@code worker/},
 * {@code job/}, {@code schedule/}, {@code observations/}, {@code results/}), still in this package,
 * because they use the package-private side of the public types; {@code docs/architecture.md} maps
 * every part.
 */
package io.echomq.queue;
