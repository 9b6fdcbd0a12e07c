/**
 * Fenced writes and once-by-job-id claims in SQL, over plain JDBC ({@code java.sql} only).
 *
 * <p>{@link io.echomq.jdbc.FencedUpdate} orders writes by a fence (a lock's {@code lease.fence()} or a job's
 * {@code job.attempt()}): a write whose fence is older than the row's is refused. {@link io.echomq.jdbc.OnceByJobId}
 * records a side effect under its job id, insert-if-absent, so that it happens once. Neither commits nor rolls back
 * the caller's transaction. See {@code docs/jdbc.md}.
 */
package io.echomq.jdbc;
