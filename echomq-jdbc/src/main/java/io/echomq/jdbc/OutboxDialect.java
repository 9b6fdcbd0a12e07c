package io.echomq.jdbc;

/**
 * The databases whose outbox table {@link Outbox#createTableSql(OutboxDialect)} can write: the one column type that
 * differs between them is the payload's.
 *
 * <p>Both support {@code SELECT ... FOR UPDATE SKIP LOCKED}, which {@link OutboxRelay} claims rows with. Another
 * database with that clause and an identity column works too, given a table of the same columns.
 */
public enum OutboxDialect {
    /** H2 2.x: the payload is {@code VARBINARY}. */
    H2("VARBINARY"),
    /** PostgreSQL 10 and later (identity columns): the payload is {@code BYTEA}. */
    POSTGRESQL("BYTEA");

    private final String binaryType;

    OutboxDialect(String binaryType) {
        this.binaryType = binaryType;
    }

    /** @return the SQL type of the payload column */
    String binaryType() {
        return binaryType;
    }
}
