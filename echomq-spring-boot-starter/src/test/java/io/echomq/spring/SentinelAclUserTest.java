package io.echomq.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.lock.LockClient;
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
 * {@code spring.data.redis.sentinel.username}: the starter on sentinels that authenticate an ACL user of their own,
 * on a group of its own, since the test adds that user to every sentinel.
 */
@Tag("sentinel")
class SentinelAclUserTest {
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

    /**
     * Sentinels that authenticate an ACL user of their own: {@code spring.data.redis.sentinel.username} names it.
     * The same username with the default user's password is refused, so the username is what was sent.
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
}
