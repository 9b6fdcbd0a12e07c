package io.echomq.bench;

import io.echomq.observe.Instrumentation;
import io.echomq.lock.Lease;
import io.echomq.lock.LossReason;
import java.util.concurrent.TimeUnit;

/**
 * Times the watchdog's renewals of one lease from the outside, through the public API only, so
 * that the same probe measures any design of the watchdog.
 *
 * <ol>
 *   <li>Each renewal's answer is timed when the client hears it: the client tells its
 *       {@link Instrumentation#leaseRenewal} just before it applies the answer.</li>
 *   <li>Each renewal's send time is read back from the lease: a renewal's answer moves
 *       {@link Lease#validUntilNanos()} to its send time + ttl − (ttl/100 + 2 ms), so the deadline
 *       seen at the next answer (or at {@link #finish()}) gives the send time exactly.</li>
 *   <li>A renewal was due a third of the ttl after the previous one was sent (after the acquire
 *       for the first): the schedule the watchdog promises. Its lag is the send time, and the
 *       answer time, minus that.</li>
 * </ol>
 *
 * <p>Give it to one client ({@link io.echomq.lock.LockClient.Builder#instrumentation}) that holds
 * one watched lease, then {@link #watch} that lease. Samples go to a {@link LagSamples}.
 */
final class RenewalProbe implements Instrumentation {
    private final LagSamples samples;
    private final Object guard = new Object();
    private Lease lease;
    private long ttlNanos;
    private long driftNanos;
    private long previousSent;     // send time of the renewal before the one in flight
    private long lastAnswered;     // answer time of the last renewal heard, 0 before the first

    /** @param samples where each renewal's lag goes */
    RenewalProbe(LagSamples samples) {
        this.samples = samples;
    }

    /** Starts timing {@code lease}, just acquired with the watchdog, from its acquire. */
    void watch(Lease lease) {
        synchronized (guard) {
            this.lease = lease;
            long ttl = TimeUnit.MILLISECONDS.toNanos(lease.ttl().toMillis());
            this.ttlNanos = ttl;
            this.driftNanos = ttl / 100 + TimeUnit.MILLISECONDS.toNanos(2);
            this.previousSent = sentOf(lease.validUntilNanos());
            this.lastAnswered = 0;
        }
    }

    @Override
    public void leaseRenewal(LockMode mode, RenewalResult result) {
        long now = System.nanoTime();
        synchronized (guard) {
            if (lease == null) {
                return;
            }
            // the deadline has not moved yet: it still belongs to the renewal answered before this one
            settle(sentOf(lease.validUntilNanos()));
            if (result == RenewalResult.RENEWED) {
                lastAnswered = now;
            } else {
                lastAnswered = 0;
            }
        }
    }

    @Override
    public void leaseLost(LockMode mode, LossReason reason) {
        samples.lost(reason);
    }

    /** Records the last renewal heard, whose send time is only known once its answer was applied. */
    void finish() {
        synchronized (guard) {
            if (lease != null) {
                settle(sentOf(lease.validUntilNanos()));
                lease = null;
            }
        }
    }

    private void settle(long sent) {
        if (lastAnswered != 0 && sent != previousSent) {
            long due = previousSent + ttlNanos / 3;
            samples.add(sent - due, lastAnswered - due, ttlNanos);
            previousSent = sent;
        }
        lastAnswered = 0;
    }

    private long sentOf(long validUntil) {
        return validUntil - ttlNanos + driftNanos;
    }
}
