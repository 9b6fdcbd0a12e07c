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

/** OnceByJobId against a real H2 database: one FIRST per job id, under concurrency and inside transactions. */
class OnceByJobIdTest {
    private static final int CLAIMERS = 8;

    private H2Database db;

    @BeforeEach
    void createTable() throws SQLException {
        db = new H2Database();
        db.exec("CREATE TABLE sent_emails (job_id VARCHAR(64) PRIMARY KEY,"
                + " sent_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)");
    }

    @AfterEach
    void drop() throws SQLException {
        db.close();
    }

    @Test
    void theFirstClaimWinsAndEveryLaterOneIsAlreadyDone() throws SQLException {
        try (Connection c = db.connect()) {
            assertThat(OnceByJobId.claim(c, "sent_emails", "job-1")).isEqualTo(OnceOutcome.FIRST);
            assertThat(OnceByJobId.claim(c, "sent_emails", "job-1")).isEqualTo(OnceOutcome.ALREADY_DONE);
            assertThat(OnceByJobId.claim(c, "sent_emails", "job_id", "job-2")).isEqualTo(OnceOutcome.FIRST);
        }
        assertThat(db.count("sent_emails")).isEqualTo(2);
    }

    @Test
    void eightConcurrentClaimersOfOneJobYieldExactlyOneFirst() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(CLAIMERS);
        try {
            for (int round = 0; round < 20; round++) {
                String jobId = "job-" + round;
                boolean inTransaction = round % 2 == 1;
                CyclicBarrier start = new CyclicBarrier(CLAIMERS);
                List<Callable<OnceOutcome>> claimers = new ArrayList<>();
                for (int i = 0; i < CLAIMERS; i++) {
                    claimers.add(() -> {
                        try (Connection c = db.connect()) {
                            c.setAutoCommit(!inTransaction);
                            start.await(5, TimeUnit.SECONDS);
                            OnceOutcome outcome = OnceByJobId.claim(c, "sent_emails", jobId);
                            if (inTransaction) {
                                c.commit();
                            }
                            return outcome;
                        }
                    });
                }
                List<OnceOutcome> outcomes = new ArrayList<>();
                for (Future<OnceOutcome> f : pool.invokeAll(claimers, 60, TimeUnit.SECONDS)) {
                    outcomes.add(f.get());
                }
                assertThat(outcomes).as("round %d (in a transaction: %s)", round, inTransaction)
                        .containsOnlyOnce(OnceOutcome.FIRST)
                        .hasSize(CLAIMERS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(db.count("sent_emails")).isEqualTo(20);
    }

    @Test
    void aRolledBackClaimLeavesTheJobToTheNextAttempt() throws SQLException {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            assertThat(OnceByJobId.claim(c, "sent_emails", "job-1")).isEqualTo(OnceOutcome.FIRST);
            c.rollback();
            assertThat(OnceByJobId.claim(c, "sent_emails", "job-1")).isEqualTo(OnceOutcome.FIRST);
            c.commit();
        }
        assertThat(db.count("sent_emails")).isEqualTo(1);
    }

    @Test
    void aDuplicateInsideATransactionLeavesItUsableAndUncommitted() throws SQLException {
        try (Connection c = db.connect()) {
            OnceByJobId.claim(c, "sent_emails", "job-1");
            c.setAutoCommit(false);
            assertThat(OnceByJobId.claim(c, "sent_emails", "job-1")).isEqualTo(OnceOutcome.ALREADY_DONE);
            assertThat(OnceByJobId.claim(c, "sent_emails", "job-2")).isEqualTo(OnceOutcome.FIRST);
            assertThat(c.getAutoCommit()).isFalse();
            c.rollback();
        }
        assertThat(db.count("sent_emails")).isEqualTo(1);
    }

    @Test
    void anotherColumnsConstraintIsThrownNotTakenForAlreadyDone() throws SQLException {
        db.exec("CREATE TABLE strict_emails (job_id VARCHAR(64) PRIMARY KEY, sent_to VARCHAR(64) NOT NULL)");
        try (Connection c = db.connect()) {
            assertThatThrownBy(() -> OnceByJobId.claim(c, "strict_emails", "job-1"))
                    .isInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState()).startsWith("23"));
        }
        assertThat(db.count("strict_emails")).isZero();
    }

    @Test
    void badIdentifiersAreRefusedBeforeAnythingIsSent() throws SQLException {
        try (Connection c = db.connect()) {
            for (String table : new String[] {"sent_emails; DROP TABLE sent_emails", "sent emails", "", "x\"y", null}) {
                assertThatThrownBy(() -> OnceByJobId.claim(c, table, "job-1"))
                        .as("table %s", table).isInstanceOf(IllegalArgumentException.class);
            }
            assertThatThrownBy(() -> OnceByJobId.claim(c, "sent_emails", "job_id) VALUES ('x'); --", "job-1"))
                    .isInstanceOf(IllegalArgumentException.class);
            // A hostile job id is only ever a parameter: stored as it is.
            String hostile = "x'); DROP TABLE sent_emails; --";
            assertThat(OnceByJobId.claim(c, "sent_emails", hostile)).isEqualTo(OnceOutcome.FIRST);
            assertThat(OnceByJobId.claim(c, "sent_emails", hostile)).isEqualTo(OnceOutcome.ALREADY_DONE);
        }
        assertThat(db.count("sent_emails")).isEqualTo(1);
    }
}
