package io.echomq.dashboard;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * What the server answered in one run of the race: four workers each sent
 * {@code SET <key> <token> NX PX <hold>} at once; then the key was read back.
 *
 * <p>Only replies live here; every word a figure or the demo shows about the run is computed
 * from them ({@link #verdicts()}), so a run where the key was already held reads as such.
 *
 * @param key        the lock key the workers raced for
 * @param holdMillis the {@code PX} every worker sent
 * @param replies    one reply per worker, in worker order (w1 first)
 * @param stored     what {@code GET <key>} answered after the race; null for nil
 * @param pttl       what {@code PTTL <key>} answered after the race (-2: no key, -1: no expiry)
 */
public record RaceRun(String key, long holdMillis, List<Reply> replies, String stored, long pttl) {
    /** The characters of a token a figure shows: the whole token could release the lock. */
    public static final int TOKEN_SHOWN = 8;

    /**
     * One worker's acquire and the server's reply.
     *
     * @param worker the worker's name, {@code w1} .. {@code w4}
     * @param token  the token it sent
     * @param reply  {@code "OK"}, or null for nil
     */
    public record Reply(String worker, String token, String reply) {
        /**
         * @throws NullPointerException if worker or token is null
         */
        public Reply {
            Objects.requireNonNull(worker, "worker");
            Objects.requireNonNull(token, "token");
        }

        /** @return whether the server answered OK: this worker wrote its token */
        public boolean acquired() {
            return "OK".equals(reply);
        }

        /** @return the reply as redis-cli prints it: {@code OK} or {@code nil} */
        public String shown() {
            return reply == null ? "nil" : reply;
        }

        /** @return the first {@value #TOKEN_SHOWN} characters of the token */
        public String shortToken() {
            return token.length() > TOKEN_SHOWN ? token.substring(0, TOKEN_SHOWN) : token;
        }
    }

    /**
     * @throws NullPointerException if key or replies is null
     */
    public RaceRun {
        Objects.requireNonNull(key, "key");
        replies = List.copyOf(replies);
    }

    /** @return how many workers got OK */
    public int holders() {
        return (int) replies.stream().filter(Reply::acquired).count();
    }

    /** @return whether the key holds the token of the one worker that got OK */
    public boolean storedIsWinners() {
        return holders() == 1 && replies.stream().filter(Reply::acquired).anyMatch(r -> r.token().equals(stored));
    }

    /**
     * The outcome of one worker, in words, as its readout shows it.
     *
     * @param r one of {@link #replies()}
     * @return for example {@code "w2 · SET … NX PX 30000 → OK: it found the key absent and wrote
     *     token 1a2b3c4d; PTTL 29998 ms. The sole holder."}
     */
    public String readout(Reply r) {
        String sent = r.worker() + " · SET " + key + " " + r.shortToken() + "… NX PX " + holdMillis + " → " + r.shown();
        if (r.acquired()) {
            return sent + ": it found the key absent and wrote token " + r.shortToken() + "; PTTL " + pttl + " ms. "
                    + (holders() == 1 ? "The sole holder." : "One of " + holders() + " holders: double-acquired.");
        }
        return sent + ": " + (holders() == 0 ? "the key was already present" : "the key is now present")
                + ", nothing written. Not a holder.";
    }

    /**
     * The static verdicts, as the course gives them.
     *
     * @return for example {@code "w1 → finds the key absent, writes token 1a2b3c4d, OK (the sole
     *     holder) · w2, w3, w4 → the key is now present, nil. Holders of the lock: 1.
     *     Double-acquired: no."}
     */
    public String verdicts() {
        StringBuilder b = new StringBuilder();
        for (Reply r : replies) {
            if (r.acquired()) {
                b.append(b.length() == 0 ? "" : " · ").append(r.worker()).append(" → finds the key absent, writes token ")
                        .append(r.shortToken()).append(", OK (")
                        .append(holders() == 1 ? "the sole holder" : "one of " + holders() + " holders").append(')');
            }
        }
        String losers = replies.stream().filter(r -> !r.acquired()).map(Reply::worker).collect(Collectors.joining(", "));
        if (!losers.isEmpty()) {
            b.append(b.length() == 0 ? "" : " · ").append(losers).append(" → the key is ")
                    .append(holders() == 0 ? "already present" : "now present").append(", nil");
        }
        return b + ". Holders of the lock: " + holders() + ". Double-acquired: " + (holders() > 1 ? "yes" : "no") + ".";
    }
}
