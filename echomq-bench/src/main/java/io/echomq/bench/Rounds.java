package io.echomq.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * The order of a bench's A/B rounds: ours is A, the peer B, and the sides take turns so that each
 * one runs first in every other round, A B, B A, A B, … (A B B A A B for three rounds). A drift of
 * the machine's load during the run then falls on both sides alike instead of always on the one
 * that runs second, and each round's ratio compares figures measured seconds apart.
 */
final class Rounds {
    /** The rounds of a run when {@code --rounds} is not given: the fewest with a median and a range. */
    static final int DEFAULT = 3;
    /** The most rounds a run may ask for. */
    static final int MAX = 50;

    private Rounds() {
    }

    /** @return whether ours runs first in {@code round} (counted from 0) */
    static boolean oursFirst(int round) {
        if (round < 0) {
            throw new IllegalArgumentException("round must be >= 0, was " + round);
        }
        return round % 2 == 0;
    }

    /** @return the sides in the order they run over {@code rounds} rounds: "A", "B", "B", "A", … */
    static List<String> sequence(int rounds) {
        List<String> out = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            out.add(oursFirst(r) ? "A" : "B");
            out.add(oursFirst(r) ? "B" : "A");
        }
        return out;
    }

    /** @return how round {@code round} (from 0) is named in the output: {@code round 2 of 3 (peer first)} */
    static String label(int round, int rounds, String peer) {
        return "round " + (round + 1) + " of " + rounds + " (" + (oursFirst(round) ? "echomq" : peer) + " first)";
    }
}
