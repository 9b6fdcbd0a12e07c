package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Deleting a queue: refused while jobs are active unless forced, then every key of it gone, and no other queue's. */
@Timeout(60)
class DeleteQueueTest extends SemanticsTestBase {

    private long keysOf(String queueName) {
        return keys("emq:{" + queueName.replace("*", "\\*") + "}:*").size();
    }

    private List<String> keys(String pattern) {
        List<String> out = new ArrayList<>();
        for (Object o : (List<?>) raw().call("KEYS", pattern)) {
            out.add(o.toString());
        }
        return out;
    }

    private void fill(Queue q) {
        q.enqueue("pending");
        q.enqueue("delayed".getBytes(), EnqueueOptions.defaults().withDelay(Duration.ofMinutes(5)));
        q.enqueue("keyed".getBytes(), EnqueueOptions.defaults().withIdempotencyKey("k1", Duration.ofHours(1))
                .withPriority(3));
        q.enqueue("dead".getBytes(), EnqueueOptions.defaults().withMaxAttempts(1).withPriority(9));
        q.claim(Duration.ofSeconds(30)).orElseThrow().fail("x");
        q.enqueue("done".getBytes(), EnqueueOptions.defaults().withPriority(8));
        q.claim(Duration.ofSeconds(30)).orElseThrow().complete();
        q.setRetention(QueueRetention.defaults());
    }

    @Test
    void anIdleQueueIsDeletedWithEveryKeyAndNoOtherQueuesKey() {
        fill(queue);
        Queue neighbour = client.queue("q*");                 // a glob character: matched as itself only
        fill(neighbour);
        long before = keysOf("q*");
        assertThat(keysOf("q")).isGreaterThan(8);
        List<Long> progress = new ArrayList<>();
        DeleteResult r = neighbour.delete(false, progress::add);
        assertThat(r.deleted()).isTrue();
        assertThat(r.keys()).isEqualTo(before);
        assertThat(keys("emq:{q\\*}:*")).isEmpty();
        assertThat(keysOf("q")).as("the queue q is untouched").isGreaterThan(8);
        assertThat(progress).isNotEmpty();
        assertThat(queue.delete(false).deleted()).isTrue();
        assertThat(keys("emq:{q}:*")).isEmpty();
        assertThat(dbSize()).isZero();
    }

    @Test
    void activeJobsRefuseADeleteUnlessForced() {
        fill(queue);
        queue.enqueue("held");
        Job held = queue.claim(Duration.ofSeconds(30)).orElseThrow();
        var before = snapshot();
        DeleteResult refused = queue.delete(false);
        assertThat(refused.deleted()).isFalse();
        assertThat(refused.activeJobs()).isEqualTo(1);
        assertThat(snapshot()).as("a refused delete changes nothing").isEqualTo(before);

        DeleteResult forced = queue.delete(true);
        assertThat(forced.deleted()).isTrue();
        assertThat(forced.activeJobs()).isEqualTo(1);
        assertThat(keys("emq:{q}:*")).isEmpty();
        assertThat(held.complete()).as("the holder's complete is refused").isEqualTo(SettleOutcome.LEASE_LOST);
        assertThat(queue.stats().drained()).isTrue();
        assertThat(queue.enqueue("a new life")).as("the name can be used again").isEqualTo("1");
    }

    @Test
    void aShardedQueueDeletesEveryPartitionAndItsMark() {
        ShardedQueue sq = client.shardedQueue("orders", 3);
        for (int i = 0; i < 12; i++) {
            sq.enqueue("o" + i);
        }
        Job held = sq.claim(Duration.ofSeconds(30)).orElseThrow();
        assertThat(sq.delete(false).deleted()).isFalse();
        assertThat(held.complete()).isEqualTo(SettleOutcome.COMPLETED);
        DeleteResult r = sq.delete(false);
        assertThat(r.deleted()).isTrue();
        for (int p = 0; p < 3; p++) {
            assertThat(keysOf("orders#" + p)).isZero();
        }
        assertThat(exists("emq:{orders}:partitions")).isFalse();
    }
}
