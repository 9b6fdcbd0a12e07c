package io.echomq.lock;

import java.time.Duration;
import java.util.Optional;

/**
 * A consistent snapshot of one lock, read in one script: who holds it, for how long, and the
 * last fence granted while its fence key still lives (see {@link #lastFence()}).
 */
public final class LockInfo {
    private final String resource;
    private final String holderToken;
    private final long ttlMillis;
    private final long lastFence;

    LockInfo(String resource, String holderToken, long ttlMillis, long lastFence) {
        this.resource = resource;
        // Held is decided by the key's existence (PTTL != -2), not by the token: a foreign client
        // may have written an empty string, which still blocks SET NX.
        this.holderToken = ttlMillis == -2 ? null : (holderToken == null ? "" : holderToken);
        this.ttlMillis = ttlMillis;
        this.lastFence = lastFence;
    }

    /** @return the resource */
    public String resource() {
        return resource;
    }

    /** @return whether anybody holds the lock */
    public boolean isHeld() {
        return holderToken != null;
    }

    /** @return the holder's token, or empty when nobody holds the lock */
    public Optional<String> holderToken() {
        return Optional.ofNullable(holderToken);
    }

    /**
     * @return the remaining ttl in milliseconds as {@code PTTL} reports it: {@code -2} when not
     *     held, {@code -1} when held with no expiry (the SETNX-then-crash deadlock)
     */
    public long ttlMillis() {
        return ttlMillis;
    }

    /** @return the remaining ttl, or empty when not held or held with no expiry */
    public Optional<Duration> remaining() {
        return ttlMillis >= 0 ? Optional.of(Duration.ofMillis(ttlMillis)) : Optional.empty();
    }

    /**
     * @return the last fence granted for this resource while its fence key lives: while a lease is
     *     held (and for at least a ttl after the last grant); {@code 0} when the key is gone, after
     *     which the next grant's fence is the server's clock in microseconds, above every earlier one
     */
    public long lastFence() {
        return lastFence;
    }

    @Override
    public String toString() {
        return "LockInfo[" + resource + ", held=" + isHeld() + ", ttlMillis=" + ttlMillis + ", lastFence="
                + lastFence + "]";
    }
}
