package io.echomq.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.queue.EnqueueReplicaException;
import io.echomq.queue.QueueClient;
import io.echomq.server.RawRedis;
import io.echomq.server.RedisSentinel;
import io.echomq.testkit.SentinelGroup;
import java.time.Duration;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The starter on a master watched by real sentinels, configured the way a Spring application configures Spring Data
 * Redis for Sentinel: {@code spring.data.redis.sentinel.*}, with the sentinels' password and the data nodes' own.
 */
@Tag("sentinel")
class SentinelStarterTest {
    private static SentinelGroup group;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(EchoMQAutoConfiguration.class));

    @BeforeAll
    static void start() {
        group = SentinelGroup.start("data-secret", "sentinel-secret");
    }

    @AfterAll
    static void stop() {
        if (group != null) {
            group.close();
        }
    }

    private static String nodes() {
        return group.sentinels().stream().map(RedisSentinel::address).collect(Collectors.joining(","));
    }

    @Test
    void springDataRedisSentinelSettingsBootTheClientsAndTheyTakeALock() {
        runner.withPropertyValues("spring.data.redis.sentinel.master=" + SentinelGroup.MASTER_NAME,
                "spring.data.redis.sentinel.nodes=" + nodes(),
                "spring.data.redis.sentinel.password=sentinel-secret",
                "spring.data.redis.password=data-secret").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            LockClient locks = ctx.getBean(LockClient.class);
            try (Lease lease = locks.tryAcquire("sentinel-starter", Duration.ofSeconds(5)).orElseThrow();
                 var master = group.connect(group.master())) {
                assertThat(master.call("GET", locks.lockKey("sentinel-starter"))).isEqualTo(lease.token());
            }
            ctx.getBean(QueueClient.class).queue("sentinel-starter").enqueue("x");
            assertThat(ctx.getBean(QueueClient.class).queue("sentinel-starter").stats().pending()).isEqualTo(1);
        });
    }

    @Test
    void theStartersOwnUrlTakesASentinelUrl() {
        runner.withPropertyValues("echomq.redis.url=redis-sentinel://:data-secret@" + nodes()
                + "?sentinelPassword=sentinel-secret#" + SentinelGroup.MASTER_NAME).run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx.getBean(LockClient.class).tryAcquire("sentinel-own-url", Duration.ofSeconds(5)))
                    .isPresent();
        });
    }

    /** echomq.queue.wait-for-replicas: each enqueue returns once the master's replica holds it, or throws. */
    @Test
    void enqueuesWaitForTheReplicaTheStarterIsToldToWaitFor() {
        String[] sentinel = {"spring.data.redis.sentinel.master=" + SentinelGroup.MASTER_NAME,
                "spring.data.redis.sentinel.nodes=" + nodes(), "spring.data.redis.sentinel.password=sentinel-secret",
                "spring.data.redis.password=data-secret"};
        runner.withPropertyValues(sentinel).withPropertyValues("echomq.queue.wait-for-replicas=1",
                "echomq.queue.replica-timeout=2s").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            String id = ctx.getBean(QueueClient.class).queue("replicated-starter").enqueue("x");
            try (var replica = group.connect(group.replica())) {
                assertThat(replica.call("HEXISTS", "emq:{replicated-starter}:pb:" + Long.parseLong(id) / 128, id))
                        .as("on the replica when the enqueue returned").isEqualTo(1L);
            }
        });
        runner.withPropertyValues(sentinel).withPropertyValues("echomq.queue.wait-for-replicas=2",
                "echomq.queue.replica-timeout=1s").run(ctx -> assertThatThrownBy(
                        () -> ctx.getBean(QueueClient.class).queue("replicated-starter").enqueue("y"))
                .isInstanceOfSatisfying(EnqueueReplicaException.class, e -> assertThat(e.acknowledged()).isEqualTo(1L)));
    }

    /**
     * Sentinels that authenticate an ACL user of their own: {@code spring.data.redis.sentinel.username} names it.
     * The same username with the default user's password is refused, so the username is what was sent. The
     * user it adds to the group's sentinels leaves their default user as it was, which the other tests use.
     */
    @Test
    void aSentinelAclUserIsNamedBySentinelUsername() {
        for (RedisSentinel s : group.sentinels()) {
            try (RawRedis r = s.connect()) {
                r.call("ACL", "SETUSER", "ops", "on", ">ops-secret", "allcommands");
            }
        }
        runner.withPropertyValues("spring.data.redis.sentinel.master=" + SentinelGroup.MASTER_NAME,
                "spring.data.redis.sentinel.nodes=" + nodes(),
                "spring.data.redis.sentinel.username=ops",
                "spring.data.redis.sentinel.password=ops-secret",
                "spring.data.redis.password=data-secret").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx.getBean(LockClient.class).tryAcquire("sentinel-acl-user", Duration.ofSeconds(5)))
                    .isPresent();
        });
        runner.withPropertyValues("spring.data.redis.sentinel.master=" + SentinelGroup.MASTER_NAME,
                "spring.data.redis.sentinel.nodes=" + nodes(),
                "spring.data.redis.sentinel.username=ops",
                "spring.data.redis.sentinel.password=sentinel-secret",
                "spring.data.redis.password=data-secret").run(ctx -> assertThat(ctx).hasFailed());
    }

    @Test
    void aWrongSentinelPasswordStopsStartupWithoutShowingIt() {
        runner.withPropertyValues("spring.data.redis.sentinel.master=" + SentinelGroup.MASTER_NAME,
                "spring.data.redis.sentinel.nodes=" + nodes(),
                "spring.data.redis.sentinel.password=wrong-secret",
                "spring.data.redis.password=data-secret").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure()).hasStackTraceContaining("CONNECT redis-sentinel://***@");
            assertThat(stackTrace(ctx.getStartupFailure())).doesNotContain("wrong-secret", "data-secret");
        });
    }

    private static String stackTrace(Throwable t) {
        java.io.StringWriter out = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }
}
