/**
 * Distributed locks as leases: acquire in one atomic command, release and renew by token, a fence
 * on every grant.
 *
 * <p>Program against {@link io.echomq.lock.Locks}, the contract both clients honour, and build
 * {@link io.echomq.lock.LockClient} for one server, or {@link io.echomq.lock.RedlockClient} for
 * Redlock over N independent masters (its fence is best-effort). A grant is a
 * {@link io.echomq.lock.Lease}
 * handle, owned by the object and not by a thread. Outcomes that are answers, not failures, are
 * enums: {@link io.echomq.lock.ReleaseOutcome}, {@link io.echomq.lock.RenewOutcome},
 * {@link io.echomq.lock.FencedWriteOutcome}, {@link io.echomq.lock.LossReason}.
 *
 * <p>The guarantees and their limits (what a failover can do to a lease, and why fencing matters)
 * are in {@code docs/locks.md}.
 */
package io.echomq.lock;
