package io.echomq.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.queue.QueueClient;
import java.time.Duration;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@link EchoMQTest}: ready clients on the JVM's test server, and every test on an empty server. The tests run in
 * order: the second finds nothing of what the first left.
 */
@EchoMQTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EchoMQExtensionTest {

    @Test
    @Order(1)
    void givesClientsConnectedToTheTestServer(QueueClient queues, LockClient locks, TestRedis redis) throws Exception {
        assertThat(redis).isSameAs(TestRedis.shared());
        assertThat(redis.embedded()).isTrue();
        queues.queue("left-behind").enqueue("one");
        assertThat(queues.queue("left-behind").stats().pending()).isEqualTo(1);
        try (Lease lease = locks.acquire("left-behind", Duration.ofMinutes(1), Duration.ofSeconds(1))) {
            assertThat(locks.inspect("left-behind").isHeld()).isTrue();
        }
    }

    @Test
    @Order(2)
    void eachTestStartsOnAnEmptyServer(QueueClient queues) {
        assertThat(queues.queue("left-behind").stats().pending()).isZero();
    }

    @Test
    @Order(3)
    void theClientsAreTheClasssOwn(QueueClient first, QueueClient second) {
        assertThat(first).isSameAs(second);
    }
}
