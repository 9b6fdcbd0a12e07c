package io.echomq.dashboard;

import java.util.Objects;

/**
 * What the server answered in one run of the stale fenced write: A acquired (fence a) and paused
 * past its ttl; B acquired (fence b); B wrote to a fenced store with b, then A with a; the store
 * was read back; A tried to renew its lost lease.
 *
 * @param lockKey    the lock's key
 * @param fenceKey   the key of the lock's fence
 * @param key        the data key of the fenced store
 * @param aFence     A's fence
 * @param bFence     B's fence
 * @param bWrite     B's write outcome ({@code WRITTEN}, {@code STALE})
 * @param aWrite     A's write outcome
 * @param keptValue  the value the store kept; null when it kept none
 * @param keptFence  the fence stored with it; 0 when none
 * @param renew      A's renew outcome ({@code RENEWED}, {@code NOT_OWNER}, {@code EXPIRED})
 */
public record FencedWriteRun(String lockKey, String fenceKey, String key, long aFence, long bFence, String bWrite, String aWrite, String keptValue,
                             long keptFence, String renew) {
    /** The value B writes. */
    public static final String B_VALUE = "written by B";

    /**
     * @throws NullPointerException if a key is null
     */
    public FencedWriteRun {
        Objects.requireNonNull(lockKey, "lockKey");
        Objects.requireNonNull(fenceKey, "fenceKey");
        Objects.requireNonNull(key, "key");
    }

    /** @return whether the stale write was refused and the store kept B's value with B's fence */
    public boolean staleRefused() {
        return "WRITTEN".equals(bWrite) && "STALE".equals(aWrite) && B_VALUE.equals(keptValue) && keptFence == bFence
                && bFence > aFence;
    }

    /** @return whether A's renew did not revive its lost lease */
    public boolean notRevived() {
        return !"RENEWED".equals(renew);
    }

    /** @return B's readout */
    public String bReadout() {
        return "B · fence " + bFence + ", fenced-write-1 " + key + " → " + bWrite + ". The store keeps "
                + (keptValue == null ? "nothing" : "\"" + keptValue + "\" with fence " + keptFence) + ".";
    }

    /** @return A's readout */
    public String aReadout() {
        return "A · fence " + aFence + " (its lease expired while it paused), fenced-write-1 " + key + " → " + aWrite
                + "; renew → " + renew + ". Refused: " + ("STALE".equals(aWrite) ? "yes" : "no") + "; revived: "
                + (notRevived() ? "no." : "yes.");
    }

    /**
     * @return for example {@code "A's write with fence 17… after B's 18… → STALE, the store kept
     *     B's value: yes · A's renew → NOT_OWNER, the lost lease revived: no."}
     */
    public String verdicts() {
        return "stale holder's write (fence " + aFence + ", after B's " + bFence + ") → " + aWrite
                + ", the store kept B's value: " + (staleRefused() ? "yes" : "no") + " · A's renew → " + renew
                + ", the lost lease revived: " + (notRevived() ? "no." : "yes.");
    }
}
