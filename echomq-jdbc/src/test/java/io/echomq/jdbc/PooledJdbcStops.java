package io.echomq.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.JobHandler;
import io.echomq.queue.JobTimeoutException;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.SettleOutcome;
import io.echomq.queue.Worker;
import io.echomq.queue.WorkerListener;
import io.echomq.testkit.RedisExtension;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import org.awaitility.core.ConditionTimeoutException;
import org.h2.tools.Server;

/**
 * The scenario of a billing service: handlers borrow connections from a small HikariCP pool to a
 * real database over TCP (an H2 TCP server on the loopback), and block in a slow call on the
 * server while their job's lease is lost, their timeout fires, or an operator cancels them. Every
 * later job on the same pool must then succeed: a stop must never break a connection a handler
 * borrowed. The handlers stop cooperatively: each attaches a {@code Statement.cancel()} to
 * {@link Job#stopSignal()}, and writes nothing once {@link Job#stopRequested()} is true.
 *
 * <p>Run with the threads of {@code executor} (virtual or platform), which the caller owns.
 */
final class PooledJdbcStops implements AutoCloseable {
    static final int POOL = 2;
    static final int LATER_JOBS = 12;
    private static final long SLOW_MS = 1500;
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String QUEUE = "billing";

    private final RedisExtension redis;
    private final Server server;
    private final HikariDataSource pool;
    private final Set<String> inCall = ConcurrentHashMap.newKeySet();    // jobs whose slow call is under way
    private final Set<String> stoppedMidCall = ConcurrentHashMap.newKeySet();
    private final Map<String, List<SettleOutcome>> outcomes = new ConcurrentHashMap<>();   // each job's, in order
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private final Set<Boolean> virtualHandlers = ConcurrentHashMap.newKeySet();
    private volatile boolean cancelOnStop;

