package io.echomq.jdbc;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * Enqueues the committed rows of an {@link Outbox} and deletes them, each exactly once as the queue sees it.
 *
 * <p>Duties: in one transaction of its own, claim up to a batch of rows (lowest id first) with
 * {@code SELECT ... FOR UPDATE SKIP LOCKED}, enqueue each with its idempotency key, delete them, commit. Why this
 * is exactly once: a crash before the enqueue leaves the row, unclaimed once the database ends the dead
 * transaction, for the next relay; a crash after the enqueue and before the commit leaves the row too, and its
 * second enqueue carries the same key, which the queue answers with the first job's id, adding nothing. The
 * window of the key ({@link Builder#idempotencyWindow}) must outlast the longest time a row can stay between its
 * first enqueue and the commit of its delete: the time until some relay runs again.
 *
 * <p>Several relays, in one process or many, may run on one table: {@code SKIP LOCKED} gives each a disjoint set of
 * rows, and a claim ends with its transaction, so a dead relay's rows are free as soon as the database notices its
 * connection is gone: at once for a killed process (its socket closes), and for a lost host when the database's
 * TCP keepalive or {@code idle_in_transaction_session_timeout} ends the session. No lease has to expire and no lock
 * server is involved, which a fenced lease would need.
 * Rows are relayed in id order per batch; across relays the order is not kept.
 *
 * <p>{@link #relayOnce()} relays one batch in the calling thread; {@link #start()} runs batches on a thread of
 * its own until {@link #close()}. Progress: {@link #relayed()} and {@link #lag()}. Thread-safe.
 */
public final class OutboxRelay implements AutoCloseable {
    /** Rows claimed per transaction when none is given. */
    public static final int DEFAULT_BATCH_SIZE = 100;
    /** Largest batch accepted. */
    public static final int MAX_BATCH_SIZE = 10_000;
    /** How long the queue remembers a relayed row's key when none is given: one day. */
    public static final Duration DEFAULT_IDEMPOTENCY_WINDOW = Duration.ofDays(1);
    /** How long {@link #start()}'s thread waits after a batch that was not full, when none is given. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);

    private static final System.Logger LOG = System.getLogger(OutboxRelay.class.getName());

    /** What the relay has done to a batch, for tests that stop a relay between two steps. */
    interface Steps {
        Steps NONE = new Steps() { };

        /** The rows are claimed (locked) and none is enqueued yet. */
        default void claimed(List<OutboxRow> rows) {
        }

        /** Every row of the batch is enqueued and none is deleted yet. */
        default void enqueued(List<OutboxRow> rows) {
        }
    }

    private final DataSource dataSource;
    private final QueueClient client;
    private final OutboxSql sql;
    private final int batchSize;
    private final Duration window;
    private final Duration pollInterval;
    private final Clock clock;
    private final Steps steps;
    private final Map<String, QueueOperations> queues = new ConcurrentHashMap<>();
    private final LongAdder relayed = new LongAdder();
    private final Object loopLock = new Object();
    private Thread loop;            // guarded by loopLock
    private boolean closed;         // guarded by loopLock
    private volatile Exception lastFailure;

    private OutboxRelay(Builder b) {
        this.dataSource = b.dataSource;
        this.client = b.client;
        this.sql = b.outbox.sql();
        this.batchSize = b.batchSize;
        this.window = b.window;
        this.pollInterval = b.pollInterval;
        this.clock = b.clock;
        this.steps = b.steps;
    }

    /**
     * @param dataSource where the outbox table is; each batch takes one connection and gives it back
     * @param client the queues the rows go to; not closed by the relay
     * @return a builder with the defaults: table {@value Outbox#DEFAULT_TABLE}, batches of
     *     {@value #DEFAULT_BATCH_SIZE}, a one-day window, a one-second poll interval
     * @throws NullPointerException if an argument is null
     */
    public static Builder builder(DataSource dataSource, QueueClient client) {
        return new Builder(Objects.requireNonNull(dataSource, "dataSource"), Objects.requireNonNull(client, "client"));
    }

    /**
     * Relays one batch: claims up to the batch size of committed rows nobody else has claimed, enqueues them,
     * deletes them and commits.
     *
     * @return how many rows were relayed: 0 when the outbox is empty or every row is claimed by another relay
     * @throws SQLException if the database fails; the batch's transaction is rolled back, and rows already
     *     enqueued are enqueued again, without a second job, by the next batch
     * @throws IllegalStateException if a row cannot be enqueued because its stored values are invalid (a row
     *     written by hand); the message names the row id, which stays in the outbox and stops every later batch
     *     until it is fixed or deleted
     * @throws RuntimeException whatever the queue client throws when Redis fails (the batch is rolled back)
     */
    public int relayOnce() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            Exception failure = null;
            try {
                List<OutboxRow> rows = claim(c);
                steps.claimed(rows);
                for (OutboxRow row : rows) {
                    enqueue(row);
                }
                steps.enqueued(rows);
                delete(c, rows);
                c.commit();
                relayed.add(rows.size());
                return rows.size();
            } catch (SQLException | RuntimeException e) {
                failure = e;
                try {
                    c.rollback();
                } catch (SQLException rollback) {
                    e.addSuppressed(rollback);
                }
                throw e;
            } finally {
                // The connection goes back to its pool as it came: a broken one must not hide the first failure.
                try {
                    c.setAutoCommit(autoCommit);
                } catch (SQLException e) {
                    if (failure == null) {
                        throw e;
                    }
                    failure.addSuppressed(e);
                }
            }
        }
    }

    private List<OutboxRow> claim(Connection c) throws SQLException {
        List<OutboxRow> rows = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql.claim(batchSize)); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String group = rs.getString(12);
                rows.add(new OutboxRow(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getBytes(4), rs.getInt(5),
                        rs.getLong(6), rs.getLong(7), rs.getInt(8), rs.getLong(9), rs.getLong(10), rs.getLong(11),
                        group, rs.getLong(13)));
            }
        }
        return rows;
    }

    private void enqueue(OutboxRow row) {
        QueueOperations queue;
        EnqueueOptions options;
        try {
            queue = queues.computeIfAbsent(row.queue(), client::open);
            options = row.options(window);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new IllegalStateException("outbox row " + row.id() + " (" + row.key() + ") cannot be enqueued: "
                    + e.getMessage() + "; fix or delete the row, it blocks the outbox until then", e);
        }
        queue.enqueue(row.payload(), options);
    }

    private void delete(Connection c, List<OutboxRow> rows) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(sql.delete())) {
            for (OutboxRow row : rows) {
                ps.setLong(1, row.id());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** @return how many rows this relay has enqueued and deleted (committed batches only) since it was built */
    public long relayed() {
        return relayed.sum();
    }

    /**
     * The age of the oldest row still in the outbox (the lowest id), on this relay's clock against the writer's
     * stamp: how far the relay is behind.
     *
     * @return the age, or {@link Duration#ZERO} when the outbox is empty (or the writer's clock is ahead)
     * @throws SQLException if the database fails
     */
    public Duration lag() throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql.oldest());
                ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return Duration.ZERO;
            }
            return Duration.ofMillis(Math.max(0, clock.millis() - rs.getLong(1)));
        }
    }

    /**
     * @return the failure of {@link #start()}'s thread's last batch, or null if it succeeded (or none ran); the
     *     thread logs each failure and tries again after the poll interval
     */
    public Exception lastFailure() {
        return lastFailure;
    }

    /**
     * Starts a thread that relays batches until {@link #close()}: a full batch is followed by the next at once,
     * any other waits the poll interval; a failed batch is logged, kept for {@link #lastFailure()}, and retried
     * after the poll interval.
     *
     * @throws IllegalStateException if already started, or closed
     */
    public void start() {
        synchronized (loopLock) {
            if (closed) {
                throw new IllegalStateException("the outbox relay is closed");
            }
            if (loop != null) {
                throw new IllegalStateException("the outbox relay is already started");
            }
            loop = new Thread(this::runLoop, "echomq-outbox-relay-" + sql.table());
            loop.setDaemon(true);
            loop.start();
        }
    }

    private void runLoop() {
        while (true) {
            int n;
            try {
                n = relayOnce();
                lastFailure = null;
            } catch (SQLException | RuntimeException e) {
                lastFailure = e;
                LOG.log(System.Logger.Level.WARNING, "outbox relay of " + sql.table() + " failed; retrying in "
                        + pollInterval, e);
                n = 0;
            }
            synchronized (loopLock) {
                if (closed) {
                    return;
                }
                if (n < batchSize) {
                    try {
                        loopLock.wait(Math.max(1, pollInterval.toMillis()));
                    } catch (InterruptedException e) {
                        return;
                    }
                    if (closed) {
                        return;
                    }
                }
            }
        }
    }

    /**
     * Stops {@link #start()}'s thread, waiting for its batch in flight to end. Idempotent. The data source and the
     * queue client are the caller's, left open.
     */
    @Override
    public void close() {
        Thread t;
        synchronized (loopLock) {
            closed = true;
            loopLock.notifyAll();
            t = loop;
        }
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Settings of an {@link OutboxRelay}; every value is checked when it is set. */
    public static final class Builder {
        private final DataSource dataSource;
        private final QueueClient client;
        private Outbox outbox = Outbox.create();
        private int batchSize = DEFAULT_BATCH_SIZE;
        private Duration window = DEFAULT_IDEMPOTENCY_WINDOW;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private Clock clock = Clock.systemUTC();
        private Steps steps = Steps.NONE;

        private Builder(DataSource dataSource, QueueClient client) {
            this.dataSource = dataSource;
            this.client = client;
        }

        /**
         * @param outbox the outbox whose table is relayed (default: {@link Outbox#create()})
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder outbox(Outbox outbox) {
            this.outbox = Objects.requireNonNull(outbox, "outbox");
            return this;
        }

        /**
         * @param batchSize rows claimed per transaction, 1..{@value #MAX_BATCH_SIZE}
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder batchSize(int batchSize) {
            if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
                throw new IllegalArgumentException("batchSize must be in 1.." + MAX_BATCH_SIZE + ", was " + batchSize);
            }
            this.batchSize = batchSize;
            return this;
        }

        /**
         * @param window how long the queue remembers a relayed row's key, 1 ms..{@link EnqueueOptions#MAX_DELAY};
         *     a row enqueued, left by a crash and enqueued again after this long would become a second job
         * @return this builder
         * @throws IllegalArgumentException if null or out of range
         */
        public Builder idempotencyWindow(Duration window) {
            if (window == null || window.toMillis() < 1 || window.compareTo(EnqueueOptions.MAX_DELAY) > 0) {
                throw new IllegalArgumentException("idempotency window must be in 1 ms.." + EnqueueOptions.MAX_DELAY
                        + ", was " + window);
            }
            this.window = window;
            return this;
        }

        /**
         * @param pollInterval how long {@link #start()}'s thread waits after a batch that was not full, 1 ms..1 h
         * @return this builder
         * @throws IllegalArgumentException if null or out of range
         */
        public Builder pollInterval(Duration pollInterval) {
            if (pollInterval == null || pollInterval.toMillis() < 1 || pollInterval.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("poll interval must be in 1 ms..1 h, was " + pollInterval);
            }
            this.pollInterval = pollInterval;
            return this;
        }

        /** The clock {@link #lag()} reads, for tests. */
        Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Calls {@code steps} between a batch's steps, for tests that stop a relay there. */
        Builder steps(Steps steps) {
            this.steps = Objects.requireNonNull(steps, "steps");
            return this;
        }

        /** @return the relay, not started */
        public OutboxRelay build() {
            return new OutboxRelay(this);
        }
    }
}
