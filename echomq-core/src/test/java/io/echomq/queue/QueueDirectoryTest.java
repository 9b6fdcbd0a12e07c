package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Finding the stored queues by SCAN: plain and sharded ones, each once, and nothing that only looks like one. */
class QueueDirectoryTest extends QueueTestBase {

    @Test
    void namesEveryStoredQueueOnceWithShardedQueuesFolded() {
        queue.enqueue("a");
        client.queue("only-delayed").enqueue("x".getBytes(), EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));
        client.shardedQueue("orders", 3).enqueue("o");
        // An idempotency key whose text looks like a queue's key does not name a queue.
        queue.enqueue("k".getBytes(), EnqueueOptions.defaults().withIdempotencyKey("x}:seq", Duration.ofMinutes(1)));
        raw().call("SET", "emq:{stray#2}:seq", "1");        // a partition of no sharded queue
        raw().call("SET", "emq:{a b}:seq", "1");            // a name no client can make

        assertThat(QueueDirectory.of(client).names()).containsExactly("only-delayed", "orders", "q");
    }

    @Test
    void existsIsTrueForAStoredQueueAndFalseAfterItsDeletion() {
        QueueDirectory dir = QueueDirectory.of(client);
        assertThat(dir.exists("q")).isFalse();
        queue.enqueue("a");
        client.shardedQueue("orders", 2);
        assertThat(dir.exists("q")).isTrue();
        assertThat(dir.exists("orders")).isTrue();
        queue.delete(true);
        assertThat(dir.exists("q")).isFalse();
        assertThat(dir.names()).containsExactly("orders");
        assertThatThrownBy(() -> dir.exists("bad{name")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aQueueWithOnlyASettingExists() {
        QueueDirectory dir = QueueDirectory.of(client);
        client.queue("limited").flowControl().setRateLimit(new RateLimit(5, Duration.ofSeconds(1)));
        client.queue("capped").flowControl().setConcurrencyCap(2);
        client.queue("timed").setDefaultTimeout(Duration.ofSeconds(30));
        client.queue("zset").setLayout(QueueLayout.ZSET);
        assertThat(dir.exists("limited")).isTrue();
        assertThat(dir.exists("capped")).isTrue();
        assertThat(dir.exists("timed")).isTrue();
        assertThat(dir.exists("zset")).isTrue();
        assertThat(dir.exists("other")).isFalse();
    }
}
