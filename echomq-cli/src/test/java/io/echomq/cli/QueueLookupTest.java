package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The names suggested for a queue that is not stored: close by edits or by their start, closest first. */
class QueueLookupTest {

    @Test
    void aSwapOfNeighboursIsOneEdit() {
        assertThat(QueueLookup.distance("paymnets", "payments")).isEqualTo(1);
        assertThat(QueueLookup.distance("emial", "email")).isEqualTo(1);
        assertThat(QueueLookup.distance("orders", "orders")).isZero();
        assertThat(QueueLookup.distance("", "abc")).isEqualTo(3);
        assertThat(QueueLookup.distance("kitten", "sitting")).isEqualTo(3);
    }

    @Test
    void closeNamesAreSuggestedClosestFirstAndAtMostThree() {
        List<String> known = List.of("payments", "payouts", "orders", "payment", "paymentz", "refunds");
        assertThat(QueueLookup.suggestions("paymnets", known)).containsExactly("payments", "payment", "paymentz");
        assertThat(QueueLookup.suggestions("zzz", known)).isEmpty();
        assertThat(QueueLookup.suggestions("orders", known)).as("never the name itself").isEmpty();
    }

    @Test
    void aSharedStartIsCloseWhateverTheDistance() {
        List<String> known = List.of("mailbox-archive", "orders-eu", "notifications-eu");
        assertThat(QueueLookup.suggestions("mailb", known)).containsExactly("mailbox-archive");
        assertThat(QueueLookup.suggestions("ord", known)).as("one name starting with the other")
                .containsExactly("orders-eu");
        assertThat(QueueLookup.suggestions("no", known)).as("too short to be a start").isEmpty();
    }
}
