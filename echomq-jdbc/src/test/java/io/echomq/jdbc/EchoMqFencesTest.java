package io.echomq.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.testkit.RedisExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** End to end: real fences from a real Redis (a lock's grants, a job's claims) written through FencedUpdate to H2. */
class EchoMqFencesTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final FencedUpdate REPORT = FencedUpdate.of("report", "id", "fence", "body");

    private H2Database db;

    @BeforeEach
    void setUp() throws SQLException {
        REDIS.flushAll();
        db = new H2Database();
        db.exec("CREATE TABLE report (id VARCHAR(64) PRIMARY KEY, body VARCHAR(200) NOT NULL, fence BIGINT NOT NULL)");
    }

    @AfterEach
    void tearDown() throws SQLException {
        db.close();
    }

    private FencedOutcome write(String key, long fence, String body) throws SQLException {
        try (Connection c = db.connect()) {
            return REPORT.write(c, key, fence, body);
        }
    }

    @Test
    void aLockHoldersFenceIsRefusedOnceANewerGrantHasWritten() throws SQLException {
        try (LockClient locks = LockClient.create(REDIS.url())) {
            Lease first = locks.tryAcquire("nightly-report", Duration.ofSeconds(30)).orElseThrow();
            assertThat(write("nightly", first.fence(), "by the first holder")).isEqualTo(FencedOutcome.WRITTEN);
            // The first holder is presumed gone (here: it lets go); a second holder is granted a newer fence.
            first.release();
            Lease second = locks.tryAcquire("nightly-report", Duration.ofSeconds(30)).orElseThrow();
            assertThat(second.fence()).isGreaterThan(first.fence());
            assertThat(write("nightly", second.fence(), "by the second holder")).isEqualTo(FencedOutcome.WRITTEN);
            // The first holder wakes from a pause and writes with its old fence: refused, the row unchanged.
            assertThat(write("nightly", first.fence(), "stale")).isEqualTo(FencedOutcome.STALE);
            assertThat(db.row("report", "nightly")).isEqualTo("by the second holder@" + second.fence());
            second.release();
        }
    }

    @Test
    void aReapedAttemptsWriteIsRefusedOnceTheNextAttemptHasWritten() throws SQLException {
        try (QueueClient client = QueueClient.create(REDIS.url())) {
            Queue q = client.queue("reports");
            String id = q.enqueue("build the report");
            Job first = q.claim(Duration.ofMillis(200)).orElseThrow();
            assertThat(first.id()).isEqualTo(id);
            // The first attempt stalls past its lease; the reaper gives the job back and another worker claims it.
            await().atMost(Duration.ofSeconds(10)).until(() -> !first.isHeld());
            await().atMost(Duration.ofSeconds(10)).until(() -> q.reap(10).returned() > 0);
            Job second = q.claim(Duration.ofSeconds(30)).orElseThrow();
            assertThat(second.id()).isEqualTo(id);
            assertThat(second.attempt()).isGreaterThan(first.attempt());

            assertThat(write(id, second.attempt(), "by attempt " + second.attempt())).isEqualTo(FencedOutcome.WRITTEN);
            assertThat(write(id, first.attempt(), "stale")).isEqualTo(FencedOutcome.STALE);
            assertThat(db.row("report", id)).isEqualTo("by attempt " + second.attempt() + "@" + second.attempt());
            second.complete();
        }
    }
}
