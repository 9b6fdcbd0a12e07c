package io.echomq.queue;

/**
 * What one {@link Queue#reap(int)} call did.
 *
 * @param returned expired leases put back in pending; each had spent an attempt
 * @param dead     expired leases whose job had spent its attempts, now in the dead set
 */
public record ReapResult(long returned, long dead) {
}
