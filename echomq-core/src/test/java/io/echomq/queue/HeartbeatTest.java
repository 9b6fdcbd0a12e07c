package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A worker's heartbeat: written with its facts, bounded, expiring when it dies, removed when it closes. */
class HeartbeatTest extends QueueTestBase {
    private static final Duration WAIT = Duration.ofSeconds(15);

    private static String text(Object v) {
        return v == null ? null : v instanceof byte[] b ? new String(b) : v.toString();
    }

    private long serverMillis() {
        List<?> t = (List<?>) raw().call("TIME");
        return Long.parseLong(text(t.get(0))) * 1000 + Long.parseLong(text(t.get(1))) / 1000;
    }

    @Test
    void aRunningWorkerRecordsItsFactsAndACleanCloseRemovesThem() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        queue.enqueue("held");
        WorkerDirectory dir = WorkerDirectory.of(client);
        Worker w = client.worker("q", job -> release.await(10, TimeUnit.SECONDS)).concurrency(3)
                .maintenanceInterval(Duration.ofMillis(50)).start();
        String id;
        try {
            await().atMost(WAIT).until(() -> dir.list("q").size() == 1 && dir.list("q").get(0).inHand() == 1);
            WorkerInfo info = dir.list("q").get(0);
            id = info.id();
            assertThat(info.pid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(info.host()).isNotEmpty();
            assertThat(info.id()).isEqualTo(info.host() + "-" + info.pid() + "-" + info.id().replaceAll(".*-", ""));
            assertThat(info.name()).isEqualTo(w.toString());
            assertThat(info.concurrency()).isEqualTo(3);
            assertThat(info.startedAt()).isBeforeOrEqualTo(info.lastBeat());
            // three intervals of 50 ms are under the one-second floor
            assertThat(Duration.between(info.lastBeat(), info.expiresAt())).isEqualTo(Duration.ofMillis(1000));
            assertThat(info.sinceBeat()).isLessThan(Duration.ofSeconds(1));
            assertThat(text(raw().call("HGET", "emq:{q}:worker:" + info.id(), "period_ms"))).isEqualTo("250");
            assertThat(text(raw().call("ZSCORE", "emq:{q}:workers", info.id())))
                    .isEqualTo(Long.toString(info.expiresAt().toEpochMilli()));
            long pttl = (Long) raw().call("PTTL", "emq:{q}:worker:" + info.id());
            assertThat(pttl).isBetween(1L, 1000L);
            assertThat((Long) raw().call("PTTL", "emq:{q}:workers")).isBetween(1L, 1000L);
        } finally {
            release.countDown();
            w.close();
        }
        assertThat(dir.list("q")).isEmpty();
        assertThat(raw().call("EXISTS", "emq:{q}:workers")).isEqualTo(0L);
        assertThat(raw().call("EXISTS", "emq:{q}:worker:" + id)).isEqualTo(0L);
    }

    @Test
    void anAbandonedWorkersRecordExpiresAndEachBeatTrimsExpiredMembers() {
        long now = serverMillis();
        raw().call("ZADD", "emq:{q}:workers", "1", "long-gone", Long.toString(now + 300), "no-hash");
        WorkerDirectory dir = WorkerDirectory.of(client);
        Worker w = client.worker("q", job -> { }).maintenanceInterval(Duration.ofMillis(50)).start();
        await().atMost(WAIT).until(() -> dir.list("q").size() == 1);   // "no-hash" has no record to read
        String id = dir.list("q").get(0).id();
        assertThat(raw().call("ZSCORE", "emq:{q}:workers", "long-gone")).as("trimmed by the first beat").isNull();
        // "no-hash" expires 300 ms after the start; an idle worker still beats every five runs (250 ms)
        await().atMost(WAIT).until(() -> raw().call("ZSCORE", "emq:{q}:workers", "no-hash") == null);
        assertThat(raw().call("ZSCORE", "emq:{q}:workers", id)).isNotNull();

        w.abandon();   // sends nothing more, as a killed process
        await().atMost(WAIT).until(() -> dir.list("q").isEmpty());
        await().atMost(WAIT).until(() -> (Long) raw().call("EXISTS", "emq:{q}:workers", "emq:{q}:worker:" + id) == 0L);
    }

    @Test
    void anIdleWorkerBeatsOncePerPeriodAndABusyOneAsSoonAsItsJobsInHandChange() throws Exception {
        assertThat(Heartbeat.periodMillis(2000)).as("the default interval").isEqualTo(10_000);
        assertThat(Heartbeat.ttlMillis(2000)).isEqualTo(30_000);
        assertThat(Heartbeat.periodMillis(Duration.ofMinutes(1).toMillis())).as("never more than one per interval")
                .isEqualTo(60_000);
        assertThat(Heartbeat.periodMillis(500)).isEqualTo(2500);

        CountDownLatch release = new CountDownLatch(1);
        WorkerDirectory dir = WorkerDirectory.of(client);
        try (Worker w = client.worker("q", job -> release.await(10, TimeUnit.SECONDS))
                .maintenanceInterval(Duration.ofMillis(500)).start()) {
            await().atMost(WAIT).until(() -> dir.list("q").size() == 1);
            WorkerInfo idle = dir.list("q").get(0);
            assertThat(idle.inHand()).isZero();
            queue.enqueue("held");
            await().atMost(WAIT).until(() -> dir.list("q").get(0).inHand() == 1);
            WorkerInfo busy = dir.list("q").get(0);
            assertThat(Duration.between(idle.lastBeat(), busy.lastBeat()))
                    .as("beaten at the first run that saw the job, not a period (2.5 s) later")
                    .isLessThan(Duration.ofMillis(2500));
            release.countDown();
        }
    }

    @Test
    void aShardedQueuesWorkersBeatOnItsPartitionZero() {
        client.shardedQueue("orders", 3);
        WorkerDirectory dir = WorkerDirectory.of(client);
        try (Worker w = client.worker(client.shardedQueue("orders", 3), job -> { })
                .maintenanceInterval(Duration.ofMillis(50)).idlePoll(Duration.ofMillis(100)).start()) {
            await().atMost(WAIT).until(() -> dir.list("orders").size() == 1);
            assertThat(dir.list("orders").get(0).name()).isEqualTo(w.toString());
            assertThat((Long) raw().call("ZCARD", "emq:{orders#0}:workers")).isEqualTo(1L);
            assertThat((Long) raw().call("EXISTS", "emq:{orders#1}:workers")).isZero();   // one slot per call
            assertThat((Long) raw().call("EXISTS", "emq:{orders#2}:workers")).isZero();
        }
        assertThat(dir.list("orders")).isEmpty();
    }
}
