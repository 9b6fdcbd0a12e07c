package io.echomq.sentinel;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.SettleOutcome;
import io.echomq.server.RawRedis;
import io.echomq.server.RedisServer;
import io.echomq.testkit.SentinelGroup;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A lock and a queue through a {@code redis-sentinel://} URL, on real processes: a master, its replica and three
 * sentinels. The clients find the master by asking the sentinels; the keys land on the master, not the replica.
 */
@Tag("sentinel")
class SentinelUrlTest {
    private static SentinelGroup group;

    @BeforeAll
    static void start() {
        group = SentinelGroup.start();
    }

    @AfterAll
    static void stop() {
        if (group != null) {
            group.close();
        }
    }

    private static RawRedis raw(RedisServer s) {
        return RawRedis.connect(s.host(), s.port());
    }

    @Test
    void aLockIsGrantedOnTheMasterTheSentinelsName() {
        try (LockClient locks = LockClient.create(group.url()); RawRedis master = raw(group.master())) {
            try (Lease lease = locks.tryAcquire("invoice-42", Duration.ofSeconds(30)).orElseThrow()) {
                assertThat(lease.fence()).isPositive();
                assertThat(master.call("GET", locks.lockKey("invoice-42"))).isEqualTo(lease.token());
                assertThat(locks.tryAcquire("invoice-42", Duration.ofSeconds(30))).isEmpty();
            }
            assertThat(master.call("EXISTS", locks.lockKey("invoice-42"))).isEqualTo(0L);
        }
    }

    @Test
    void aQueueEnqueuesAndClaimsThroughTheSentinelUrl() {
        try (QueueClient queues = QueueClient.create(group.url()); RawRedis replica = raw(group.replica())) {
            Queue q = queues.queue("sentinel-q");
            String id = q.enqueue("{\"to\":\"ada@example.com\"}");
            List<Job> claimed = q.claim(1, Duration.ofSeconds(30));
            assertThat(claimed).extracting(Job::id).containsExactly(id);
            assertThat(claimed.get(0).complete()).isEqualTo(SettleOutcome.COMPLETED);
            assertThat(q.stats().completed()).isEqualTo(1);
            // the writes went to the master the sentinels name; its replica holds them by replication
            assertThat(String.valueOf(replica.call("INFO", "replication"))).contains("role:slave");
            assertThat(queues.serverDescription()).matches("(Redis|Valkey) .*");
            // the CI's sentinel pass reads this line to know which binary it ran on
            System.out.println("server under test: " + queues.serverDescription() + " through Sentinel");
        }
    }
}
