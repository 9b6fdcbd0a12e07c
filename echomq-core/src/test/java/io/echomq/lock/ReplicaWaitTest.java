package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.server.RawRedis;
import io.echomq.server.RedisServer;
import io.echomq.testkit.ReplicaPair;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link AcquireOptions#waitForReplicas}: WAIT after the grant, release and a typed failure when too few ack. */
class ReplicaWaitTest {
    private static final Duration TTL = Duration.ofSeconds(30);
    private static ReplicaPair pair;

    @BeforeAll
    static void startPair() {
        pair = ReplicaPair.start();
    }

    @AfterAll
    static void stopPair() {
        pair.close();
    }

    private static RawRedis raw(RedisServer s) {
        return RawRedis.connect(s.host(), s.port());
    }

    @Test
    void badOptionsAreRefusedBeforeRedisIsTouched() {
        assertThatThrownBy(() -> AcquireOptions.defaults().waitForReplicas(0, Duration.ofMillis(100)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replicas");
        assertThatThrownBy(() -> AcquireOptions.defaults().waitForReplicas(1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        assertThatThrownBy(() -> AcquireOptions.defaults().waitForReplicas(1, Duration.ofMinutes(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        assertThatThrownBy(() -> AcquireOptions.defaults().waitForReplicas(1, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        AcquireOptions o = AcquireOptions.defaults().waitForReplicas(1, Duration.ofMillis(200));
        assertThat(o.replicasToWait()).isEqualTo(1);
        assertThat(o.replicaWait()).isEqualTo(Duration.ofMillis(200));
        assertThat(o.withWatchdog().plain().replicasToWait()).isEqualTo(1);
        assertThat(AcquireOptions.defaults().replicasToWait()).isZero();
        assertThat(o.toString()).contains("wait for 1 replica(s) up to 200 ms");

        try (LockClient locks = LockClient.builder().redisUrl(pair.primary().url())
                .commandTimeout(Duration.ofMillis(500)).build(); RawRedis p = raw(pair.primary())) {
            AcquireOptions tooLong = AcquireOptions.defaults().waitForReplicas(1, Duration.ofMillis(500));
            assertThatThrownBy(() -> locks.tryAcquire("bad-wait", TTL, tooLong))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("command timeout");
            assertThat(p.call("EXISTS", locks.lockKey("bad-wait"))).isEqualTo(0L);
        }
    }

    @Test
    void aGrantAcknowledgedByTheReplicaIsOnTheReplicaWhenAcquireReturns() {
        try (LockClient locks = LockClient.create(pair.primary().url()); RawRedis r = raw(pair.replica())) {
            AcquireOptions o = AcquireOptions.defaults().waitForReplicas(1, Duration.ofSeconds(2));
            Lease lease = locks.tryAcquire("acked", TTL, o).orElseThrow();
            // No awaitSync here: WAIT already made sure the replica has it.
            assertThat(r.call("GET", locks.lockKey("acked"))).isEqualTo(lease.token());
            assertThat(r.call("GET", locks.fenceKey("acked"))).isEqualTo(Long.toString(lease.fence()));
            assertThat(locks.tryAcquire("acked", TTL, o)).isEmpty();   // held is still empty, not an error
            lease.release();
        }
    }

    @Test
    void tooFewAcknowledgementsReleaseTheGrantAndFailTyped() {
        try (LockClient locks = LockClient.create(pair.primary().url()); RawRedis p = raw(pair.primary())) {
            AcquireOptions o = AcquireOptions.defaults().waitForReplicas(2, Duration.ofMillis(100));
            assertThatThrownBy(() -> locks.tryAcquire("unacked", TTL, o))
                    .isInstanceOfSatisfying(ReplicaAckException.class, e -> {
                        assertThat(e.resource()).isEqualTo("unacked");
                        assertThat(e.required()).isEqualTo(2);
                        assertThat(e.acknowledged()).isEqualTo(1);
                        assertThat(e.timeout()).isEqualTo(Duration.ofMillis(100));
                    })
                    .hasMessageContaining("only 1 of 2 replica(s)");
            assertThat(p.call("EXISTS", locks.lockKey("unacked"))).isEqualTo(0L);
            // The waiting form fails the same way rather than retrying until maxWait.
            assertThatThrownBy(() -> locks.acquire("unacked", TTL, Duration.ofSeconds(5), o))
                    .isInstanceOf(ReplicaAckException.class);
            assertThat(p.call("EXISTS", locks.lockKey("unacked"))).isEqualTo(0L);
            // And the asynchronous form fails its future with the same type.
            assertThat(locks.tryAcquireAsync("unacked", TTL, o)).failsWithin(Duration.ofSeconds(10))
                    .withThrowableOfType(ExecutionException.class).havingCause()
                    .isInstanceOf(ReplicaAckException.class);
            assertThat(p.call("EXISTS", locks.lockKey("unacked"))).isEqualTo(0L);
        }
    }

    @Test
    void aStalledReplicationLinkFailsThePlainFormToo() {
        try (LockClient locks = LockClient.create(pair.primary().url()); RawRedis p = raw(pair.primary())) {
            pair.link().blackHole(Duration.ofSeconds(30));
            try {
                AcquireOptions o = AcquireOptions.defaults().plain().waitForReplicas(1, Duration.ofMillis(150));
                assertThatThrownBy(() -> locks.tryAcquire("stalled", TTL, o))
                        .isInstanceOf(ReplicaAckException.class).hasMessageContaining("only 0 of 1");
                assertThat(p.call("EXISTS", locks.lockKey("stalled"))).isEqualTo(0L);
                Optional<Lease> without = locks.tryAcquire("stalled", TTL, AcquireOptions.defaults().plain());
                assertThat(without).isPresent();   // the option is opt-in: without it the grant stands
                without.get().release();
            } finally {
                pair.link().heal();
            }
            pair.awaitSync(Duration.ofSeconds(10));
        }
    }
}
