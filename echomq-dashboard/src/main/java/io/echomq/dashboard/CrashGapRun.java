package io.echomq.dashboard;

import java.util.Objects;

/**
 * What the server answered in one run of the crash gap: process A sent {@code SETNX} and crashed
 * before its {@code EXPIRE}; B read the {@code TTL} and tried {@code SETNX} too; beside it, C
 * acquired with the one command {@code SET … NX PX} and read its {@code PTTL}.
 *
 * <p>Only replies live here; the words a figure shows are computed from them ({@link #verdicts()}).
 *
 * @param setnxKey    the key of the two-command acquire
 * @param firstSetnx  A's {@code SETNX} reply: whether it set the key
 * @param ttlAfterCrash what {@code TTL <setnxKey>} answered after A's crash (-1: no expiry)
 * @param secondSetnx B's {@code SETNX} reply: whether it set the key
 * @param atomicKey   the key of the one-command acquire
 * @param holdMillis  the {@code PX} C sent
 * @param atomicReply C's reply: {@code "OK"}, or null for nil
 * @param atomicPttl  what {@code PTTL <atomicKey>} answered after it
 */
public record CrashGapRun(String setnxKey, boolean firstSetnx, long ttlAfterCrash, boolean secondSetnx,
                          String atomicKey, long holdMillis, String atomicReply, long atomicPttl) {
    /**
     * @throws NullPointerException if a key is null
     */
    public CrashGapRun {
        Objects.requireNonNull(setnxKey, "setnxKey");
        Objects.requireNonNull(atomicKey, "atomicKey");
    }

    /** @return whether the two-command acquire ended in a deadlock: set, no expiry, the next SETNX refused */
    public boolean deadlock() {
        return firstSetnx && ttlAfterCrash == -1 && !secondSetnx;
    }

    /** @return whether the one-command acquire got OK and its lock has an expiry */
    public boolean atomicHasExpiry() {
        return "OK".equals(atomicReply) && atomicPttl > 0;
    }

    /** @return the readout of the two-command acquire, from its replies */
    public String setnxReadout() {
        return "SETNX then EXPIRE · A: SETNX " + setnxKey + " → " + (firstSetnx ? 1 : 0)
                + "; A crashes, EXPIRE is never sent; TTL → " + ttlAfterCrash + "; B: SETNX → " + (secondSetnx ? 1 : 0)
                + ". The lock ends " + (ttlAfterCrash == -1 ? "with no expiry" : "with TTL " + ttlAfterCrash)
                + ". A crash deadlocks the resource: " + (deadlock() ? "yes." : "no.");
    }

    /** @return the readout of the one-command acquire, from its replies */
    public String atomicReadout() {
        return "SET … NX PX · C: SET " + atomicKey + " <token> NX PX " + holdMillis + " → "
                + (atomicReply == null ? "nil" : atomicReply) + "; PTTL → " + atomicPttl + ". The lock ends "
                + (atomicHasExpiry() ? "with an expiry (" + atomicPttl + " ms left)" : "with no expiry") + ". A crash "
                + "deadlocks the resource: " + (atomicHasExpiry() ? "no." : "it could.");
    }

    /**
     * The static verdicts, as the course gives them.
     *
     * @return for example {@code "SET … NX PX → one command, the lock has an expiry (PTTL 29998 ms),
     *     no deadlock · SETNX then EXPIRE → a crash between the two left a lock with no expiry
     *     (TTL -1), and the next SETNX got 0: a deadlock."}
     */
    public String verdicts() {
        String atomic = "SET … NX PX → one command, "
                + (atomicHasExpiry() ? "the lock has an expiry (PTTL " + atomicPttl + " ms), no deadlock"
                        : "reply " + (atomicReply == null ? "nil" : atomicReply) + ", PTTL " + atomicPttl);
        String split = "SETNX then EXPIRE → a crash between the two left a lock with "
                + (ttlAfterCrash == -1 ? "no expiry (TTL -1)" : "TTL " + ttlAfterCrash) + ", and the next SETNX got "
                + (secondSetnx ? 1 : 0) + (deadlock() ? ": a deadlock." : ": no deadlock.");
        return atomic + " · " + split;
    }
}
