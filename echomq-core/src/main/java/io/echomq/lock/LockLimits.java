package io.echomq.lock;

import io.echomq.internal.Checks;
import java.time.Duration;

/**
 * The bounds of a lease's ttl, stated once for every part that grants or renews one
 * ({@link LockClient}, {@link RedlockClient}, {@link LeaseLock}, {@link Lease}); the public
 * constant is {@link LockClient#MAX_TTL}.
 */
final class LockLimits {
    /** Longest ttl a lease may be granted or renewed for. */
    static final Duration MAX_TTL = Duration.ofDays(1);

    private LockLimits() {
    }

    /**
     * @return {@code ttl} in milliseconds
     * @throws IllegalArgumentException if it is null, under 1 ms or over {@link #MAX_TTL}
     */
    static long ttl(Duration ttl) {
        return Checks.ttlMillis(ttl, MAX_TTL, "ttl");
    }
}
