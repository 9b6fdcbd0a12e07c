package io.echomq.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.JobInfo;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.testkit.RedisExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The outbox on a real H2 database and a real Redis: a job commits or rolls back with the caller's writes. */
class OutboxTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static QueueClient client;

    private H2Database db;
    private JdbcDataSource dataSource;
    private final Outbox outbox = Outbox.create();

    @BeforeAll
    static void connect() {
        client = QueueClient.create(REDIS.url());
    }

    @AfterAll
    static void disconnect() {
        client.close();
    }

    @BeforeEach
    void setUp() throws SQLException {
        REDIS.flushAll();
        db = new H2Database();
        db.exec(outbox.createTableSql(OutboxDialect.H2));
        db.exec("CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY)");
        dataSource = new JdbcDataSource();
        dataSource.setURL(db.url());
    }

    @AfterEach
    void tearDown() throws SQLException {
        db.close();
    }

    private OutboxRelay.Builder relay() {
        return OutboxRelay.builder(dataSource, client);
    }

    /** Writes an order and its job in one transaction, then commits or rolls back. */
    private String placeOrder(String order, boolean commit) throws SQLException {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            db.insertOrder(c, order);
            String key = outbox.add(c, "emails", "confirm " + order);
            if (commit) {
                c.commit();
            } else {
                c.rollback();
            }
            return key;
        }
    }

    @Test
    void aRolledBackTransactionLeavesNoJob() throws SQLException {
        placeOrder("o-1", false);
        assertThat(relay().build().relayOnce()).isZero();
        assertThat(db.count("orders")).isZero();
        assertThat(client.queue("emails").stats().pending()).isZero();
    }

    @Test
    void aCommittedTransactionGivesExactlyOneJobAndTheRowIsGone() throws SQLException {
        String key = placeOrder("o-1", true);
        assertThat(key).startsWith(Outbox.KEY_PREFIX);
        OutboxRelay relay = relay().build();
        assertThat(relay.relayOnce()).isEqualTo(1);
        assertThat(relay.relayOnce()).isZero();
        assertThat(relay.relayed()).isEqualTo(1);
        assertThat(db.count(Outbox.DEFAULT_TABLE)).isZero();
        Queue emails = client.queue("emails");
        assertThat(emails.stats().pending()).isEqualTo(1);
        assertThat(emails.claim(Duration.ofSeconds(30)).orElseThrow().payloadUtf8()).isEqualTo("confirm o-1");
    }

    @Test
    void aRelayThatEnqueuedAndFailedBeforeTheDeleteIsDedupedByTheNextBatch() throws SQLException {
        placeOrder("o-1", true);
        placeOrder("o-2", true);
        OutboxRelay failing = relay().steps(new OutboxRelay.Steps() {
            @Override
            public void enqueued(List<OutboxRow> rows) {
                throw new IllegalStateException("crash after the enqueue");
            }
        }).build();
        assertThatThrownBy(failing::relayOnce).hasMessage("crash after the enqueue");
        assertThat(failing.relayed()).isZero();
        assertThat(db.count(Outbox.DEFAULT_TABLE)).isEqualTo(2);
        assertThat(client.queue("emails").stats().pending()).isEqualTo(2);

        assertThat(relay().build().relayOnce()).isEqualTo(2);
        assertThat(db.count(Outbox.DEFAULT_TABLE)).isZero();
        assertThat(client.queue("emails").stats().pending()).isEqualTo(2);
    }

    @Test
    void concurrentRelaysEnqueueEveryRowOnce() throws Exception {
        int rows = 60;
        try (Connection c = db.connect()) {
            for (int i = 0; i < rows; i++) {
                outbox.add(c, "emails", "job " + i);
            }
        }
        int relays = 4;
        CyclicBarrier start = new CyclicBarrier(relays);
        // Each relay holds its claim until all four have claimed a batch (or found nothing left), so the batches
        // overlap in time: without SKIP LOCKED they would block or claim the same rows.
        ExecutorService pool = Executors.newFixedThreadPool(relays);
        try {
            List<Callable<Integer>> tasks = new ArrayList<>();
            for (int i = 0; i < relays; i++) {
                AtomicBoolean first = new AtomicBoolean(true);
                OutboxRelay relay = relay().batchSize(5).steps(new OutboxRelay.Steps() {
                    @Override
                    public void claimed(List<OutboxRow> claimed) {
                        if (first.getAndSet(false)) {
                            try {
                                start.await(10, TimeUnit.SECONDS);
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        }
                    }
                }).build();
                tasks.add(() -> {
                    int n = 0;
                    int batch;
                    while ((batch = relay.relayOnce()) > 0 || first.get()) {
                        n += batch;
                    }
                    return n;
                });
            }
            int total = 0;
            for (Future<Integer> f : pool.invokeAll(tasks, 60, TimeUnit.SECONDS)) {
                total += f.get();
            }
            assertThat(total).isEqualTo(rows);
        } finally {
            pool.shutdownNow();
        }
        Queue emails = client.queue("emails");
        assertThat(emails.stats().pending()).isEqualTo(rows);
        Set<String> payloads = new HashSet<>();
        for (Job job : emails.claim(rows, Duration.ofSeconds(30))) {
            payloads.add(job.payloadUtf8());
        }
        assertThat(payloads).hasSize(rows);
    }

    @Test
    void theStoredOptionsAreTheEnqueuedJobsOptions() throws SQLException {
        EnqueueOptions options = EnqueueOptions.defaults().withPriority(7).withMaxAttempts(9)
                .withBackoff(Duration.ofSeconds(3), Duration.ofMinutes(4)).withTimeout(Duration.ofSeconds(50));
        try (Connection c = db.connect()) {
            outbox.add(c, "emails", new byte[] {1, 2, 3}, options);
            outbox.add(c, "later", new byte[] {4}, EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));
            outbox.add(c, "grouped", new byte[] {5}, EnqueueOptions.defaults().withGroup("tenant-1"));
        }
        assertThat(relay().build().relayOnce()).isEqualTo(3);
        Job job = client.queue("emails").claim(Duration.ofSeconds(30)).orElseThrow();
        assertThat(job.payload()).containsExactly(1, 2, 3);
        assertThat(job.maxAttempts()).isEqualTo(9);
        assertThat(job.timeout()).contains(Duration.ofSeconds(50));
        JobInfo info = client.queue("emails").inspect(job.id()).orElseThrow();
        assertThat(info.field("priority")).isEqualTo("7");
        assertThat(info.field("backoff_ms")).isEqualTo("3000");
        assertThat(info.field("backoff_max_ms")).isEqualTo("240000");
        assertThat(client.queue("later").stats().delayed()).isEqualTo(1);
        assertThat(client.queue("grouped").claim(Duration.ofSeconds(30)).orElseThrow().payload()).containsExactly(5);
    }

    @Test
    void theLagIsTheOldestRowsAgeAndZeroWhenEmpty() throws SQLException {
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        Outbox stamped = Outbox.create(Outbox.DEFAULT_TABLE, Clock.fixed(t0, ZoneOffset.UTC));
        OutboxRelay relay = relay().clock(Clock.fixed(t0.plusSeconds(42), ZoneOffset.UTC)).build();
        assertThat(relay.lag()).isEqualTo(Duration.ZERO);
        try (Connection c = db.connect()) {
            stamped.add(c, "emails", "a");
        }
        assertThat(relay.lag()).isEqualTo(Duration.ofSeconds(42));
        relay.relayOnce();
        assertThat(relay.lag()).isEqualTo(Duration.ZERO);
    }

    @Test
    void theStartedRelayRelaysUntilClosed() throws Exception {
        try (OutboxRelay relay = relay().pollInterval(Duration.ofMillis(20)).build()) {
            relay.start();
            assertThatThrownBy(relay::start).isInstanceOf(IllegalStateException.class);
            placeOrder("o-1", true);
            await().atMost(Duration.ofSeconds(10)).until(() -> relay.relayed() == 1);
            assertThat(relay.lastFailure()).isNull();
        }
        assertThat(client.queue("emails").stats().pending()).isEqualTo(1);
    }

    @Test
    void badInputIsRefusedWithAClearErrorAndNothingWritten() throws SQLException {
        assertThatThrownBy(() -> Outbox.create("emq_outbox; DROP TABLE orders"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a plain SQL identifier");
        try (Connection c = db.connect()) {
            assertThatThrownBy(() -> outbox.add(c, "bad queue", new byte[0], EnqueueOptions.defaults()))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> outbox.add(c, "emails", new byte[0],
                    EnqueueOptions.defaults().withIdempotencyKey("mine", Duration.ofHours(1))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no idempotency key");
            assertThatThrownBy(() -> outbox.add(c, "emails", null, EnqueueOptions.defaults()))
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("payload");
            assertThatThrownBy(() -> Outbox.create("missing").add(c, "emails", "x"))
                    .isInstanceOf(SQLException.class);
        }
        assertThat(db.count(Outbox.DEFAULT_TABLE)).isZero();
        assertThatThrownBy(() -> relay().batchSize(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> relay().idempotencyWindow(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> relay().pollInterval(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRowWrittenByHandWithABadQueueNameNamesItselfAndStays() throws SQLException {
        db.exec("INSERT INTO emq_outbox (job_key, queue, payload, priority, delay_ms, run_at_ms, max_attempts,"
                + " backoff_ms, backoff_cap_ms, timeout_ms, job_group, created_ms)"
                + " VALUES ('outbox:hand', 'bad queue', X'00', 0, 0, 0, 0, 0, 0, 0, NULL, 0)");
        assertThatThrownBy(() -> relay().build().relayOnce()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("outbox row").hasMessageContaining("outbox:hand");
        assertThat(db.count(Outbox.DEFAULT_TABLE)).isEqualTo(1);
    }
}
