package io.echomq.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The checkers must pass clean histories and catch each kind of violation. */
class HistoryCheckersTest {

    private static LockHistory.Grant grant(String who, long fence, long sent, long reply, long end) {
        return new LockHistory.Grant(who, fence, sent, reply, end);
    }

    @Test
    void lockHistoryPassesSequentialGrantsAndWrites() {
        LockHistory h = new LockHistory();
        h.grant(grant("a", 1, 0, 10, 100));
        h.grant(grant("b", 2, 50, 120, 200));   // sent while a held, granted after a ended
        h.grant(grant("c", 3, 210, 220, 215));  // deadline before reply: held for no certain time
        h.write(new LockHistory.Write("a", 1, true, 20, 30));
        h.write(new LockHistory.Write("b", 2, true, 130, 140));
        h.write(new LockHistory.Write("a", 1, false, 150, 160));
        LockHistory.Report r = h.check();
        assertThat(r.violations()).isEmpty();
        assertThat(r.ok()).isTrue();
        assertThat(r.grants()).isEqualTo(3);
        assertThat(r.writes()).isEqualTo(3);
        assertThat(r.refused()).isEqualTo(1);
    }

    @Test
    void lockHistoryCatchesADoubleGrant() {
        LockHistory h = new LockHistory();
        h.grant(grant("a", 1, 0, 10, 100));
        h.grant(grant("b", 2, 20, 30, 200));
        assertThat(h.check().violations()).singleElement().asString().startsWith("double grant");
    }

    @Test
    void lockHistoryCatchesAFenceThatWentBackOrRepeats() {
        LockHistory h = new LockHistory();
        h.grant(grant("a", 5, 0, 10, 20));
        h.grant(grant("b", 4, 30, 40, 50));
        assertThat(h.check().violations()).singleElement().asString().startsWith("fence went back");

        LockHistory twice = new LockHistory();
        twice.grant(grant("a", 7, 0, 10, 20));
        twice.grant(grant("b", 7, 5, 30, 40));   // overlapping requests: order unknown, but a fence repeats
        assertThat(twice.check().violations()).singleElement().asString().startsWith("fence 7 granted twice");
    }

    @Test
    void lockHistoryCatchesAStaleWriteAccepted() {
        LockHistory h = new LockHistory();
        h.write(new LockHistory.Write("b", 2, true, 0, 10));
        h.write(new LockHistory.Write("a", 1, true, 20, 30));
        assertThat(h.check().violations()).singleElement().asString().startsWith("stale write accepted");
    }

