package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SmokeTest extends QueueTestBase {
    @Test
    void enqueueClaimComplete() {
        String id = queue.enqueue("hello");
        Job job = queue.claim(Duration.ofSeconds(5)).orElseThrow();
        assertThat(job.id()).isEqualTo(id);
        assertThat(job.payloadUtf8()).isEqualTo("hello");
        assertThat(job.attempt()).isEqualTo(1);
        assertThat(job.complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThat(queue.stats().completed()).isEqualTo(1);
    }

    @Test
    void workerRuns() throws Exception {
        CountDownLatch done = new CountDownLatch(3);
        try (Worker w = client.worker("q", j -> done.countDown()).concurrency(2).start()) {
            queue.enqueue("a");
            queue.enqueue("b");
            queue.enqueue("c");
            assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
        }
    }
}
