package io.echomq.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** FencedUpdate against a real H2 database: ordering by fence, the first insert, races, the caller's transaction. */
class FencedUpdateTest {
    private static final FencedUpdate REPORT = FencedUpdate.of("report", "id", "fence", "body");

    private H2Database db;

    @BeforeEach
    void createTable() throws SQLException {
        db = new H2Database();
        db.exec("CREATE TABLE report (id VARCHAR(64) PRIMARY KEY, body VARCHAR(200) NOT NULL, fence BIGINT NOT NULL)");
    }

    @AfterEach
    void drop() throws SQLException {
        db.close();
    }

    private FencedOutcome write(String key, long fence, String body) throws SQLException {
        try (Connection c = db.connect()) {
            return REPORT.write(c, key, fence, body);
        }
    }

    @Test
    void theStatementsAreTheDocumentedOnes() {
        assertThat(REPORT.updateSql()).isEqualTo("UPDATE report SET body = ?, fence = ? WHERE id = ? AND fence <= ?");
        assertThat(REPORT.insertSql()).isEqualTo("INSERT INTO report (id, body, fence) VALUES (?, ?, ?)");
    }

    @Test
    void aFirstWriteInsertsTheRow() throws SQLException {
        assertThat(db.row("report", "r1")).isNull();
        assertThat(write("r1", 5, "first")).isEqualTo(FencedOutcome.WRITTEN);
        assertThat(db.row("report", "r1")).isEqualTo("first@5");
    }

    @Test
    void aNewerFenceOverwrites() throws SQLException {
        write("r1", 5, "old");
        assertThat(write("r1", 6, "new")).isEqualTo(FencedOutcome.WRITTEN);
        assertThat(db.row("report", "r1")).isEqualTo("new@6");
    }

    @Test
    void anOlderFenceIsRefusedAndLeavesTheRowAsItWas() throws SQLException {
        write("r1", 7, "newer");
        assertThat(write("r1", 6, "stale")).isEqualTo(FencedOutcome.STALE);
        assertThat(db.row("report", "r1")).isEqualTo("newer@7");
    }

    @Test
    void anEqualFenceIsTheSameHolderWritingAgain() throws SQLException {
        write("r1", 7, "draft");
        assertThat(write("r1", 7, "final")).isEqualTo(FencedOutcome.WRITTEN);
        assertThat(db.row("report", "r1")).isEqualTo("final@7");
    }

    @Test
    void aStaleWriteThatLandsFirstIsAcceptedAndTheNewerThenOverwrites() throws SQLException {
        // A fence orders writes; it does not deduplicate them. Both writes happen.
        assertThat(write("r1", 1, "attempt 1")).isEqualTo(FencedOutcome.WRITTEN);
        assertThat(db.row("report", "r1")).isEqualTo("attempt 1@1");
        assertThat(write("r1", 2, "attempt 2")).isEqualTo(FencedOutcome.WRITTEN);
        assertThat(db.row("report", "r1")).isEqualTo("attempt 2@2");
    }

    @Test
    void twoRacingWritersEndWithTheHigherFenceWhateverTheOrder() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 60; round++) {
                String key = "race-" + round;
                if (round % 3 == 1) {
                    write(key, 1, "seed");   // some rounds race on an existing row, the others on the first insert
                }
                CyclicBarrier start = new CyclicBarrier(2);
                List<Callable<FencedOutcome>> writers = new ArrayList<>();
                long[] fences = round % 2 == 0 ? new long[] {10, 20} : new long[] {20, 10};
                for (long fence : fences) {
                    writers.add(() -> {
                        try (Connection c = db.connect()) {
                            start.await(5, TimeUnit.SECONDS);
                            return REPORT.write(c, key, fence, "by " + fence);
                        }
                    });
                }
                List<Future<FencedOutcome>> results = pool.invokeAll(writers, 30, TimeUnit.SECONDS);
                FencedOutcome newer = results.get(fences[0] == 20 ? 0 : 1).get();
                assertThat(newer).as("round %d: the newer writer", round).isEqualTo(FencedOutcome.WRITTEN);
                results.get(fences[0] == 10 ? 0 : 1).get();   // the older one may land first (WRITTEN) or not (STALE)
                assertThat(db.row("report", key)).as("round %d", round).isEqualTo("by 20@20");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void itNeverCommitsTheCallersTransaction() throws SQLException {
        write("r1", 5, "before");
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            assertThat(REPORT.write(c, "r1", 6, "inside")).isEqualTo(FencedOutcome.WRITTEN);
            assertThat(REPORT.write(c, "r2", 1, "inserted inside")).isEqualTo(FencedOutcome.WRITTEN);
            assertThat(c.getAutoCommit()).isFalse();
            c.rollback();
        }
        assertThat(db.row("report", "r1")).isEqualTo("before@5");
        assertThat(db.row("report", "r2")).isNull();
    }

    @Test
    void aStaleWriteInsideATransactionLeavesItUsable() throws SQLException {
        write("r1", 9, "newer");
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            // The UPDATE misses, the INSERT hits the key (rolled back to its savepoint), the UPDATE misses again.
            assertThat(REPORT.write(c, "r1", 3, "stale")).isEqualTo(FencedOutcome.STALE);
            assertThat(REPORT.write(c, "r2", 1, "after")).isEqualTo(FencedOutcome.WRITTEN);
            c.commit();
        }
        assertThat(db.row("report", "r1")).isEqualTo("newer@9");
        assertThat(db.row("report", "r2")).isEqualTo("after@1");
    }

    @Test
    void anotherConstraintsViolationIsThrownNotTakenForStale() throws SQLException {
        try (Connection c = db.connect()) {
            assertThatThrownBy(() -> REPORT.write(c, "r1", 1, (Object) null))
                    .isInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState()).startsWith("23"));
        }
        assertThat(db.row("report", "r1")).isNull();
    }

    @Test
    void badIdentifiersAreRefusedBeforeAnythingIsSent() throws SQLException {
        List<Runnable> bad = List.of(
                () -> FencedUpdate.of("report; DROP TABLE report", "id", "fence", "body"),
                () -> FencedUpdate.of("report", "id = id OR 1=1 --", "fence", "body"),
                () -> FencedUpdate.of("report", "id", "fence", "body = 'x'"),
                () -> FencedUpdate.of("report", "id", "fence\"", "body"),
                () -> FencedUpdate.of("1report", "id", "fence", "body"),
                () -> FencedUpdate.of("a.b.c", "id", "fence", "body"),
                () -> FencedUpdate.of(null, "id", "fence", "body"),
                () -> FencedUpdate.of("report", "id", "fence", "body", "BODY"),
                () -> FencedUpdate.of("report", "id", "id", "body"),
                () -> FencedUpdate.of("report", "id", "fence", "fence"),
                () -> FencedUpdate.of("report", "id", "fence", "x".repeat(64)));
        for (Runnable r : bad) {
            assertThatThrownBy(r::run).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(FencedUpdate.of("public.report", "id", "fence", "body")).isNotNull();
        assertThat(db.count("report")).isZero();
        db.exec("SELECT COUNT(*) FROM report");   // the table is still there
    }

    @Test
    void aWrongNumberOfValuesIsRefusedBeforeAnythingIsSent() throws SQLException {
        try (Connection c = db.connect()) {
            assertThatThrownBy(() -> REPORT.write(c, "r1", 1, "a", "b"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 values for 1 columns");
        }
        assertThat(db.count("report")).isZero();
    }
}
