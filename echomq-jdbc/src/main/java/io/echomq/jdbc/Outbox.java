package io.echomq.jdbc;

import io.echomq.Names;
import io.echomq.queue.EnqueueOptions;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * Writes a job into an outbox table in the caller's own transaction; an {@link OutboxRelay} enqueues it after the
 * transaction commits.
 *
 * <p>Duties: check the job (queue name, options) before anything is written; INSERT one row holding the queue, the
 * payload, the options and a fresh idempotency key {@code outbox:<uuid>}. Why: the job then commits or rolls back
 * with the caller's own writes (a rolled-back transaction leaves no job, a committed one a row that the relay
 * enqueues), and the key lets the queue drop the second enqueue of a row that a relay enqueued and then crashed
 * before deleting. The key is a UUID, not the row's id: two outbox tables (two services, one queue) or a table
 * whose identity was reset would reuse ids, and the queue would take a new job for a duplicate.
 *
 * <p>The connection is never committed, rolled back or closed here. Thread-safe: an instance holds only its table
 * name and clock.
 */
public final class Outbox {
    /** The table {@link #create()} writes to. */
    public static final String DEFAULT_TABLE = "emq_outbox";
    /** What every idempotency key the outbox makes starts with. */
    public static final String KEY_PREFIX = "outbox:";

    private final String table;
    private final OutboxSql sql;
    private final Clock clock;

    private Outbox(String table, Clock clock) {
        this.table = SqlIdentifiers.table(table);
        this.sql = new OutboxSql(table);
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** @return the outbox in table {@value #DEFAULT_TABLE} */
    public static Outbox create() {
        return new Outbox(DEFAULT_TABLE, Clock.systemUTC());
    }

    /**
     * @param table the outbox table, {@code name} or {@code schema.name}, made by {@link #createTableSql}
     * @return the outbox in {@code table}
     * @throws IllegalArgumentException if {@code table} is not a plain SQL identifier (optionally schema-qualified)
     */
    public static Outbox create(String table) {
        return new Outbox(table, Clock.systemUTC());
    }

    /** @return the outbox in {@code table}, stamping rows with {@code clock} (for tests of the lag) */
    static Outbox create(String table, Clock clock) {
        return new Outbox(table, clock);
    }

    /** @return the table name */
    public String table() {
        return table;
    }

    /** @return the relay's view of the same table */
    OutboxSql sql() {
        return sql;
    }

    /**
     * The DDL of this outbox's table, one {@code CREATE TABLE} statement to run once (by a migration tool, say):
     * an identity {@code id} (the relay's order), the unique {@code job_key}, the queue, the payload, one column
     * per option and the creation time.
     *
     * @param dialect the database
     * @return the statement, without a trailing semicolon
     * @throws NullPointerException if {@code dialect} is null
     */
    public String createTableSql(OutboxDialect dialect) {
        return sql.createTable(Objects.requireNonNull(dialect, "dialect"));
    }

    /**
     * {@link #add(Connection, String, byte[], EnqueueOptions)} with the UTF-8 bytes of {@code payload} and the
     * default options.
     *
     * @throws NullPointerException if {@code connection} or {@code payload} is null
     * @throws IllegalArgumentException if {@code queue} is not a valid queue name
     * @throws SQLException as for the four-argument form
     */
    public String add(Connection connection, String queue, String payload) throws SQLException {
        Objects.requireNonNull(payload, "payload");
        return add(connection, queue, payload.getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults());
    }

    /**
     * Writes one job to the outbox, in the connection's current transaction.
     *
     * <p>Every option is stored and applied when the relay enqueues, except the idempotency key, which the outbox
     * sets itself. A delay counts from the relay's enqueue, not from this call; a {@code runAt} is absolute.
     *
     * @param connection the caller's connection, inside the caller's transaction (or in auto-commit mode, when
     *     the row commits at once); neither committed, rolled back nor closed here
     * @param queue the queue the job goes to ({@link Names#queue}'s rule; a sharded queue's name is accepted)
     * @param payload the job's payload
     * @param options the job's options, without an idempotency key
     * @return the job's idempotency key, {@value #KEY_PREFIX} and a UUID
     * @throws NullPointerException if {@code connection}, {@code payload} or {@code options} is null
     * @throws IllegalArgumentException if {@code queue} is not a valid queue name, or {@code options} has an
     *     idempotency key; nothing is written
     * @throws SQLException if the INSERT fails (a missing table, say); the caller's transaction is then theirs to
     *     roll back
     */
    public String add(Connection connection, String queue, byte[] payload, EnqueueOptions options)
            throws SQLException {
        Objects.requireNonNull(connection, "connection");
        Names.queue(queue);
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(options, "options");
        if (!options.idempotencyKey().isEmpty()) {
            throw new IllegalArgumentException("an outbox job takes no idempotency key of its own (was '"
                    + options.idempotencyKey() + "'): the outbox sets " + KEY_PREFIX
                    + "<uuid>, so that a relay's second enqueue of one row adds nothing");
        }
        String key = KEY_PREFIX + UUID.randomUUID();
        try (PreparedStatement ps = connection.prepareStatement(sql.insert())) {
            ps.setString(1, key);
            ps.setString(2, queue);
            ps.setBytes(3, payload);
            ps.setInt(4, options.priority());
            ps.setLong(5, options.delayMillis());
            ps.setLong(6, options.runAt().map(Instant::toEpochMilli).orElse(0L));
            ps.setInt(7, options.maxAttempts());
            ps.setLong(8, options.backoffBase().map(Duration::toMillis).orElse(0L));
            ps.setLong(9, options.backoffCap().map(Duration::toMillis).orElse(0L));
            ps.setLong(10, options.timeout().map(Duration::toMillis).orElse(0L));
            if (options.group().isPresent()) {
                ps.setString(11, options.group().get());
            } else {
                ps.setNull(11, Types.VARCHAR);
            }
            ps.setLong(12, clock.millis());
            ps.executeUpdate();
        }
        return key;
    }
}
