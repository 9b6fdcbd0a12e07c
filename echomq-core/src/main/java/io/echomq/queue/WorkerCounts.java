package io.echomq.queue;

/**
 * What one {@link Worker} has done since it started, counted in this process.
 *
 * @param completed   completions the server accepted
 * @param retrying    failures sent to a backoff retry
 * @param dead        failures sent to dead
 * @param leaseLost   jobs whose lease was lost (a settling call refused, or renewal refused or late),
 *                    cancelled attempts ({@link SettleOutcome#CANCELLED}) included
 * @param returned    leases given back unspent at shutdown
 * @param ackErrors   settling calls that failed on a Redis error (the lease then runs out and is reaped)
 */
public record WorkerCounts(long completed, long retrying, long dead, long leaseLost, long returned, long ackErrors) {
}
