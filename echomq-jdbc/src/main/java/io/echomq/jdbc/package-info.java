/**
 * Fenced writes, once-by-job-id claims and a transactional outbox in SQL, over plain JDBC.
 *
 * <p>{@link io.echomq.jdbc.FencedUpdate} orders writes by a fence (a lock's {@code lease.fence()} or a job's
 * {@code job.attempt()}): a write whose fence is older than the row's is refused. {@link io.echomq.jdbc.OnceByJobId}
 * records a side effect under its job id, insert-if-absent, so that it happens once. Neither commits nor rolls back
 * the caller's transaction; both need {@code java.sql} only. {@link io.echomq.jdbc.Outbox} writes a job in the
 * caller's transaction and {@link io.echomq.jdbc.OutboxRelay} enqueues the committed ones, each exactly once; they
 * need {@code echomq-core}. See {@code docs/jdbc.md}.
 */
package io.echomq.jdbc;
