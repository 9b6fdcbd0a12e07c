package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.server.RawRedis;
import io.echomq.testkit.SentinelGroup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The lock and queue commands take a redis-sentinel:// URL with {@code --redis}, on a real master, replica and three
 * sentinels: they run on the master the sentinels name, and print nothing on stderr.
 */
@Tag("sentinel")
class SentinelUrlCliTest {
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

    @Test
    void lockAndQueueCommandsRunThroughTheSentinels() {
        EmqRun acquired = EmqRun.at(group.url(), "lock", "acquire", "orders", "--ttl", "30000");
        assertThat(acquired.code()).as(acquired.err()).isZero();
        assertThat(acquired.err()).isEmpty();
        String token = acquired.out().replaceAll("(?s).*token=(\\S+).*", "$1");
        try (RawRedis master = group.connect(group.master())) {
            assertThat(master.call("GET", "emq:lock:{orders}:lock")).isEqualTo(token);
        }
        assertThat(EmqRun.at(group.url(), "lock", "release", "orders", token).out().trim()).isEqualTo("RELEASED");
        EmqRun enqueued = EmqRun.at(group.url(), "queue", "enqueue", "emails", "hello");
        assertThat(enqueued.code()).as(enqueued.err()).isZero();
        assertThat(EmqRun.at(group.url(), "queue", "stats", "emails").out()).startsWith("pending=1 ");
    }
}
