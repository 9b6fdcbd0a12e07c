package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.internal.Scripts;
import io.echomq.server.CommandTap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Graceful shutdown gives unfinished leases back unspent; abandon leaves them to the reaper. */
@Timeout(60)
class WorkerShutdownTest extends QueueTestBase {
    /** These tests read completed jobs' hashes: the test client keeps them for an hour. */
    @Override
    Duration retainCompleted() {
        return Duration.ofHours(1);
    }

    private static final Duration WAIT = Duration.ofSeconds(15);

    /**
     * A handler that blocks until its worker asks it to stop (or a gate opens), remembering its
     * jobs, the stops it saw and any interrupt.
     */
    private static final class Blocking implements JobHandler {
        final Map<String, Job> jobs = new ConcurrentHashMap<>();
        final Set<String> stopped = ConcurrentHashMap.newKeySet();
        final Set<String> interrupted = ConcurrentHashMap.newKeySet();
        final CountDownLatch started;
        final CompletableFuture<Void> gate = new CompletableFuture<>();
        final Set<String> blockedForGood;

        Blocking(int expected, Set<String> blockedForGood) {
            this.started = new CountDownLatch(expected);
            this.blockedForGood = blockedForGood;
        }

        @Override
        public void handle(Job job) throws Exception {
            jobs.put(job.id(), job);
            started.countDown();
            CompletableFuture<?> wait = blockedForGood == null || blockedForGood.contains(job.payloadUtf8())
                    ? job.stopSignal() : CompletableFuture.anyOf(job.stopSignal(), gate);
            try {
                wait.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                interrupted.add(job.id());
                throw e;
            }
            if (job.stopRequested()) {
                stopped.add(job.id());
                throw new IllegalStateException("asked to stop");
            }
        }
    }

