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
        try {
            await().atMost(WAIT).until(() -> dir.list("q").size() == 1 && dir.list("q").get(0).inHand() == 1);
            WorkerInfo info = dir.list("q").get(0);
            assertThat(info.pid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(info.host()).isNotEmpty();
            assertThat(info.id()).isEqualTo(info.host() + "-" + info.pid() + "-" + info.id().replaceAll(".*-", ""));
            assertThat(info.name()).isEqualTo(w.toString());
            assertThat(info.concurrency()).isEqualTo(3);
            assertThat(info.startedAt()).isBeforeOrEqualTo(info.lastBeat());
            // three intervals of 50 ms are under the one-second floor
            assertThat(Duration.between(info.lastBeat(), info.expiresAt())).isEqualTo(Duration.ofMillis(1000));
            assertThat(info.sinceBeat()).isLessThan(Duration.ofSeconds(1));
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
        assertThat(raw().call("KEYS", "emq:{q}:worker:*")).asList().isEmpty();
    }

    @Test
    void anAbandonedWorkersRecordExpiresAndTheSetStaysBounded() {
        long now = serverMillis();
        raw().call("ZADD", "emq:{q}:workers", "1", "long-gone");   // expired long ago
        String[] live = new String[2 + 2 * (Heartbeat.MAX_WORKERS + 5)];
        live[0] = "ZADD";
        live[1] = "emq:{q}:workers";
        for (int i = 0; i < Heartbeat.MAX_WORKERS + 5; i++) {
            live[2 + 2 * i] = Long.toString(now + 500);   // live, but expiring before a new worker's record
            live[3 + 2 * i] = "foreign-" + i;
        }
        raw().call(live);
        WorkerDirectory dir = WorkerDirectory.of(client);
        Worker w = client.worker("q", job -> { }).maintenanceInterval(Duration.ofMillis(50)).start();
        await().atMost(WAIT).until(() -> dir.list("q").size() == 1);   // the foreign members have no HASH
        String id = dir.list("q").get(0).id();
        assertThat(raw().call("ZSCORE", "emq:{q}:workers", "long-gone")).isNull();
        assertThat(raw().call("ZSCORE", "emq:{q}:workers", id)).isNotNull();
        assertThat((Long) raw().call("ZCARD", "emq:{q}:workers")).isLessThanOrEqualTo(Heartbeat.MAX_WORKERS);

        w.abandon();   // sends nothing more, as a killed process
        await().atMost(WAIT).until(() -> dir.list("q").isEmpty());
        await().atMost(WAIT).until(() -> (Long) raw().call("EXISTS", "emq:{q}:workers", "emq:{q}:worker:" + id) == 0L);
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
            assertThat((Long) raw().call("EXISTS", "emq:{orders#1}:workers", "emq:{orders#2}:workers")).isZero();
        }
        assertThat(dir.list("orders")).isEmpty();
    }
}
