package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The order of the A/B rounds: A B B A A B …, each side first in every other round. */
class RoundsTest {
    @Test
    void theSidesTakeTurnsToGoFirst() {
        assertThat(Rounds.sequence(3)).containsExactly("A", "B", "B", "A", "A", "B");
        assertThat(Rounds.sequence(4)).containsExactly("A", "B", "B", "A", "A", "B", "B", "A");
        assertThat(Rounds.sequence(1)).containsExactly("A", "B");
        assertThat(Rounds.oursFirst(0)).isTrue();
        assertThat(Rounds.oursFirst(1)).isFalse();
        assertThat(Rounds.oursFirst(2)).isTrue();
        assertThatThrownBy(() -> Rounds.oursFirst(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void overAnEvenCountEachSideGoesFirstEquallyOften() {
        long first = Rounds.sequence(6).stream().filter("A"::equals).count();
        assertThat(first).isEqualTo(6);
        int oursFirst = 0;
        for (int r = 0; r < 6; r++) {
            oursFirst += Rounds.oursFirst(r) ? 1 : 0;
        }
        assertThat(oursFirst).isEqualTo(3);
    }

    @Test
    void theLabelNamesTheRoundAndWhoWentFirst() {
        assertThat(Rounds.label(0, 3, "redisson")).isEqualTo("round 1 of 3 (echomq first)");
        assertThat(Rounds.label(1, 3, "redisson")).isEqualTo("round 2 of 3 (redisson first)");
        assertThat(Rounds.DEFAULT).isEqualTo(3);
    }
}
