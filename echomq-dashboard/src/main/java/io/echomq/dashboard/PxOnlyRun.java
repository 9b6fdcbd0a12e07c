package io.echomq.dashboard;

import java.util.Objects;

/**
 * What the server answered in one run of "PX without NX": C1 and C2 each sent
 * {@code SET <key> <token> PX <hold>} (no {@code NX}), the key was read back, then C3 sent the same
 * with {@code NX}.
 *
 * @param key         the lock key
 * @param holdMillis  the {@code PX} each sent
 * @param firstToken  C1's token
 * @param firstReply  C1's reply: {@code "OK"}, or null for nil
 * @param secondToken C2's token
 * @param secondReply C2's reply
 * @param stored      what {@code GET <key>} answered after the two; null for nil
 * @param nxReply     C3's reply to {@code SET … NX PX}
 */
public record PxOnlyRun(String key, long holdMillis, String firstToken, String firstReply, String secondToken,
                        String secondReply, String stored, String nxReply) {
    /**
     * @throws NullPointerException if key or a token is null
     */
    public PxOnlyRun {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(firstToken, "firstToken");
        Objects.requireNonNull(secondToken, "secondToken");
    }

    /** @return how many of C1 and C2 got OK, and so believe they hold the lock */
    public int believers() {
        return ("OK".equals(firstReply) ? 1 : 0) + ("OK".equals(secondReply) ? 1 : 0);
    }

    /** @return whether the key holds C2's token: C2 overwrote C1's lock */
    public boolean overwritten() {
        return secondToken.equals(stored);
    }

    /** @return whether C3's {@code SET … NX PX} was refused (nil) on the held key */
    public boolean nxRefused() {
        return nxReply == null;
    }

    /** @return C1's readout */
    public String firstReadout() {
        return "C1 · SET " + key + " " + shortToken(firstToken) + "… PX " + holdMillis + " (no NX) → " + shown(firstReply)
                + (overwritten() ? ": it believes it holds the lock, but C2 overwrote its token." : ".");
    }

    /** @return C2's readout */
    public String secondReadout() {
        return "C2 · SET " + key + " " + shortToken(secondToken) + "… PX " + holdMillis + " (no NX) → "
                + shown(secondReply) + "; GET → " + (stored == null ? "nil" : shortToken(stored) + "…")
                + (overwritten() ? ": it overwrote C1's lock. Two clients believe they hold it." : ".");
    }

    /** @return C3's readout */
    public String nxReadout() {
        return "C3 · SET " + key + " <token> NX PX " + holdMillis + " → " + shown(nxReply)
                + (nxRefused() ? ": with NX the held lock is refused." : ": NX did not refuse the held lock.");
    }

    /**
     * @return for example {@code "C1, C2 → SET … PX without NX, OK and OK: C2 overwrote C1's token.
     *     Clients that believe they hold the lock: 2. Double-acquired: yes · C3 → SET … NX PX →
     *     nil: with NX the held lock is refused."}
     */
    public String verdicts() {
        return "C1, C2 → SET … PX without NX, " + shown(firstReply) + " and " + shown(secondReply)
                + (overwritten() ? ": C2 overwrote C1's token" : ": C1's token kept") + ". Clients that believe they "
                + "hold the lock: " + believers() + ". Double-acquired: " + (believers() > 1 ? "yes" : "no") + " · C3 → "
                + "SET … NX PX → " + shown(nxReply) + (nxRefused() ? ": with NX the held lock is refused."
                        : ": NX did not refuse the held lock.");
    }

    static String shown(String reply) {
        return reply == null ? "nil" : reply;
    }

    static String shortToken(String token) {
        return token.length() > RaceRun.TOKEN_SHOWN ? token.substring(0, RaceRun.TOKEN_SHOWN) : token;
    }
}
