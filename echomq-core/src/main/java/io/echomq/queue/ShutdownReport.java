package io.echomq.queue;

/**
 * What a graceful {@link Worker#shutdown(java.time.Duration)} did.
 *
 * @param finishedInGrace jobs that were running when shutdown began and finished within the grace period
 * @param returned        leases given back to pending without spending the attempt
 * @param notReturned     leases that could not be given back (already lost, or Redis failed); the
 *                        reaper returns them when they run out
 */
public record ShutdownReport(long finishedInGrace, long returned, long notReturned) {
}
