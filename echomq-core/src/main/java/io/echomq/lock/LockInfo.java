package io.echomq.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A consistent snapshot of one lock, read in one script: who holds it, for how long, and the
 * last fence granted while its fence key still lives (see {@link #lastFence()}). A holder whose
 * client was given a label ({@link LockClient.Builder#holderLabel}) also shows the label and when it
 * was last granted or renewed; a value in any other form (a plain token, a foreign client's) shows
 * neither.
 */
public final class LockInfo {
    /** The longest holder label, in characters. */
    public static final int MAX_LABEL = 100;
    private static final Pattern LABEL = Pattern.compile("[A-Za-z0-9._:@/-]{1," + MAX_LABEL + "}");
    // <random>+<ttl ms>+<label>: the random part has no '+', the ttl is 1..19 digits
    private static final Pattern LABELLED = Pattern.compile("[^+]+\\+([0-9]{1,19})\\+(" + LABEL.pattern() + ")");

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
     * @return the holder's label ({@code host:pid:app} or what its client was given), or empty when
     *     nobody holds the lock or its value carries no label
     */
    public Optional<String> holderLabel() {
        Matcher m = labelled();
        return m == null ? Optional.empty() : Optional.of(m.group(2));
    }

    /**
     * How long ago the holder was granted the lock or last renewed it: its lease's ttl, stored in a
     * labelled value, less the ttl left. It assumes that each renewal set the lease's own ttl again,
     * as the watchdog and {@link Lease#renew()} do; a renewal to another ttl makes it wrong by the
     * difference.
     *
     * @return the time since the last grant or renewal, or empty when nobody holds the lock, it has
     *     no expiry, or its value carries no label
     */
    public Optional<Duration> lastRenewalAgo() {
        Matcher m = labelled();
        if (m == null || ttlMillis < 0) {
            return Optional.empty();
        }
        long leaseTtl;
        try {
            leaseTtl = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofMillis(Math.max(0, leaseTtl - ttlMillis)));
    }

    private Matcher labelled() {
        if (holderToken == null) {
            return null;
        }
        Matcher m = LABELLED.matcher(holderToken);
        return m.matches() ? m : null;
    }

    /**
     * @param label a holder label
     * @return the label
     * @throws IllegalArgumentException if it is null, empty, longer than {@link #MAX_LABEL} characters
     *     or has a character outside {@code A-Z a-z 0-9 . _ - : @ /}
     */
    static String checkLabel(String label) {
        if (label == null || !LABEL.matcher(label).matches()) {
            throw new IllegalArgumentException("holderLabel must be 1 to " + MAX_LABEL
                    + " characters of A-Z a-z 0-9 . _ - : @ /, not " + (label == null ? "null" : "'" + label + "'"));
        }
        return label;
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