    @Test
    void cutGraceEndsAWaitingShutdownAtOnceAndStillReturnsTheLeasesUnspent() throws Exception {
        Blocking handler = new Blocking(1, null);
        String id = queue.enqueue("slow");
        Worker w = client.worker("q", handler).concurrency(1).lease(Duration.ofSeconds(5)).start();
        assertThat(handler.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(field(id, "spent")).isEqualTo("1");

        long began = System.nanoTime();
        CompletableFuture<ShutdownReport> stopping =
                CompletableFuture.supplyAsync(() -> w.shutdown(Duration.ofMinutes(5)));
        await().atMost(WAIT).until(() -> !w.isRunning());   // the shutdown is in its grace now
        assertThat(stopping).isNotDone();
        w.cutGrace();

        ShutdownReport report = stopping.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(WAIT);
        assertThat(report).isEqualTo(new ShutdownReport(0, 1, 0));
        await().atMost(WAIT).until(() -> handler.stopped.contains(id));
        assertThat(field(id, "state")).isEqualTo("pending");
        assertThat(field(id, "spent")).as("the attempt was not spent").isEqualTo("0");
    }

    @Test
    void cutGraceBeforeAShutdownMakesItsGraceZero() throws Exception {
        Blocking handler = new Blocking(1, null);
        String id = queue.enqueue("slow");
        Worker w = client.worker("q", handler).concurrency(1).lease(Duration.ofSeconds(5)).start();
        assertThat(handler.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        w.cutGrace();
        ShutdownReport report = CompletableFuture.supplyAsync(() -> w.shutdown(Duration.ofMinutes(5)))
                .get(WAIT.toSeconds(), TimeUnit.SECONDS);

        assertThat(report).isEqualTo(new ShutdownReport(0, 1, 0));
        assertThat(field(id, "state")).isEqualTo("pending");
        assertThat(field(id, "spent")).isEqualTo("0");
    }

    @Test
    void gracefulShutdownGivesUnfinishedLeasesBackWithoutSpendingTheirAttempt() throws Exception {
        RecordingListener events = new RecordingListener();
        Blocking handler = new Blocking(3, null);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(queue.enqueue("job-" + i));
        }
        Worker w = client.worker("q", handler).concurrency(3).lease(Duration.ofSeconds(5)).listener(events).start();
        assertThat(handler.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        List<String> blocked = ids.subList(0, 3);
        assertThat(handler.jobs).containsOnlyKeys(blocked);
        for (String id : blocked) {
            assertThat(field(id, "spent")).isEqualTo("1");
        }

        ShutdownReport report = w.shutdown(Duration.ofMillis(200));

        assertThat(report).isEqualTo(new ShutdownReport(0, 3, 0));
        assertThat(w.isRunning()).isFalse();
        await().atMost(WAIT).until(() -> handler.stopped.size() == 3);
        assertThat(handler.stopped).containsExactlyInAnyOrderElementsOf(blocked);
        assertThat(handler.interrupted).as("a shutdown does not interrupt by default").isEmpty();
        for (String id : blocked) {
            assertThat(field(id, "state")).isEqualTo("pending");
            assertThat(field(id, "spent")).as("the attempt was not spent").isEqualTo("0");
            assertThat(field(id, "attempts")).as("the fence is left alone").isEqualTo("1");
            assertThat(raw().call("EXISTS", "emq:{q}:job:" + id + ":lock")).isEqualTo(0L);
        }
        // priority 0: given back, newest claim first, to the front of the wait LIST, so the LIST is
        // in claim order again (this test used to read the pending ZSET)
        assertThat(raw().call("LRANGE", "emq:{q}:wait", "0", "-1")).isEqualTo(ids);
        QueueStats s = queue.stats();
        assertThat(s.pending()).isEqualTo(5);
        assertThat(s.active()).isZero();
        assertThat(s.failed()).isZero();
        assertThat(w.counts().returned()).isEqualTo(3);
        await().atMost(WAIT).until(() -> events.settled().size() == 3);
        assertThat(events.settled()).allSatisfy(e -> assertThat(e.outcome()).isEqualTo(SettleOutcome.RETURNED));

        // The old handle is settled; a late complete with its attempt is refused by the fence.
        Job old = handler.jobs.get(blocked.get(0));
        assertThat(old.outcome()).contains(SettleOutcome.RETURNED);
        assertThatThrownBy(old::complete).isInstanceOf(IllegalStateException.class);
        Job sameAttempt = new Job(queue.partition().line(), new Attempt(old.id(), old.payload(), old.attempt(),
                old.spentAttempts(), old.maxAttempts(), 0, 5000, System.nanoTime()));
        assertThat(sameAttempt.complete()).isEqualTo(SettleOutcome.LEASE_LOST);
        assertThat(sameAttempt.lossReason()).contains(LeaseLossReason.NOT_ACTIVE);

        // Claimed again it is attempt 2 with one attempt spent, and the old attempt stays refused.
        Job again = queue.claim(Duration.ofSeconds(5)).orElseThrow();
        assertThat(again.id()).as("the returned job kept its place").isEqualTo(blocked.get(0));
        assertThat(again.attempt()).isEqualTo(2);
        assertThat(again.spentAttempts()).isEqualTo(1);
        Job stale = new Job(queue.partition().line(), new Attempt(old.id(), old.payload(), old.attempt(),
                old.spentAttempts(), old.maxAttempts(), 0, 5000, System.nanoTime()));
        assertThat(stale.complete()).isEqualTo(SettleOutcome.LEASE_LOST);
        assertThat(stale.lossReason()).contains(LeaseLossReason.SUPERSEDED);
        assertThat(again.complete()).isEqualTo(SettleOutcome.COMPLETED);
    }

    @Test
    void jobsThatFinishWithinTheGraceAreCompletedNotReturned() throws Exception {
        RecordingListener events = new RecordingListener();
        Blocking handler = new Blocking(4, Set.of("stuck"));
        String quick1 = queue.enqueue("quick");
        String stuck1 = queue.enqueue("stuck");
        String quick2 = queue.enqueue("quick");
        String stuck2 = queue.enqueue("stuck");
        Worker w = client.worker("q", handler).concurrency(4).lease(Duration.ofSeconds(5)).listener(events).start();
        assertThat(handler.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        CompletableFuture<ShutdownReport> shutdown = CompletableFuture.supplyAsync(() -> w.shutdown(Duration.ofSeconds(2)));
        await().atMost(WAIT).until(() -> !w.isRunning());
        handler.gate.complete(null);   // the quick jobs finish inside the grace
        ShutdownReport report = shutdown.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        assertThat(report).isEqualTo(new ShutdownReport(2, 2, 0));
        assertThat(field(quick1, "state")).isEqualTo("done");
        assertThat(field(quick2, "state")).isEqualTo("done");
        assertThat(field(stuck1, "state")).isEqualTo("pending");
        assertThat(field(stuck2, "state")).isEqualTo("pending");
        assertThat(field(stuck1, "spent")).isEqualTo("0");
        assertThat(handler.stopped).doesNotContain(quick1, quick2);
        await().atMost(WAIT).until(() -> handler.stopped.size() == 2);
        assertThat(handler.stopped).containsExactlyInAnyOrder(stuck1, stuck2);
        await().atMost(WAIT).until(() -> events.settled().size() == 4);
        assertThat(events.outcomes(quick1)).containsExactly(SettleOutcome.COMPLETED);
        assertThat(events.outcomes(stuck1)).containsExactly(SettleOutcome.RETURNED);
        QueueStats s = queue.stats();
        assertThat(s.completed()).isEqualTo(2);
        assertThat(s.pending()).isEqualTo(2);
        assertThat(s.active()).isZero();
    }

    @Test
    @Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
    void noJobIsClaimedOnceShutdownBegins() throws Exception {
        Blocking handler = new Blocking(2, Set.of());
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ids.add(queue.enqueue("job-" + i));
        }
        Worker w = client.worker("q", handler).concurrency(2).lease(Duration.ofSeconds(5)).start();
        assertThat(handler.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        List<List<String>> commands;
        ShutdownReport report;
        try (CommandTap tap = raw().monitor()) {
            raw().call("ECHO", "shutdown-begins");
            CompletableFuture<ShutdownReport> shutdown =
                    CompletableFuture.supplyAsync(() -> w.shutdown(Duration.ofSeconds(5)));
            await().atMost(WAIT).until(() -> !w.isRunning());
            handler.gate.complete(null);   // the running jobs finish: they must not claim a next one
            report = shutdown.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            raw().call("ECHO", "shutdown-done");
            assertThat(tap.awaitCommand(c -> c.equals(List.of("ECHO", "shutdown-done")), WAIT)).isTrue();
            commands = tap.commands();
        }
        assertThat(report).isEqualTo(new ShutdownReport(2, 0, 0));
        int begin = commands.indexOf(List.of("ECHO", "shutdown-begins"));
        assertThat(begin).isNotNegative();
        String claimSha = Scripts.CLAIM.sha();
        // EVALSHA sha 8 <8 keys> prefix lease n ...: ARGV[3] (n, jobs to claim) is at index 13.
        List<List<String>> claims = commands.subList(begin, commands.size()).stream()
                .filter(c -> c.size() > 13 && c.get(0).equalsIgnoreCase("EVALSHA") && c.get(1).equals(claimSha))
                .toList();
        assertThat(claims).as("the two completions").hasSize(2);
        assertThat(claims).allSatisfy(c -> assertThat(c.get(13)).as("jobs claimed").isEqualTo("0"));
        QueueStats s = queue.stats();
        assertThat(s.completed()).isEqualTo(2);
        assertThat(s.pending()).isEqualTo(8);
        assertThat(s.active()).isZero();
        for (String id : ids.subList(2, 10)) {
            assertThat(field(id, "attempts")).as("never claimed: absent, the protocol's 0").isNull();
        }
    }

    @Test
    void shutdownIsIdempotentAndStopsTheWorkersThreads() throws Exception {
        Blocking handler = new Blocking(1, null);
        queue.enqueue("blocked");
        Worker w = client.worker("q", handler).concurrency(1).start();
        assertThat(handler.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        ShutdownReport first = w.shutdown(Duration.ZERO);
        assertThat(first).isEqualTo(new ShutdownReport(0, 1, 0));
        assertThat(w.shutdown(Duration.ofSeconds(10))).isSameAs(first);
        w.close();
        w.abandon();
        assertThat(w.shutdown(Duration.ZERO)).isSameAs(first);
        assertThat(w.counts().returned()).isEqualTo(1);
        assertThat(queue.stats().pending()).isEqualTo(1);
        String prefix = w + "-";
        await().atMost(WAIT).until(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.isAlive() && t.getName().startsWith(prefix)));
        assertThatThrownBy(() -> w.shutdown(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
    void abandonLeavesTheLeasesToExpireAndAnotherWorkersReaperReturnsThem() throws Exception {
        QueueClient crashing = client(b -> { });
        Blocking handler = new Blocking(2, null);
        String a = queue.enqueue("a");
        String b = queue.enqueue("b");
        Worker doomed = crashing.worker("q", handler).concurrency(2).lease(Duration.ofMillis(500)).start();
        assertThat(handler.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        String testConnection = clientAddress(raw().call("CLIENT", "INFO").toString());

        List<ClientCommandMonitor.Command> afterAbandon;
        try (ClientCommandMonitor monitor = new ClientCommandMonitor(REDIS.server().host(), REDIS.server().port())) {
            doomed.abandon();
            // Nothing was given back: both jobs are still active under their lease, one attempt spent.
            for (String id : List.of(a, b)) {
                assertThat(field(id, "state")).isEqualTo("active");
                assertThat(field(id, "spent")).isEqualTo("1");
                assertThat(score(id)).as("the lease in active").isNotNull();
            }
            long deadline = Math.max(score(a), score(b));
            // Until both leases ran out on the server clock, nobody renews them (only the test's own
            // connection may talk meanwhile, so the server clock is read through it).
            await().atMost(WAIT).until(() -> serverMillis() > deadline);
            assertThat(Math.max(score(a), score(b))).isEqualTo(deadline);
            afterAbandon = monitor.commands();
        }
        assertThat(afterAbandon)
                .as("commands from the abandoned worker")
                .filteredOn(c -> !c.client().equals(testConnection))
                .isEmpty();
        assertThat(queue.stats().pending()).isZero();

        Map<String, Job> reclaimed = new ConcurrentHashMap<>();
        try (Worker rescuer = client.worker("q", job -> reclaimed.put(job.id(), job))
                .concurrency(2).maintenanceInterval(Duration.ofMillis(50)).start()) {
            await().atMost(WAIT).until(() -> reclaimed.size() == 2);
            await().atMost(WAIT).until(() -> queue.stats().completed() == 2);
            for (String id : List.of(a, b)) {
                Job j = reclaimed.get(id);
                assertThat(j.attempt()).isEqualTo(2);
                assertThat(j.spentAttempts()).as("the abandoned attempt counts").isEqualTo(2);
                assertThat(field(id, "state")).isEqualTo("done");
                assertThat(field(id, "last_error")).startsWith("lease expired on attempt 1");
            }
            assertThat(rescuer.counts().completed()).isEqualTo(2);
        }
        assertThat(doomed.isRunning()).isFalse();
        assertThat(doomed.counts().completed() + doomed.counts().returned()).isZero();
        assertThat(queue.stats().failed()).as("the abandoned handlers did not fail their jobs").isZero();
    }

    private long serverMillis() {
        List<?> time = (List<?>) raw().call("TIME");
        return Long.parseLong(time.get(0).toString()) * 1000 + Long.parseLong(time.get(1).toString()) / 1000;
    }

    private long score(String id) {
        return (long) Double.parseDouble(raw().call("ZSCORE", "emq:{q}:active", id).toString());
    }

    /** The addr=... field of CLIENT INFO. */
    private static String clientAddress(String clientInfo) {
        for (String part : clientInfo.trim().split(" ")) {
            if (part.startsWith("addr=")) {
                return part.substring(5);
            }
        }
        throw new IllegalStateException("no addr in " + clientInfo);
    }
}
