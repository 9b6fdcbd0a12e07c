package io.echomq.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.RedisCommandException;
import io.echomq.lock.LockClient;
import io.echomq.queue.QueueClient;
import io.echomq.testkit.RedisExtension;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The audit trail on a real server: what a record holds, how reads order and filter it, and its bounds. */
class AuditTrailTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private QueueClient queues;
    private LockClient locks;
    private AuditTrail trail;

    @BeforeEach
    void connect() {
        REDIS.flushAll();
        queues = QueueClient.create(REDIS.url());
        locks = LockClient.create(REDIS.url());
        trail = queues.auditTrail();
    }

    @AfterEach
    void close() {
        queues.close();
        locks.close();
    }

    @Test
    void aRecordHoldsWhatWhoAndWhenOnTheServersClock() {
        Instant before = Instant.now().minusSeconds(5);
        String id = trail.record(AuditTarget.queue("payments"), AuditAction.PAUSED, "emq alice@web-1 pid 42", null);

        List<AuditEntry> read = locks.auditTrail().recent(10);
        assertThat(read).hasSize(1);
        AuditEntry e = read.get(0);
        assertThat(e.id()).isEqualTo(id);
        assertThat(e.action()).isEqualTo("paused");
        assertThat(e.target()).isEqualTo(AuditTarget.queue("payments"));
        assertThat(e.who()).isEqualTo("emq alice@web-1 pid 42");
        assertThat(e.detail()).isEmpty();
        assertThat(e.at()).isAfter(before).isBefore(Instant.now().plusSeconds(5))
                .isEqualTo(Instant.ofEpochMilli(Long.parseLong(id.substring(0, id.indexOf('-')))));
        assertThat(REDIS.raw().call("XRANGE", AuditTrail.KEY, "-", "+").toString())
                .as("the wire: one stream entry with named fields")
                .contains("action", "paused", "queue", "payments", "who", "detail");
    }

    @Test
    void readsAreNewestFirstAndFilterByQueueOrLock() {
        trail.record(AuditTarget.queue("payments"), AuditAction.PAUSED, "a", null);
        trail.record(AuditTarget.lock("nightly-billing"), AuditAction.TAKEN_OVER, "b", "fence 7");
        trail.record(AuditTarget.queue("emails"), AuditAction.CAP_SET, "c", "cap 2");
        trail.record(AuditTarget.queue("payments"), AuditAction.REDRIVEN, "d", "3 jobs: 1, 2, 3");

        assertThat(trail.recent(10)).extracting(AuditEntry::who).containsExactly("d", "c", "b", "a");
        assertThat(trail.recent(2)).extracting(AuditEntry::who).containsExactly("d", "c");
        assertThat(trail.recent(AuditTarget.queue("payments"), 10)).extracting(AuditEntry::action)
                .containsExactly("redriven", "paused");
        assertThat(trail.recent(AuditTarget.queue("payments"), 1)).extracting(AuditEntry::detail)
                .containsExactly("3 jobs: 1, 2, 3");
        assertThat(trail.recent(AuditTarget.lock("nightly-billing"), 10)).extracting(AuditEntry::detail)
                .containsExactly("fence 7");
        assertThat(trail.recent(AuditTarget.lock("payments"), 10)).as("a lock is not a queue of the same name")
                .isEmpty();
    }

    @Test
    void aFilteredReadPagesBackPastOtherRecords() {
        trail.record(AuditTarget.queue("old"), AuditAction.DELETED, "first", "10 jobs");
        for (int i = 0; i < 1_200; i++) {
            REDIS.raw().call("XADD", AuditTrail.KEY, "*", "action", "paused", "queue", "busy", "who", "w" + i,
                    "detail", "");
        }
        assertThat(trail.recent(AuditTarget.queue("old"), 5)).extracting(AuditEntry::who).containsExactly("first");
    }

    @Test
    void theStreamIsCappedAtAboutTenThousandRecords() {
        for (int i = 0; i < AuditTrail.MAX_ENTRIES + 300; i++) {
            trail.record(AuditTarget.queue("q"), AuditAction.PAUSED, "w", Integer.toString(i));
        }
        long length = (Long) REDIS.raw().call("XLEN", AuditTrail.KEY);
        assertThat(length).isBetween((long) AuditTrail.MAX_ENTRIES, AuditTrail.MAX_ENTRIES + 299L);
        assertThat(trail.recent(1).get(0).detail()).isEqualTo(Integer.toString(AuditTrail.MAX_ENTRIES + 299));
    }

    @Test
    void badInputIsRefusedAndNothingIsWritten() {
        AuditTarget q = AuditTarget.queue("q");
        assertThatThrownBy(() -> trail.record(q, AuditAction.PAUSED, " ", null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("who");
        assertThatThrownBy(() -> trail.record(q, AuditAction.PAUSED, "x".repeat(AuditTrail.MAX_WHO + 1), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maximum is " + AuditTrail.MAX_WHO);
        assertThatThrownBy(() -> trail.record(q, AuditAction.PAUSED, "a\nb", null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("control");
        assertThatThrownBy(() -> trail.record(null, AuditAction.PAUSED, "a", null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> AuditTarget.queue("bad name")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AuditTarget.lock("a{b}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> trail.recent(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> trail.recent(q, AuditTrail.MAX_READ + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat((Long) REDIS.raw().call("EXISTS", AuditTrail.KEY)).isZero();
    }

    @Test
    void aLongDetailIsCut() {
        trail.record(AuditTarget.queue("q"), AuditAction.PURGED, "w", "x".repeat(5_000));
        String detail = trail.recent(1).get(0).detail();
        assertThat(detail).hasSize(AuditTrail.MAX_DETAIL).endsWith("…");
    }

    @Test
    void recordsOfAnotherWriterWithoutAWhoOrTargetAreSkipped() {
        REDIS.raw().call("XADD", AuditTrail.KEY, "*", "note", "not ours");
        REDIS.raw().call("XADD", AuditTrail.KEY, "*", "action", "paused", "who", "x");
        trail.record(AuditTarget.queue("q"), AuditAction.RESUMED, "w", null);
        assertThat(trail.recent(10)).extracting(AuditEntry::action).containsExactly("resumed");
    }

    @Test
    void aKeyOfAnotherTypeIsACommandError() {
        REDIS.raw().call("SET", AuditTrail.KEY, "x");
        assertThatThrownBy(() -> trail.record(AuditTarget.queue("q"), AuditAction.PAUSED, "w", null))
                .isInstanceOf(RedisCommandException.class).hasMessageContaining("WRONGTYPE");
        assertThatThrownBy(() -> trail.recent(5)).isInstanceOf(RedisCommandException.class);
    }

    @Test
    void theJobsDetailNamesTheCountAndAtMostTenOfTheFirstIds() {
        assertThat(AuditTrail.jobsDetail(1, List.of())).isEqualTo("1 job");
        assertThat(AuditTrail.jobsDetail(4, List.of("2", "5", "8", "11"))).isEqualTo("4 jobs, first ids: 2, 5, 8, 11");
        assertThat(AuditTrail.jobsDetail(2, List.of("2", "5", "8"))).as("no more ids than jobs")
                .isEqualTo("2 jobs, first ids: 2, 5");
        List<String> many = java.util.stream.IntStream.rangeClosed(1, 20).mapToObj(Integer::toString).toList();
        assertThat(AuditTrail.jobsDetail(500, many)).isEqualTo("500 jobs, first ids: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10");
        assertThat(AuditTrail.jobsDetail(0, many)).isEqualTo("0 jobs");
    }
}
