package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A sharded queue is one queue: a client that does not know the partition count finds it in the
 * queue's mark. {@link QueueClient#open} opens the queue as stored, and {@link QueueClient#queue}
 * refuses a sharded name instead of opening an empty plain queue that hides its jobs;
 * {@link QueueClient#worker(String, JobHandler)} works it as stored.
 */
@Timeout(60)
class StoredPartitionsTest extends QueueTestBase {

    private String get(String key) {
        Object v = raw().call("GET", key);
        return v == null ? null : v instanceof byte[] b ? new String(b) : v.toString();
    }

    private boolean exists(String key) {
        return (Long) raw().call("EXISTS", key) == 1L;
    }

    @Test
    void openFindsTheStoredCountAndSeesEveryJob() {
        ShardedQueue producer = client.shardedQueue("emails", 4);
        for (int i = 0; i < 8; i++) {
            producer.enqueue("job-" + i);
        }

        QueueClient other = client(b -> { });
        assertThat(other.storedPartitions("emails")).isEqualTo(4);
        QueueOperations found = other.open("emails");
        assertThat(found).isInstanceOf(ShardedQueue.class);
        assertThat(((ShardedQueue) found).partitions()).isEqualTo(4);
        assertThat(((ShardedQueue) found).declaredPartitions()).isEqualTo(4);
        assertThat(found.stats().pending()).isEqualTo(8);
        assertThat(get("emq:{emails}:partitions")).as("open declares nothing new").isEqualTo("4");
    }

    @Test
    void queueRefusesAShardedNameAndNamesTheCount() {
        client.shardedQueue("emails", 3).enqueue("hidden from a plain queue");

        QueueClient other = client(b -> { });
        assertThatThrownBy(() -> other.queue("emails")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sharded into 3 partitions").hasMessageContaining("open(\"emails\")");
        // A worker by name works the queue as stored: it finds the job in its partition.
        try (Worker w = other.worker("emails", job -> { }).start()) {
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> other.open("emails").stats().completed() == 1);
        }
    }

    @Test
    void aPlainQueueStaysPlain() {
        client.queue("plain").enqueue("x");

        QueueClient other = client(b -> { });
        assertThat(other.storedPartitions("plain")).isZero();
        QueueOperations found = other.open("plain");
        assertThat(found).isInstanceOf(Queue.class);
        assertThat(found.stats().pending()).isEqualTo(1);
        assertThat(other.queue("plain")).isSameAs(found);
        assertThat(exists("emq:{plain}:partitions")).isFalse();
    }
}
