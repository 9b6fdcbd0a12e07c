package io.echomq.micrometer;

import io.echomq.lock.LockInstrumentation.LockMode;
import io.echomq.lock.Lease;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The leases held now, as the long task timer {@code echomq.lock.held} (tagged {@code mode}).
 *
 * <ol>
 *   <li>Starts a sample when a lease is granted ({@link #start}) and stops it when the client
 *       reports the lease released or lost ({@link #end}).</li>
 *   <li>Stops, at each {@link #sweep}, the samples of leases that are no longer held although no
 *       end was reported: a holder that let its lease run out, never releasing it nor asking about
 *       it, is not told of the end by the client, and its sample would otherwise be counted
 *       active forever (and kept in memory).</li>
 * </ol>
 */
final class HeldLeases {
    /** One held lease and its running sample; the handle the core hands back at the end. */
    static final class Held {
        final Lease lease;
        final LongTaskTimer.Sample sample;

        Held(Lease lease, LongTaskTimer.Sample sample) {
            this.lease = lease;
            this.sample = sample;
        }
    }

    private final Map<LockMode, LongTaskTimer> timers = new EnumMap<>(LockMode.class);
    private final Set<Held> active = ConcurrentHashMap.newKeySet();

    HeldLeases(MeterRegistry registry) {
        for (LockMode mode : LockMode.values()) {
            timers.put(mode, LongTaskTimer.builder("echomq.lock.held")
                    .description("Locks held now, and for how long")
                    .tag("mode", mode.name().toLowerCase(Locale.ROOT))
                    .register(registry));
        }
    }

    /** @return the handle of a lease just granted */
    Held start(LockMode mode, Lease lease) {
        Held h = new Held(lease, timers.get(mode).start());
        active.add(h);
        return h;
    }

    /** Stops the sample of {@code handle}, once, whichever of the end and a sweep comes first. */
    void end(Object handle) {
        if (handle instanceof Held h && active.remove(h)) {
            h.sample.stop();
        }
    }

    /** Stops the samples of leases that are no longer held; @return how many */
    int sweep() {
        int stopped = 0;
        for (Held h : active) {
            if (!h.lease.isHeld() && active.remove(h)) {
                h.sample.stop();
                stopped++;
            }
        }
        return stopped;
    }

    /** @return how many leases are tracked as held */
    int size() {
        return active.size();
    }
}
