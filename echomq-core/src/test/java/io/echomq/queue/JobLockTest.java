package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A job's lock subkey read back: held with its attempt and lease left while a worker holds the job, else not held. */
class JobLockTest extends QueueTestBase {
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void heldWithTheAttemptAndTheLeaseLeftWhileClaimedThenNot() {
        String id = queue.enqueue("a", EnqueueOptions.defaults().withMaxAttempts(3)).id();
        assertThat(JobLock.read(queue, id)).isEqualTo(new JobLock(false, -1, -2));
        queue.claim(LEASE).orElseThrow().fail("boom");
        raw().call("ZADD", "emq:{q}:due", "0", id);   // due now
        queue.promote(10);
        Job job = queue.claim(LEASE).orElseThrow();

        JobLock lock = JobLock.read(queue, id);
        assertThat(lock.held()).isTrue();
        assertThat(lock.attempt()).isEqualTo(2);
        assertThat(lock.ttlMillis()).isBetween(1L, LEASE.toMillis());

        job.complete();
        assertThat(JobLock.read(queue, id).held()).isFalse();
    }

    @Test
    void aForeignValueIsHeldWithNoAttempt() {
        raw().call("SET", "emq:{q}:job:9:lock", "x");
        assertThat(JobLock.read(queue, "9")).isEqualTo(new JobLock(true, -1, -1));
    }

    @Test
    void aShardedJobIsReadInItsPartitionAndABadIdIsRefused() {
        ShardedQueue orders = client.shardedQueue("orders", 2);
        String id = orders.enqueue("k", "o".getBytes(), EnqueueOptions.defaults()).id();
        orders.claim(LEASE).orElseThrow();
        assertThat(JobLock.read(orders, id).attempt()).isEqualTo(1);
        assertThatThrownBy(() -> JobLock.read(orders, "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JobLock.read(queue, "1:lock")).isInstanceOf(IllegalArgumentException.class);
    }
}
