package io.echomq.dashboard;

import java.util.Objects;

/**
 * What the server answered in one run of the blind {@code DEL}, played twice on one key. Each time
 * A acquires for a short ttl, pauses until the server has expired its lock, and B acquires. Then,
 * the first time, A sends a blind {@code DEL}; the second time, A releases with its token
 * ({@code release-3}, which deletes only while the key holds A's token). Each time B reads the key.
 *
 * @param key            the lock key
 * @param firstGrants    whether A's and then B's acquire both got OK, the first time
 * @param deleted        the reply to A's blind {@code DEL} (1: it deleted a key)
 * @param afterDelete    what B's {@code GET} answered after it; null for nil
 * @param secondGrants   whether both acquires got OK, the second time
 * @param release        A's token-checked release outcome ({@code RELEASED}, {@code NOT_OWNER},
 *                       {@code EXPIRED}), or null when A had no lease to release
 * @param bToken         B's token the second time, or null when B got nil
 * @param afterRelease   what B's {@code GET} answered after A's release; null for nil
 */
public record BlindDeleteRun(String key, boolean firstGrants, long deleted, String afterDelete, boolean secondGrants,
                             String release, String bToken, String afterRelease) {
    /**
     * @throws NullPointerException if key is null
     */
    public BlindDeleteRun {
        Objects.requireNonNull(key, "key");
    }

    /** @return whether the blind DEL deleted B's lock */
    public boolean hazard() {
        return firstGrants && deleted == 1 && afterDelete == null;
    }

    /** @return whether B's lock was intact after A's token-checked release */
    public boolean intact() {
        return secondGrants && bToken != null && bToken.equals(afterRelease);
    }

    /** @return the readout of the blind DEL */
    public String blindReadout() {
        return "blind DEL · A's lock expired, B acquired; A: DEL " + key + " → " + deleted + "; B: GET → "
                + (afterDelete == null ? "nil" : "its token") + ". Deleted B's lock: " + (hazard() ? "yes." : "no.");
    }

    /** @return the readout of the token-checked release */
    public String tokenReadout() {
        return "token release · A's lock expired, B acquired; A: release-3 (DEL only if GET = A's token) → " + release
                + "; B: GET → " + (afterRelease == null ? "nil" : intact() ? "B's token" : "another value")
                + ". B's lock intact: " + (intact() ? "yes." : "no.");
    }

    /**
     * @return for example {@code "blind DEL → 1, deleted B's lock: yes · token release → NOT_OWNER,
     *     B's lock intact: yes."}
     */
    public String verdicts() {
        return "blind DEL after A's lock expired → " + deleted + ", deleted B's lock: " + (hazard() ? "yes" : "no")
                + " · token-checked release → " + release + ", B's lock intact: " + (intact() ? "yes." : "no.");
    }
}
