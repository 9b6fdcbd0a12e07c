package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The median and range arithmetic of the A/B rounds, and the text the tables print. */
class SpreadTest {
    private static final double NAN = Double.NaN;

    @Test
    void anOddCountTakesTheMiddleFigureWhateverTheOrder() {
        Spread s = Spread.of(List.of(4.5, 3.56, 4.95));
        assertThat(s.median()).isEqualTo(4.5);
        assertThat(s.min()).isEqualTo(3.56);
        assertThat(s.max()).isEqualTo(4.95);
        assertThat(s.n()).isEqualTo(3);
        assertThat(s.ratioText()).isEqualTo("4.50 (3.56–4.95)");
        assertThat(s.medianText()).isEqualTo("4.50");
    }

    @Test
    void anEvenCountTakesTheMeanOfTheTwoMiddleFigures() {
        Spread s = Spread.of(List.of(2.0, 1.0, 10.0, 3.0));
        assertThat(s.median()).isEqualTo(2.5);
        assertThat(s.min()).isEqualTo(1.0);
        assertThat(s.max()).isEqualTo(10.0);
    }

    @Test
    void roundsThatDidNotMeasureAreLeftOut() {
        Spread s = Spread.of(Arrays.asList(NAN, 2.0, null, 4.0, 3.0));
        assertThat(s.n()).isEqualTo(3);
        assertThat(s.median()).isEqualTo(3.0);
        assertThat(Spread.of(List.of(NAN, NAN))).isEqualTo(Spread.NONE);
        assertThat(Spread.NONE.ratioText()).isEqualTo("n/a");
        assertThat(Spread.NONE.medianText()).isEqualTo("n/a");
    }

    @Test
    void oneRoundPrintsItsFigureWithoutARange() {
        assertThat(Spread.of(List.of(1.234)).ratioText()).isEqualTo("1.23");
    }

    @Test
    void theRatioIsTheMedianOfThePerRoundRatiosNotTheRatioOfTheMedians() {
        // rounds: 100/50 = 2, 300/100 = 3, 200/200 = 1; the ratio of the medians would be 200/100 = 2
        Spread s = Spread.ofRatios(List.of(100.0, 300.0, 200.0), List.of(50.0, 100.0, 200.0));
        assertThat(s.median()).isEqualTo(2.0);
        assertThat(s.min()).isEqualTo(1.0);
        assertThat(s.max()).isEqualTo(3.0);
        // rounds: 100/40 = 2.5, 120/60 = 2, 300/100 = 3: median 2.5, where the medians give 120/60 = 2
        assertThat(Spread.ofRatios(List.of(100.0, 120.0, 300.0), List.of(40.0, 60.0, 100.0)).median())
                .isCloseTo(2.5, within(1e-9));
    }

    @Test
    void aRoundWithOneSideMissingOrZeroGivesNoRatio() {
        Spread s = Spread.ofRatios(List.of(10.0, 10.0, NAN), List.of(NAN, 5.0, 5.0));
        assertThat(s.n()).isEqualTo(1);
        assertThat(s.median()).isEqualTo(2.0);
        assertThat(Spread.ofRatios(List.of(1.0), List.of(0.0))).isEqualTo(Spread.NONE);
        assertThatThrownBy(() -> Spread.ofRatios(List.of(1.0), List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
