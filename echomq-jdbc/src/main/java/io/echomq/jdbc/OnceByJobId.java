package io.echomq.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;

/**
 * Records a side effect under its job id, insert-if-absent, so that of all a job's attempts exactly one performs it.
 *
 * <p>Duties: run {@code INSERT INTO t (job_id) VALUES (?)}; answer {@link OnceOutcome#FIRST} when the row went in
 * and {@link OnceOutcome#ALREADY_DONE} when the table's primary or unique key on the job id refused it. Why: a
 * fence orders writes but does not deduplicate them (a stale attempt that writes first is accepted), so an effect
 * that must happen once (an email sent, a payment taken) needs a record keyed by the job, not by the attempt.
 *
 * <p>Portable: no {@code ON CONFLICT}, {@code MERGE} or {@code INSERT IGNORE}. The duplicate is recognised by its
 * SQLState class {@code 23} (integrity constraint violation), which H2, PostgreSQL and MySQL all use, and is
 * confirmed by reading the row, so a NOT NULL or CHECK failure of other columns is thrown, not taken for a
 * duplicate. The table may have other columns, as long as they have defaults or accept null.
 *
 * <p>Claim in the same transaction as the effect's own writes, or before an external effect. Inside a transaction
 * the INSERT is fenced by a savepoint, so a duplicate leaves the transaction usable; the caller's transaction is
 * never committed or rolled back here. If the caller rolls back after {@code FIRST}, the claim is rolled back too
 * and a later attempt will be {@code FIRST}. While a concurrent claimer's transaction is open, the database makes
 * this INSERT wait for it (a row lock on the key), then answers by its outcome.
 */
public final class OnceByJobId {
    /** The job id column {@link #claim(Connection, String, String)} uses. */
    public static final String DEFAULT_COLUMN = "job_id";

    private OnceByJobId() {
    }

    /**
     * {@link #claim(Connection, String, String, String)} with the column {@value #DEFAULT_COLUMN}.
     *
     * @throws IllegalArgumentException if {@code table} is not a plain SQL identifier (nothing sent)
     * @throws NullPointerException if {@code connection} or {@code jobId} is null
     * @throws SQLException as for the four-argument form
     */
    public static OnceOutcome claim(Connection connection, String table, String jobId) throws SQLException {
        return claim(connection, table, DEFAULT_COLUMN, jobId);
    }

    /**
     * Records {@code jobId} in {@code table}, unless it is there already.
     *
     * @param connection the caller's connection, in auto-commit mode or inside the caller's transaction; neither
     *     committed nor rolled back here
     * @param table the table, {@code name} or {@code schema.name}, with a primary key or unique constraint on
     *     {@code column}
     * @param column the job id column
     * @param jobId the job's id ({@code job.id()})
     * @return {@link OnceOutcome#FIRST} if this call recorded it, {@link OnceOutcome#ALREADY_DONE} if it was there
     * @throws IllegalArgumentException if {@code table} or {@code column} is not a plain SQL identifier
     *     ({@code [A-Za-z_][A-Za-z0-9_]*}, at most 63 characters; a table may be schema-qualified); nothing is sent
     * @throws NullPointerException if {@code connection} or {@code jobId} is null
     * @throws SQLException any failure of the database other than the duplicate key: a missing table, a
     *     constraint of another column, a lock timeout
     */
    public static OnceOutcome claim(Connection connection, String table, String column, String jobId)
            throws SQLException {
        SqlIdentifiers.table(table);
        SqlIdentifiers.column("job id column", column);
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(jobId, "jobId");
        String insert = "INSERT INTO " + table + " (" + column + ") VALUES (?)";
        SQLException violation = Constraints.tryInsert(connection, () -> {
            try (PreparedStatement ps = connection.prepareStatement(insert)) {
                ps.setString(1, jobId);
                return ps.executeUpdate();
            }
        });
        if (violation == null) {
            return OnceOutcome.FIRST;
        }
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT 1 FROM " + table + " WHERE " + column + " = ?")) {
            ps.setString(1, jobId);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return OnceOutcome.ALREADY_DONE;
                }
            }
        }
        throw violation;   // not the job id's key: another column's constraint refused the row
    }
}
