package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.server.RawRedis;
import io.echomq.server.RedisServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link QueueClient.Builder#waitForReplicas}: on a primary with one real replica, an enqueue returns once the replica
 * holds the job; when fewer replicas acknowledge than asked, the call throws {@link EnqueueReplicaException} with the
 * jobs' results, and the jobs exist on the primary; an enqueue again with the same idempotency key creates nothing
 * twice. The test starts its own primary and replica, whatever server the suite runs on.
 */
@Timeout(60)
class EnqueueReplicaWaitTest {
    private static RedisServer primary;
    private static RedisServer replica;

    @BeforeAll
    static void start() {
        primary = RedisServer.builder().config("repl-diskless-sync-delay", "0").start();
        replica = RedisServer.builder().config("repl-diskless-sync-delay", "0").start();
        try (RawRedis r = RawRedis.connect(replica.host(), replica.port())) {
            r.call("REPLICAOF", primary.host(), Integer.toString(primary.port()));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            try (RawRedis r = RawRedis.connect(primary.host(), primary.port())) {
                return String.valueOf(r.call("INFO", "replication")).contains("connected_slaves:1")
                        && String.valueOf(r.call("INFO", "replication")).contains("state=online");
            }
        });
    }

    @AfterAll
    static void stop() {
        if (replica != null) {
            replica.close();
        }
        if (primary != null) {
            primary.close();
        }
    }

    private static QueueClient client(int replicas, Duration timeout) {
        return QueueClient.builder().redisUrl(primary.url()).waitForReplicas(replicas, timeout).build();
    }

    @Test
    void anEnqueueReturnsOnceTheReplicaHoldsTheJob() {
        try (QueueClient client = client(1, Duration.ofSeconds(2));
             RawRedis onReplica = RawRedis.connect(replica.host(), replica.port())) {
            Queue q = client.queue("replicated");
            for (int i = 0; i < 50; i++) {
                String id = q.enqueue("job-" + i);
                // read on the replica at once, no wait: WAIT returned only after it acknowledged the enqueue
                assertThat(onReplica.call("HEXISTS", "emq:{replicated}:pb:" + Long.parseLong(id) / 128, id))
                        .as("job %s on the replica when its enqueue returned", id).isEqualTo(1L);
            }
            List<EnqueueResult> bulk = q.enqueueAll(List.of(JobRequest.of("a"), JobRequest.of("b")));
            assertThat(bulk).hasSize(2);
            for (EnqueueResult r : bulk) {
                assertThat(onReplica.call("HEXISTS", "emq:{replicated}:pb:" + Long.parseLong(r.id()) / 128, r.id()))
                        .as("bulk job %s on the replica", r.id()).isEqualTo(1L);
            }
        }
    }

    @Test
    void tooFewReplicasThrowWithTheJobsWhichExistAndAreNotCreatedTwice() {
        // WAIT blocks for the whole timeout when too few replicas can answer: 1 s lets the one replica answer under load
        try (QueueClient client = client(2, Duration.ofSeconds(1))) {
            Queue q = client.queue("short");
            EnqueueOptions keyed = EnqueueOptions.defaults().withIdempotencyKey("order-7", Duration.ofHours(1));
            assertThatThrownBy(() -> q.enqueue("x", keyed))
                    .isInstanceOfSatisfying(EnqueueReplicaException.class, e -> {
                        assertThat(e.required()).isEqualTo(2);
                        assertThat(e.acknowledged()).isEqualTo(1L);
                        assertThat(e.queue()).isEqualTo("short");
                        assertThat(e.results()).hasSize(1);
                        assertThat(e.results().get(0).created()).isTrue();
                        assertThat(e.getMessage()).contains("only 1 of 2 replica(s)");
                    });
            assertThat(q.stats().pending()).as("the job exists on the primary").isEqualTo(1);
            assertThatThrownBy(() -> q.enqueue("x", keyed)).isInstanceOfSatisfying(EnqueueReplicaException.class,
                    e -> assertThat(e.results().get(0).created()).as("the key found the first job").isFalse());
            assertThat(q.stats().pending()).isEqualTo(1);
        }
    }

    @Test
    void withoutTheWaitNothingChangesAndBadSettingsAreRefused() {
        try (QueueClient plain = QueueClient.create(primary.url())) {
            assertThat(plain.queue("plain").enqueue("x")).isNotBlank();
        }
        assertThatThrownBy(() -> QueueClient.builder().waitForReplicas(-1, Duration.ofMillis(10)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0..100");
        assertThatThrownBy(() -> QueueClient.builder().waitForReplicas(1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> QueueClient.builder().redisUrl(primary.url()).commandTimeout(Duration.ofSeconds(1))
                .waitForReplicas(1, Duration.ofSeconds(1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shorter than the command timeout");
    }
}
