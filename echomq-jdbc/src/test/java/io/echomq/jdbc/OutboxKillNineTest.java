package io.echomq.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.testkit.ChildJvm;
import io.echomq.testkit.RedisExtension;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A relay killed with {@code kill -9} between the commit and the enqueue, or between the enqueue and the delete,
 * still gives exactly one job once a new relay runs: on H2 (its TCP server, so that the child JVM shares the
 * database) and on a real PostgreSQL server (zonky's embedded binaries). Also the commit and rollback cases on
 * PostgreSQL, whose row locks, {@code FETCH FIRST ... FOR UPDATE SKIP LOCKED} and {@code BYTEA} payload are its
 * own.
 *
 * <p>Tagged {@code outbox-processes}: a PostgreSQL server and four child JVMs take tens of seconds, so the default
 * suite leaves it out and .ci/run's JDK 25 pass runs it.
 */
@Tag("outbox-processes")
class OutboxKillNineTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static Server h2Server;
    private static EmbeddedPostgres postgres;
    private static QueueClient client;
    private final Outbox outbox = Outbox.create();

    @BeforeAll
    static void startServers() throws Exception {
        h2Server = Server.createTcpServer("-tcpPort", "0", "-ifNotExists").start();
        postgres = EmbeddedPostgres.builder().start();
        client = QueueClient.create(REDIS.url());
    }

    @AfterAll
    static void stopServers() throws Exception {
        client.close();
        postgres.close();
        h2Server.stop();
    }

    @BeforeEach
    void flush() {
        REDIS.flushAll();
    }

    /** A fresh database: its URL, and a pool on it with the outbox table made. */
    private record Db(String url, String user, String password, HikariDataSource pool) implements AutoCloseable {
        long count(String table) throws SQLException {
            try (Connection c = pool.getConnection(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
                rs.next();
                return rs.getLong(1);
            }
        }

        @Override
        public void close() {
            pool.close();
        }
    }

    private Db h2() throws SQLException {
        String url = "jdbc:h2:tcp://localhost:" + h2Server.getPort() + "/mem:outbox-" + UUID.randomUUID()
                + ";DB_CLOSE_DELAY=-1";
        return open(url, "sa", "", OutboxDialect.H2);
    }

    private Db postgres() throws SQLException {
        String schema = "s" + UUID.randomUUID().toString().replace("-", "");
        try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        }
        return open(postgres.getJdbcUrl("postgres", "postgres") + "&currentSchema=" + schema, "postgres", "",
                OutboxDialect.POSTGRESQL);
    }

    private Db open(String url, String user, String password, OutboxDialect dialect) throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(4);
        Db db = new Db(url, user, password, new HikariDataSource(config));
        try (Connection c = db.pool().getConnection(); Statement s = c.createStatement()) {
            s.execute(outbox.createTableSql(dialect));
            s.execute("CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY)");
        }
        return db;
    }

    private void placeOrder(Db db, String order, boolean commit) throws SQLException {
        try (Connection c = db.pool().getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO orders (id) VALUES ('" + order + "')");
            }
            outbox.add(c, "emails", "confirm " + order);
            if (commit) {
                c.commit();
            } else {
                c.rollback();
            }
        }
    }

    @Test
    void onPostgresARollbackGivesNoJobAndACommitExactlyOne() throws SQLException {
        try (Db db = postgres()) {
            placeOrder(db, "o-1", false);
            placeOrder(db, "o-2", true);
            OutboxRelay relay = OutboxRelay.builder(db.pool(), client).build();
            assertThat(relay.relayOnce()).isEqualTo(1);
            assertThat(relay.relayOnce()).isZero();
            Queue emails = client.queue("emails");
            assertThat(emails.stats().pending()).isEqualTo(1);
            assertThat(emails.claim(Duration.ofSeconds(30)).orElseThrow().payloadUtf8()).isEqualTo("confirm o-2");
            assertThat(db.count("orders")).isEqualTo(1);
            assertThat(db.count(Outbox.DEFAULT_TABLE)).isZero();
        }
    }

    @Test
    void onPostgresTwoRelaysWhoseClaimsOverlapEnqueueEveryRowOnce() throws Exception {
        int rows = 20;
        try (Db db = postgres()) {
            try (Connection c = db.pool().getConnection()) {
                for (int i = 0; i < rows; i++) {
                    outbox.add(c, "emails", "job " + i);
                }
            }
            // Each relay holds its first claim until the other has claimed too: without SKIP LOCKED the second
            // would wait for the first's rows, and the barrier would time out.
            CyclicBarrier bothClaimed = new CyclicBarrier(2);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                List<Future<Long>> relays = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    AtomicBoolean first = new AtomicBoolean(true);
                    OutboxRelay relay = OutboxRelay.builder(db.pool(), client).batchSize(5)
                            .steps(new OutboxRelay.Steps() {
                                @Override
                                public void claimed(List<OutboxRow> claimed) {
                                    if (first.getAndSet(false)) {
                                        try {
                                            bothClaimed.await(10, TimeUnit.SECONDS);
                                        } catch (Exception e) {
                                            throw new IllegalStateException(e);
                                        }
                                    }
                                }
                            }).build();
                    relays.add(pool.submit(() -> {
                        while (relay.relayOnce() > 0) {
                            // until nothing is left to claim
                        }
                        return relay.relayed();
                    }));
                }
                long total = 0;
                for (Future<Long> f : relays) {
                    total += f.get(60, TimeUnit.SECONDS);
                }
                assertThat(total).isEqualTo(rows);
            } finally {
                pool.shutdownNow();
            }
            assertThat(db.count(Outbox.DEFAULT_TABLE)).isZero();
            assertThat(client.queue("emails").stats().pending()).isEqualTo(rows);
        }
    }

    @Test
    void h2KilledBetweenCommitAndEnqueue() throws Exception {
        try (Db db = h2()) {
            killRelayAt(db, "claimed", 0);
        }
    }

    @Test
    void h2KilledBetweenEnqueueAndDelete() throws Exception {
        try (Db db = h2()) {
            killRelayAt(db, "enqueued", 1);
        }
    }

    @Test
    void postgresKilledBetweenCommitAndEnqueue() throws Exception {
        try (Db db = postgres()) {
            killRelayAt(db, "claimed", 0);
        }
    }

    @Test
    void postgresKilledBetweenEnqueueAndDelete() throws Exception {
        try (Db db = postgres()) {
            killRelayAt(db, "enqueued", 1);
        }
    }

    /**
     * Commits one order, lets a child relay claim its row and stop at {@code step}, kills it with SIGKILL, then runs
     * a new relay: exactly one job, and the outbox empty.
     */
    private void killRelayAt(Db db, String step, long jobsBeforeKill) throws Exception {
        placeOrder(db, "o-1", true);
        Queue emails = client.queue("emails");
        try (ChildJvm child = ChildJvm.start(OutboxRelayChild.class.getName(), line -> { },
                db.url(), db.user(), db.password(), REDIS.url(), step)) {
            child.awaitLine(line -> line.equals("STOPPED " + step + " 1"), Duration.ofSeconds(30));
            assertThat(emails.stats().pending()).isEqualTo(jobsBeforeKill);
            child.kill();
        }
        assertThat(db.count(Outbox.DEFAULT_TABLE)).isEqualTo(1);
        // The database frees the dead relay's row lock once it sees the connection gone: until then the new
        // relay skips the row and relays nothing.
        OutboxRelay relay = OutboxRelay.builder(db.pool(), client).build();
        AtomicLong relayed = new AtomicLong();
        await().atMost(Duration.ofSeconds(20)).until(() -> relayed.addAndGet(relay.relayOnce()) == 1);
        assertThat(relay.relayOnce()).isZero();
        assertThat(db.count(Outbox.DEFAULT_TABLE)).isZero();
        assertThat(emails.stats().pending()).isEqualTo(1);
        assertThat(emails.claim(Duration.ofSeconds(30)).orElseThrow().payloadUtf8()).isEqualTo("confirm o-1");
    }
}