    PooledJdbcStops(RedisExtension redis) throws SQLException, IOException {
        this.redis = redis;
        this.server = Server.createTcpServer("-tcpPort", Integer.toString(freeLoopbackPort()), "-ifNotExists").start();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/mem:billing-" + UUID.randomUUID()
                + ";DB_CLOSE_DELAY=-1");
        config.setMaximumPoolSize(POOL);
        config.setMinimumIdle(POOL);
        config.setConnectionTimeout(10_000);
        config.setPoolName("billing");
        this.pool = new HikariDataSource(config);
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE ALIAS SLOW_CALL FOR 'io.echomq.jdbc.SlowSql.slowCall'");
            s.execute("CREATE TABLE invoice (id VARCHAR(64) PRIMARY KEY, attempt BIGINT NOT NULL)");
        }
    }

    private static int freeLoopbackPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /**
     * Runs the whole scenario with a worker on {@code executor}.
     *
     * @param interruptHandlers the worker's {@link Worker.Builder#interruptHandlers} setting
     * @return whether the handlers ran on virtual threads (every one alike)
     */
    boolean run(ExecutorService executor, boolean interruptHandlers) throws Exception {
        redis.flushAll();
        cancelOnStop = !interruptHandlers;   // an interrupting worker's handler relies on the interrupt
        try (QueueClient client = QueueClient.create(redis.url());
                Worker worker = client.worker(QUEUE, handler()).concurrency(POOL).lease(Duration.ofMillis(600))
                        .maintenanceInterval(Duration.ofMillis(100)).executor(executor).listener(listener())
                        .interruptHandlers(interruptHandlers).start()) {
            Queue q = client.queue(QUEUE);
            EnqueueOptions quickRetry = EnqueueOptions.defaults().withBackoff(Duration.ofMillis(50), Duration.ofMillis(200));

            // 1. Leases lost mid-call: another claimer's attempt moves each job's fence, so the
            //    worker's next renewal is refused (SUPERSEDED). The reaper later gives the jobs back.
            List<String> lost = enqueueSlow(q, quickRetry, 2);
            awaitInCall(lost);
            for (String id : lost) {
                redis.raw().call("HINCRBY", "emq:{" + QUEUE + "}:job:" + id, "attempts", "1");
            }
            awaitOutcome(lost, SettleOutcome.LEASE_LOST);

            // 2. Timeouts mid-call: failed at the timeout, retried.
            List<String> timedOut = enqueueSlow(q, quickRetry.withTimeout(Duration.ofMillis(400)), 2);
            awaitInCall(timedOut);
            awaitOutcome(timedOut, SettleOutcome.RETRYING);

            // 3. Cancels mid-call.
            List<String> cancelled = enqueueSlow(q, quickRetry, 2);
            awaitInCall(cancelled);
            for (String id : cancelled) {
                q.cancel(id);
            }
            awaitOutcome(cancelled, SettleOutcome.CANCELLED);

            List<String> stopped = new ArrayList<>(lost);
            stopped.addAll(timedOut);
            stopped.addAll(cancelled);
            await().atMost(WAIT).until(() -> stoppedMidCall.containsAll(stopped));

            // Every later job on the same pool succeeds: new ones, and the retries of the lost and
            // timed-out jobs (their next attempts only write).
            List<String> later = new ArrayList<>();
            for (int i = 0; i < LATER_JOBS; i++) {
                later.add(q.enqueue(("fast:" + i).getBytes(StandardCharsets.UTF_8), quickRetry).id());
            }
            later.addAll(lost);
            later.addAll(timedOut);
            try {
                await().atMost(WAIT).until(() -> !failures.isEmpty()
                        || later.stream().allMatch(this::completed));
            } catch (ConditionTimeoutException e) {
                throw new AssertionError("later jobs not all completed: " + progress(q, later), e);
            }
            assertThat(failures).as("jobs that failed after the stops").isEmpty();
            assertThat(later).allSatisfy(id -> assertThat(completed(id)).as(id + ": " + outcomes.get(id)).isTrue());
            assertThat(q.stats().dead()).as("dead jobs").isZero();
            assertThat(invoices()).as("invoices written").isEqualTo(later.size());
            assertThat(cancelled).allSatisfy(id -> assertThat(outcomes.get(id)).containsExactly(SettleOutcome.CANCELLED));
        }
        assertThat(virtualHandlers).hasSize(1);
        return virtualHandlers.iterator().next();
    }

    private List<String> enqueueSlow(Queue q, EnqueueOptions options, int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(q.enqueue(("slow:" + i).getBytes(StandardCharsets.UTF_8), options).id());
        }
        return ids;
    }

    private void awaitInCall(List<String> ids) {
        await().atMost(WAIT).until(() -> !failures.isEmpty() || inCall.containsAll(ids));
        assertThat(failures).as("jobs that failed before their slow call").isEmpty();
    }

    private void awaitOutcome(List<String> ids, SettleOutcome outcome) {
        await().atMost(WAIT).until(() -> ids.stream()
                .allMatch(id -> outcomes.getOrDefault(id, List.of()).contains(outcome)));
    }

    /** @return each job's settles so far, the queue's counts and the pool's, for a failure's message */
    private String progress(Queue q, List<String> ids) {
        Map<String, List<SettleOutcome>> seen = new java.util.LinkedHashMap<>();
        ids.forEach(id -> seen.put(id, outcomes.getOrDefault(id, List.of())));
        return seen + "; " + q.stats() + "; pool active " + pool.getHikariPoolMXBean().getActiveConnections()
                + ", idle " + pool.getHikariPoolMXBean().getIdleConnections() + ", waiting "
                + pool.getHikariPoolMXBean().getThreadsAwaitingConnection();
    }

    /**
     * @return whether a later attempt of {@code id} completed. Not "its last settle": a lost attempt is
     *     reported once its handler returns, which may come after the retry the reaper let in has
     *     completed (the lease runs out before a cancelled call has ended).
     */
    private boolean completed(String id) {
        return outcomes.getOrDefault(id, List.of()).contains(SettleOutcome.COMPLETED);
    }

    private long invoices() throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM invoice")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The billing handler: a slow call on its first attempt of a slow job, then the invoice's row. */
    private JobHandler handler() {
        return job -> {
            virtualHandlers.add(isVirtual(Thread.currentThread()));
            boolean slow = job.payloadUtf8().startsWith("slow:") && job.attempt() == 1;
            try (Connection c = pool.getConnection()) {
                if (slow) {
                    try (Statement s = c.createStatement()) {
                        // ends the call on the server, and leaves the connection whole
                        CompletableFuture<Void> cancel = job.stopSignal().thenRun(() -> {
                            if (inCall.contains(job.id())) {
                                stoppedMidCall.add(job.id());
                            }
                            if (cancelOnStop) {
                                cancelQuietly(s);
                            }
                        });
                        inCall.add(job.id());
                        try {
                            s.execute("CALL SLOW_CALL(" + SLOW_MS + ")");
                        } finally {
                            cancel.cancel(false);
                        }
                    }
                }
                if (job.stopRequested()) {
                    return;   // its result would not be kept: write nothing
                }
                try (PreparedStatement p = c.prepareStatement("INSERT INTO invoice (id, attempt) VALUES (?, ?)")) {
                    p.setString(1, job.id());
                    p.setLong(2, job.attempt());
                    p.executeUpdate();
                }
            }
        };
    }

    private WorkerListener listener() {
        return new WorkerListener() {
            @Override
            public void onSettled(Job job, SettleOutcome outcome, Throwable error) {
                outcomes.computeIfAbsent(job.id(), k -> new CopyOnWriteArrayList<>()).add(outcome);
                boolean failed = outcome == SettleOutcome.RETRYING || outcome == SettleOutcome.DEAD;
                if (failed && !(error instanceof JobTimeoutException)) {
                    failures.add(job.id() + " attempt " + job.attempt() + " " + outcome + ": " + error);
                }
            }
        };
    }

    private static void cancelQuietly(Statement s) {
        try {
            s.cancel();
        } catch (SQLException alreadyClosed) {
            // the call ended first: nothing to cancel
        }
    }

    static boolean isVirtual(Thread t) {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(t);
        } catch (ReflectiveOperationException noVirtualThreads) {
            return false;
        }
    }

    @Override
    public void close() {
        pool.close();
        server.stop();
    }
}
