package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An idle worker waits on the queue's wake channel, not on a poll: new, returned and due work starts
 * within milliseconds, and an idle worker costs the server only a few commands per second.
 *
 * <p>Several tests set the idle poll to 30 s and the maintenance interval to an hour, so that any
 * start which waited for a poll or for maintenance would be obvious. Their upper bound for any one
 * start (2 s) is generous on purpose, for a loaded machine: it shows that no poll interval was
 * waited. "Within milliseconds" is held to by the median over many starts instead (below
 * {@link #MEDIAN_START_MS}), which a wait for any poll or tick would exceed.
 */
@Timeout(90)
class WorkerWakeTest extends QueueTestBase {
    /** These tests read completed (or cancelled) jobs' hashes: the test client keeps them for an hour. */
    @Override
    Duration retainCompleted() {
        return Duration.ofHours(1);
    }

    private static final Duration LONG_POLL = Duration.ofSeconds(30);
    private static final Duration NO_MAINTENANCE = Duration.ofHours(1);
    private static final long NO_POLL_WAITED_MS = 2000;
    /** The median start latency of an idle worker: a few ms on a quiet machine, tens under load. */
    private static final long MEDIAN_START_MS = 50;

    /** Handler start times (System.nanoTime) with the job that started. */
    private record Start(long atNanos, Job job) {
    }

    private Worker idleWorker(BlockingQueue<Start> starts, int concurrency) {
        Worker w = client.worker("q", job -> starts.add(new Start(System.nanoTime(), job)))
                .concurrency(concurrency)
                .idlePoll(LONG_POLL)
                .maintenanceInterval(NO_MAINTENANCE)
                .shutdownGrace(Duration.ofSeconds(2))
                .start();
        await().atMost(Duration.ofSeconds(10)).until(w::isIdle);
        return w;
    }

    private static Start next(BlockingQueue<Start> starts) throws InterruptedException {
        Start s = starts.poll(10, TimeUnit.SECONDS);
        assertThat(s).as("a handler started").isNotNull();
        return s;
    }

    @Test
    void anIdleWorkerStartsANewJobWithinMilliseconds() throws Exception {
        BlockingQueue<Start> starts = new ArrayBlockingQueue<>(100);
        int rounds = 20;
        List<Long> latenciesMicros = new ArrayList<>();
        try (Worker w = idleWorker(starts, 2)) {
            for (int i = 0; i < rounds; i++) {
                await().atMost(Duration.ofSeconds(10)).until(w::isIdle);
                long t0 = System.nanoTime();
                String id = queue.enqueue("job-" + i);
                Start s = next(starts);
                assertThat(s.job().id()).isEqualTo(id);
                long micros = TimeUnit.NANOSECONDS.toMicros(s.atNanos() - t0);
                latenciesMicros.add(micros);
                // Generous bound: the point is that no idle poll (30 s) was waited, not speed.
                assertThat(micros).as("start latency of round %d, µs", i).isLessThan(NO_POLL_WAITED_MS * 1000);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> queue.stats().completed() == rounds);
        }
        List<Long> sorted = latenciesMicros.stream().sorted().toList();
        System.out.printf("wake latency over %d rounds: p50 %.2f ms, max %.2f ms, all (µs) %s%n", rounds,
                sorted.get(rounds / 2) / 1000.0, sorted.get(rounds - 1) / 1000.0, latenciesMicros);
        assertThat(sorted.get(rounds / 2)).as("median start latency, µs").isLessThan(MEDIAN_START_MS * 1000);
    }

    /**
     * The idle bound, as the server counts it: every command one idle worker makes the server run
     * over a window of at least 10 s, including each command a script runs, summed from
     * {@code INFO commandstats} over every server (every master of a cluster). The {@code INFO}
     * calls of the test itself are left out. The bound is on the count: at most 5 per second of
     * the window for its looking (claims, polls, reaps), plus, at their own slower rates, the
     * records it keeps for tools: each heartbeat that can fall in the window (one per
     * {@link Heartbeat#periodMillis period}, 10 s by default: {@value #HEARTBEAT_COMMANDS}
     * commands) and each throughput sample (one a minute from the maintenance holder:
     * {@value #SAMPLE_COMMANDS} commands). It bounds what the worker sends as well, since the
     * server counts each command a client sends, besides those its scripts run.
     */
    @Test
    void anIdleWorkerMakesTheServerRunAtMostFiveCommandsPerSecondBesidesItsHeartbeatAndSamples() throws Exception {
        // Defaults: idle poll 5 s, maintenance every 2 s.
        Worker w = client.worker("q", job -> { }).concurrency(4).start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(w::isIdle);
            Map<String, Long> before = serverCommandCounts();
            long t0 = System.nanoTime();
            await().during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(12)).until(w::isIdle);
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
            Map<String, Long> after = serverCommandCounts();
            Map<String, Long> ran = new TreeMap<>();
            after.forEach((name, calls) -> {
                long d = calls - before.getOrDefault(name, 0L);
                if (d > 0 && !name.equals("info")) {
                    ran.put(name, d);
                }
            });
            long count = ran.values().stream().mapToLong(Long::longValue).sum();
            long window = Math.max(10, seconds + 1);
            long beats = window * 1000 / Heartbeat.periodMillis(Worker.DEFAULT_MAINTENANCE_INTERVAL.toMillis()) + 1;
            long samples = window / 60 + 1;
            long bound = 5 * window + beats * HEARTBEAT_COMMANDS + samples * SAMPLE_COMMANDS;
            System.out.printf("idle worker, server side: %d commands in %d s (bound %d) %s%n", count, seconds, bound, ran);
            assertThat(ran).as("the idle worker still reaps and looks").containsKeys("evalsha", "time");
            assertThat(count).as("commands the server ran for one idle worker over %d s: %s", seconds, ran)
                    .isLessThanOrEqualTo(bound);
        } finally {
            w.close();
        }
    }

    /** At most: EVALSHA, then TIME, ZREMRANGEBYSCORE, HSET, PEXPIRE, ZADD, PTTL, PEXPIRE inside heartbeat-2. */
    private static final long HEARTBEAT_COMMANDS = 8;
    /** At most: EVALSHA, then TIME, ZCOUNT, HMGET, ZADD, ZREMRANGEBYSCORE, PEXPIRE inside throughput-2. */
    private static final long SAMPLE_COMMANDS = 7;

    /** @return calls per command since the servers started, summed over every server */
    static Map<String, Long> serverCommandCounts() {
        Map<String, Long> calls = new TreeMap<>();
        for (io.echomq.server.RedisServer server : REDIS.servers()) {
            try (io.echomq.server.RawRedis node = io.echomq.server.RawRedis.connect(server.host(), server.port())) {
                String stats = (String) node.call("INFO", "commandstats");
                for (String line : stats.split("\r?\n")) {
                    if (line.startsWith("cmdstat_")) {
                        String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                        // cmdstat_evalsha:calls=5,usec=...,rejected_calls=0,failed_calls=0: the first calls=
                        calls.merge(name, Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1")), Long::sum);
                    }
                }
            }
        }
        return calls;
    }

    @Test
    void aDelayedJobStartsNearItsDueTimeWithoutWaitingForThePoll() throws Exception {
        BlockingQueue<Start> starts = new ArrayBlockingQueue<>(10);
        try (Worker w = idleWorker(starts, 2)) {
            long t0 = System.nanoTime();
            String id = queue.enqueue("later".getBytes(StandardCharsets.UTF_8),
                    EnqueueOptions.defaults().withDelay(Duration.ofMillis(300))).id();
            Start s = next(starts);
            long ms = TimeUnit.NANOSECONDS.toMillis(s.atNanos() - t0);
            System.out.printf("delayed job (300 ms) started after %d ms%n", ms);
            assertThat(s.job().id()).isEqualTo(id);
            // Due on the server clock 300 ms after the enqueue; the server's ms are truncated, so allow 5 ms.
            assertThat(ms).as("not before its due time").isGreaterThanOrEqualTo(295);
            // Generous bound: no idle poll (30 s) and no maintenance run (1 h) was waited.
            assertThat(ms).as("near its due time").isLessThan(300 + NO_POLL_WAITED_MS);
        }
    }

    @Test
    void aRetryStartsAfterItsBackoffWithoutWaitingForThePoll() throws Exception {
        BlockingQueue<Start> starts = new ArrayBlockingQueue<>(10);
        Worker w = client.worker("q", job -> {
            starts.add(new Start(System.nanoTime(), job));
            if (job.attempt() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
        }).concurrency(4).idlePoll(LONG_POLL).maintenanceInterval(NO_MAINTENANCE)
                .shutdownGrace(Duration.ofSeconds(2)).start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(w::isIdle);
            String id = queue.enqueue("retry me".getBytes(StandardCharsets.UTF_8),
                    EnqueueOptions.defaults().withBackoff(Duration.ofMillis(100), Duration.ofMillis(100))).id();
            Start first = next(starts);
            Start second = next(starts);
            long ms = TimeUnit.NANOSECONDS.toMillis(second.atNanos() - first.atNanos());
            System.out.printf("retry (backoff 50..100 ms) started %d ms after the first attempt%n", ms);
            assertThat(second.job().id()).isEqualTo(id);
            assertThat(second.job().attempt()).isEqualTo(2);
            assertThat(ms).as("the backoff was waited").isGreaterThanOrEqualTo(45);
            // Generous bound: no idle poll (30 s) and no maintenance run (1 h) was waited.
            assertThat(ms).as("no poll waited").isLessThan(NO_POLL_WAITED_MS);
            await().atMost(Duration.ofSeconds(10)).until(() -> "done".equals(field(id, "state")));
        } finally {
            w.close();
        }
    }

    @Test
    void aLeaseReturnedByAnotherWorkerStartsAtOnceOnAnIdleOne() throws Exception {
        BlockingQueue<Start> starts = new ArrayBlockingQueue<>(10);
        String id = queue.enqueue("handed over");
        Job held = queue.claim(Duration.ofSeconds(30)).orElseThrow();
        try (Worker w = idleWorker(starts, 1)) {
            long t0 = System.nanoTime();
            assertThat(held.returnLease()).isEqualTo(SettleOutcome.RETURNED);
            Start s = next(starts);
            long micros = TimeUnit.NANOSECONDS.toMicros(s.atNanos() - t0);
            System.out.printf("returned lease started after %.2f ms%n", micros / 1000.0);
            assertThat(s.job().id()).isEqualTo(id);
            // The returned lease kept its attempt number; the new claim is attempt 2 of spent 1.
            assertThat(s.job().attempt()).isEqualTo(2);
            assertThat(s.job().spentAttempts()).isEqualTo(1);
            // Generous bound: no idle poll (30 s) was waited.
            assertThat(micros).isLessThan(NO_POLL_WAITED_MS * 1000);
        }
    }
}
