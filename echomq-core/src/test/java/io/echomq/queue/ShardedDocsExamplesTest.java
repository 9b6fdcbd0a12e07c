package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The snippet of docs/scaling.md "Sharded queues", verbatim apart from lines marked "test:", so
 * that the page cannot drift from an API that compiles and behaves as it says.
 */
class ShardedDocsExamplesTest extends QueueTestBase {
    private final List<String> shipped = new CopyOnWriteArrayList<>();

    @Test
    void shardedQueues() {
        byte[] payload = "{\"sku\":8}".getBytes(StandardCharsets.UTF_8);
        // --- docs/scaling.md "Sharded queues" ---
        ShardedQueue orders = client.shardedQueue("orders", 6);            // declares 6 partitions
        String id = orders.enqueue("{\"sku\":7}");                          // round-robin; an id like "4-17"
        orders.enqueue("customer-42", payload, EnqueueOptions.defaults());  // by key: FIFO per customer

        try (Worker worker = client.worker(orders, job -> ship(job.payloadUtf8()))
                .concurrency(16)
                .start()) {
            // ... claims from all 6 partitions
            await().atMost(Duration.ofSeconds(10)).until(() -> orders.stats().completed() == 2); // test:
        }
        QueueStats total = orders.stats();                  // sums over the partitions
        List<QueueStats> each = orders.partitionStats();    // one per partition
        // --- end ---
        assertThat(id).matches("[0-5]-1");
        assertThat(shipped).containsExactlyInAnyOrder("{\"sku\":7}", "{\"sku\":8}");
        assertThat(total.completed()).isEqualTo(2);
        assertThat(each).hasSize(6);
        assertThat(each.get(ShardedQueue.partitionOf("customer-42", 6)).completed()).isPositive();
    }

    private void ship(String order) {
        shipped.add(order);
    }
}
