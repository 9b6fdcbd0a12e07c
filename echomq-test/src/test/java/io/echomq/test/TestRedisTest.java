package io.echomq.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.QueueClient;
import io.echomq.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A URL names an external server, which the test support then uses and empties instead of the embedded one. */
class TestRedisTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void aConfiguredUrlIsUsedAsItIsAndEmptiedBetweenTests() {
        TestRedis external = TestRedis.choose(" " + REDIS.url() + " ");
        assertThat(external.embedded()).isFalse();
        assertThat(external.url()).isEqualTo(REDIS.url());
        try (QueueClient client = QueueClient.builder().redisUrl(external.url()).build()) {
            client.queue("orders").enqueue("{}");
            external.flushAll();
            assertThat(client.queue("orders").stats().pending()).isZero();
        }
    }
}
