package io.echomq.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A write to one row of a table, ordered by a fence: refused when the row already holds a newer fence.
 *
 * <p>Duties: build, once, the two statements below from checked identifiers; run them with every value as a
 * {@code PreparedStatement} parameter; answer {@link FencedOutcome#WRITTEN} or {@link FencedOutcome#STALE}. Why a
 * class of its own: the fence check must live in the store's own statement (the {@code WHERE}), not in a read
 * before the write, or a stale writer could pass the read and then overwrite a newer row.
 *
 * <pre>
 * UPDATE t SET c1 = ?, …, fence = ? WHERE key = ? AND fence &lt;= ?
 * INSERT INTO t (key, c1, …, fence) VALUES (?, ?, …, ?)      -- only when the UPDATE changed no row
 * </pre>
 *
 * <p>When the UPDATE changes no row, the row is either absent or newer. The INSERT then creates it; if it hits the
 * table's primary or unique key on {@code key} (a concurrent writer inserted first, or the row is newer), the UPDATE
 * runs once more and decides. An equal fence is accepted: it is the same holder writing again. A fence
 * <b>orders</b> writes, it does not deduplicate them: a stale write that lands before the newer one is accepted,
 * and the newer one then overwrites it (see {@link OnceByJobId} for effects that must happen once).
 *
 * <p>Requirements on the table: {@code key} is its primary key or has a unique constraint; {@code fence} is an
 * integer column wide enough for a lock's fence (a {@code BIGINT}: lock fences are about 1.8e15). Rows are only
 * ever written through this class, or with fences that only rise; a row deleted by someone else is simply
 * inserted again.
 *
 * <p>It never commits, rolls back or changes the auto-commit mode of the caller's connection. Inside a transaction
 * it sets a savepoint around the INSERT and rolls back only to it on a key violation, so the transaction stays
 * usable (PostgreSQL would otherwise abort it). Under an isolation stronger than READ COMMITTED the database may
 * refuse the statements with a serialization failure; that {@code SQLException} reaches the caller. Instances are
 * immutable and safe to share between threads; a {@code Connection} is not, and each call uses only the one given.
 */
public final class FencedUpdate {
    private final String table;
    private final String keyColumn;
    private final String fenceColumn;
    private final List<String> columns;
    private final String updateSql;
    private final String insertSql;
    private final String existsSql;

    /**
     * @param table the table, {@code name} or {@code schema.name}
     * @param keyColumn the column that names the row (its primary key or a unique column)
     * @param fenceColumn the integer column that holds the last accepted fence
     * @param columns the columns each write sets, in the order of the values given to {@link #write}; may be empty
     * @throws IllegalArgumentException if any name is null or not a plain SQL identifier
     *     ({@code [A-Za-z_][A-Za-z0-9_]*}, at most 63 characters; a table may be schema-qualified), or if a column
     *     is named twice, or the key or fence column is among {@code columns}, or key and fence are the same
     *     column. Nothing is sent to any database.
     * @throws NullPointerException if {@code columns} is null
     */
    public FencedUpdate(String table, String keyColumn, String fenceColumn, List<String> columns) {
        this.table = SqlIdentifiers.table(table);
        this.keyColumn = SqlIdentifiers.column("key column", keyColumn);
        this.fenceColumn = SqlIdentifiers.column("fence column", fenceColumn);
        Objects.requireNonNull(columns, "columns");
        Set<String> seen = new HashSet<>();
        seen.add(keyColumn.toLowerCase(java.util.Locale.ROOT));
        if (!seen.add(fenceColumn.toLowerCase(java.util.Locale.ROOT))) {
            throw new IllegalArgumentException("the key and fence columns are both '" + fenceColumn + "'");
        }
        for (String c : columns) {
            SqlIdentifiers.column("column", c);
            if (!seen.add(c.toLowerCase(java.util.Locale.ROOT))) {
                throw new IllegalArgumentException("column '" + c + "' is named twice (or is the key or fence column)");
            }
        }
        this.columns = List.copyOf(columns);

        StringBuilder set = new StringBuilder();
        for (String c : this.columns) {
            set.append(c).append(" = ?, ");
        }
        set.append(fenceColumn).append(" = ?");
        this.updateSql = "UPDATE " + table + " SET " + set + " WHERE " + keyColumn + " = ? AND " + fenceColumn
                + " <= ?";
        List<String> insertColumns = new ArrayList<>();
        insertColumns.add(keyColumn);
        insertColumns.addAll(this.columns);
        insertColumns.add(fenceColumn);
        this.insertSql = "INSERT INTO " + table + " (" + String.join(", ", insertColumns) + ") VALUES ("
                + String.join(", ", java.util.Collections.nCopies(insertColumns.size(), "?")) + ")";
        this.existsSql = "SELECT 1 FROM " + table + " WHERE " + keyColumn + " = ?";
    }

    /** Varargs form of {@link #FencedUpdate(String, String, String, List)}, with the same contract. */
    public static FencedUpdate of(String table, String keyColumn, String fenceColumn, String... columns) {
        return new FencedUpdate(table, keyColumn, fenceColumn, List.of(columns));
    }

    /**
     * Writes {@code values} and {@code fence} to the row named {@code key}, unless it holds a newer fence.
     *
     * @param connection the caller's connection, in auto-commit mode or inside the caller's transaction; neither
     *     committed nor rolled back here
     * @param key the row's key, bound with {@code setObject}
     * @param fence this writer's fence ({@code lease.fence()} or {@code job.attempt()})
     * @param values one per column given at construction, in that order, each bound with {@code setObject}
     * @return {@link FencedOutcome#WRITTEN} if the row now holds these values and this fence (updated, or
     *     inserted), {@link FencedOutcome#STALE} if it holds a newer fence and was left unchanged
     * @throws IllegalArgumentException if the number of values differs from the number of columns (nothing sent)
     * @throws NullPointerException if {@code connection}, {@code key} or {@code values} is null
     * @throws SQLException any failure of the database: a missing table or column, a value of the wrong type, a
     *     constraint other than the key's (its own exception is thrown), a lock timeout, a serialization failure
     */
    public FencedOutcome write(Connection connection, Object key, long fence, List<?> values) throws SQLException {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(values, "values");
        if (values.size() != columns.size()) {
            throw new IllegalArgumentException(values.size() + " values for " + columns.size() + " columns "
                    + columns);
        }
        if (update(connection, key, fence, values)) {
            return FencedOutcome.WRITTEN;
        }
        SQLException violation = Constraints.tryInsert(connection, () -> insert(connection, key, fence, values));
        if (violation == null) {
            return FencedOutcome.WRITTEN;
        }
        // The key exists now (a concurrent insert won, or the row was newer all along): the UPDATE decides.
        if (update(connection, key, fence, values)) {
            return FencedOutcome.WRITTEN;
        }
        if (!exists(connection, key)) {
            throw violation;   // not the key: a NOT NULL or CHECK constraint refused the values
        }
        return FencedOutcome.STALE;
    }

    /** Varargs form of {@link #write(Connection, Object, long, List)}, with the same contract. */
    public FencedOutcome write(Connection connection, Object key, long fence, Object... values) throws SQLException {
        return write(connection, key, fence, java.util.Arrays.asList(Objects.requireNonNull(values, "values")));
    }

    /** @return the UPDATE this instance runs, for logs and docs */
    public String updateSql() {
        return updateSql;
    }

    /** @return the INSERT this instance runs when the row is absent */
    public String insertSql() {
        return insertSql;
    }

    private boolean update(Connection connection, Object key, long fence, List<?> values) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(updateSql)) {
            int i = 1;
            for (Object v : values) {
                ps.setObject(i++, v);
            }
            ps.setLong(i++, fence);
            ps.setObject(i++, key);
            ps.setLong(i, fence);
            return ps.executeUpdate() > 0;
        }
    }

    private int insert(Connection connection, Object key, long fence, List<?> values) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(insertSql)) {
            int i = 1;
            ps.setObject(i++, key);
            for (Object v : values) {
                ps.setObject(i++, v);
            }
            ps.setLong(i, fence);
            return ps.executeUpdate();
        }
    }

    private boolean exists(Connection connection, Object key) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(existsSql)) {
            ps.setObject(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    @Override
    public String toString() {
        return "FencedUpdate[" + table + " by " + keyColumn + ", fence " + fenceColumn + ", set " + columns + "]";
    }
}
