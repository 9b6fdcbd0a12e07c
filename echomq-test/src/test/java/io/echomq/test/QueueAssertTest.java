package io.echomq.test;

import static io.echomq.test.QueueAssert.assertThatQueue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link QueueAssert}: what a queue holds to run, pending then delayed, and failures that show what was found. */
@EchoMQTest
class QueueAssertTest {

    @Test
    void countsAndListsThePendingThenTheDelayedJobs(QueueClient queues) {
        Queue q = queues.queue("emails");
        q.enqueue("later", EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));
        q.enqueue("{\"to\":\"ada@example.com\"}");
        q.enqueue("{\"to\":\"bob@example.com\"}");
        assertThatQueue(q).hasEnqueued(3)
                .hasEnqueuedPayload(p -> p.contains("bob@example.com"))
                .hasEnqueuedPayloads("{\"to\":\"ada@example.com\"}", "{\"to\":\"bob@example.com\"}", "later");
        assertThat(QueueAssert.enqueuedPayloads(q)).hasSize(3);
    }

    @Test
    void aJobThatRanIsNoLongerEnqueued(QueueClient queues) {
        Queue q = queues.queue("emails");
        q.enqueue("x");
        QueueDrain.drain(q, job -> { });
        assertThatQueue(q).isEmpty();
    }

    @Test
    void failuresNameTheQueueAndWhatWasFound(QueueClient queues) {
        Queue q = queues.queue("emails");
        q.enqueue("only this");
        assertThatThrownBy(() -> assertThatQueue(q).hasEnqueued(2)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("expected 2 job(s) enqueued on 'emails', found 1: [only this]");
        assertThatThrownBy(() -> assertThatQueue(q).isEmpty()).isInstanceOf(AssertionError.class);
        assertThatThrownBy(() -> assertThatQueue(q).hasEnqueuedPayload(p -> p.contains("other")))
                .isInstanceOf(AssertionError.class).hasMessageContaining("[only this]");
        assertThatThrownBy(() -> assertThatQueue(q).hasEnqueuedPayloads("other"))
                .isInstanceOf(AssertionError.class).hasMessageContaining("[only this]");
    }
}