    @Test
    void lockHistoryRejectsTimesOutOfOrder() {
        LockHistory h = new LockHistory();
        assertThatThrownBy(() -> h.grant(grant("a", 1, 10, 5, 20))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> h.write(new LockHistory.Write("a", 1, true, 10, 5)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void queueHistoryPassesACleanRunWithARetryAndAReap() {
        QueueHistory h = new QueueHistory();
        h.enqueued(List.of("1", "2", "3"));
        assertThat(h.record("CLAIMED 1 1")).isTrue();
        assertThat(h.record("SETTLED 1 1 COMPLETED")).isTrue();
        h.record("CLAIMED 2 1");                  // worker killed: no settle reported
        h.record("CLAIMED 2 2");
        h.record("SETTLED 2 2 COMPLETED");
        h.record("CLAIMED 3 1");
        h.record("SETTLED 3 1 DEAD");
        QueueHistory.Report r = h.check(Map.of("1", new QueueHistory.Final("done", 1),
                "2", new QueueHistory.Final("done", 2), "3", new QueueHistory.Final("dead", 1)));
        assertThat(r.violations()).isEmpty();
        assertThat(r).extracting(QueueHistory.Report::enqueued, QueueHistory.Report::claims,
                QueueHistory.Report::completed, QueueHistory.Report::done, QueueHistory.Report::dead,
                QueueHistory.Report::lost).containsExactly(3, 4L, 2L, 2L, 1L, 0L);
    }

    @Test
    void queueHistoryCatchesALostJob() {
        QueueHistory h = new QueueHistory();
        h.enqueued(List.of("1", "2"));
        QueueHistory.Report r = h.check(Map.of("1", new QueueHistory.Final("pending", 1)));
        assertThat(r.lost()).isEqualTo(2);
        assertThat(r.violations()).hasSize(2).allMatch(v -> v.startsWith("lost"));
    }

    @Test
    void queueHistoryCatchesAStaleCompletion() {
        QueueHistory h = new QueueHistory();
        h.enqueued(List.of("1"));
        h.record("CLAIMED 1 1");
        h.record("CLAIMED 1 2");
        h.record("SETTLED 1 2 COMPLETED");
        h.record("SETTLED 1 1 COMPLETED");
        assertThat(h.check(Map.of("1", new QueueHistory.Final("done", 2))).violations())
                .anyMatch(v -> v.startsWith("stale completion accepted"));
    }

    @Test
    void queueHistoryCatchesADoneJobClaimedAgain() {
        QueueHistory h = new QueueHistory();
        h.enqueued(List.of("1"));
        h.record("CLAIMED 1 1");
        h.record("SETTLED 1 1 COMPLETED");
        h.record("CLAIMED 1 2");
        assertThat(h.check(Map.of("1", new QueueHistory.Final("active", 2))).violations())
                .anyMatch(v -> v.startsWith("done returned"));
    }

    @Test
    void queueHistoryCatchesAReusedFence() {
        QueueHistory h = new QueueHistory();
        h.enqueued(List.of("1"));
        h.record("CLAIMED 1 1");
        h.record("CLAIMED 1 1");
        assertThat(h.check(Map.of("1", new QueueHistory.Final("dead", 1))).violations())
                .singleElement().asString().startsWith("fence reused");
    }

    @Test
    void queueHistoryFailsOnALineItCannotRead() {
        QueueHistory h = new QueueHistory();
        h.enqueued(List.of("1"));
        assertThat(h.record("CLAIMED 1 1")).isTrue();
        assertThat(h.record("SETTLED 1 1 COMPLETED")).isTrue();
        for (String bad : List.of("worker started", "CLAIMED 1", "CLAIMED 1 x", "CLAIMED 1 0", "SETTLED 1 1",
                "SETTLED 1 1 DONE", "SETTLED 1 1 COMPLETED extra", "CLAIMED  1")) {
            assertThat(h.record(bad)).as(bad).isFalse();
        }
        QueueHistory.Report r = h.check(Map.of("1", new QueueHistory.Final("done", 1)));
        assertThat(r.violations()).hasSize(8).allMatch(v -> v.startsWith("unparsable report: "));
        assertThat(r.completed()).isEqualTo(1);
    }

    @Test
    void queueHistoryCountsDoneJobsWhoseCompletionWasNeverReported() {
        QueueHistory h = new QueueHistory();
        h.enqueued(List.of("1", "2"));
        h.record("CLAIMED 1 1");
        h.record("SETTLED 1 1 COMPLETED");
        h.record("CLAIMED 2 1");                  // its completion's answer was lost
        QueueHistory.Report r = h.check(Map.of("1", new QueueHistory.Final("done", 1),
                "2", new QueueHistory.Final("done", 1)));
        assertThat(r.violations()).isEmpty();
        assertThat(r.completed()).isEqualTo(1);
        assertThat(r.unreported()).isEqualTo(1);
    }

    @Test
    void queueHistoryCatchesAJobDoneAtAnAttemptNobodyClaimed() {
        QueueHistory h = new QueueHistory();
        h.enqueued(List.of("1"));
        h.record("CLAIMED 1 1");
        assertThat(h.check(Map.of("1", new QueueHistory.Final("done", 2))).violations())
                .singleElement().asString().startsWith("done by an unreported claim");
    }
}
