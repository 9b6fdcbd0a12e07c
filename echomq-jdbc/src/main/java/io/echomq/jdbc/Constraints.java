package io.echomq.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;

/**
 * Runs one INSERT that may lose to an existing row, without disturbing the caller's transaction.
 *
 * <p>Duties: tell an integrity violation (SQLState class {@code 23}) from any other failure; inside a transaction,
 * fence the INSERT with a savepoint and roll back to it on a violation. Why: PostgreSQL aborts the whole
 * transaction on a failed statement unless a savepoint is rolled back to, and the caller's transaction is theirs
 * to commit or roll back, not ours. In auto-commit mode the INSERT is its own transaction and needs no savepoint.
 */
final class Constraints {
    /** The INSERT to try; answers the update count. */
    interface Insert {
        int run() throws SQLException;
    }

    private Constraints() {
    }

    /**
     * @return null if the INSERT ran, or the integrity violation (SQLState class 23) it hit; the caller then
     *     checks that the row is really there and throws this exception if not, since class 23 also covers
     *     NOT NULL and CHECK violations
     * @throws SQLException any other failure of the INSERT, or of the savepoint calls
     */
    static SQLException tryInsert(Connection connection, Insert insert) throws SQLException {
        Savepoint savepoint = connection.getAutoCommit() ? null : connection.setSavepoint();
        try {
            insert.run();
        } catch (SQLException e) {
            if (!isIntegrityViolation(e)) {
                throw e;
            }
            if (savepoint != null) {
                connection.rollback(savepoint);
            }
            return e;
        }
        if (savepoint != null) {
            connection.releaseSavepoint(savepoint);
        }
        return null;
    }

    /** @return true if {@code e} or an exception it chains has an SQLState of class {@code 23} */
    static boolean isIntegrityViolation(SQLException e) {
        for (SQLException x = e; x != null; x = x.getNextException()) {
            String state = x.getSQLState();
            if (state != null && state.startsWith("23")) {
                return true;
            }
        }
        return false;
    }
}
