package io.echomq.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.JobInfo;
import io.echomq.queue.NonRetryableException;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.SettleOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link QueueDrain}: the handler runs inline on every runnable job, and a handler's failure fails the test. */
@EchoMQTest
class QueueDrainTest {

    @Test
    void runsEveryPendingJobInClaimOrderOnTheCallingThreadAndCompletesIt(QueueClient queues) {
        Queue emails = queues.queue("emails");
        emails.enqueue("a");
        emails.enqueue("b");
        List<String> threads = new ArrayList<>();
        List<DrainedJob> ran = QueueDrain.drain(emails, job -> threads.add(Thread.currentThread().getName()));
        assertThat(ran).extracting(DrainedJob::payload).containsExactly("a", "b");
        assertThat(ran).extracting(DrainedJob::outcome).containsOnly(SettleOutcome.COMPLETED);
        assertThat(ran).extracting(DrainedJob::attempt).containsOnly(1L);
        assertThat(threads).containsOnly(Thread.currentThread().getName());
        assertThat(emails.stats().pending()).isZero();
        assertThat(emails.stats().active()).isZero();
        assertThat(QueueDrain.drain(emails, job -> { })).isEmpty();
    }

    @Test
    void runsDueDelayedJobsAndJobsTheHandlerEnqueuesButLeavesFutureOnes(QueueClient queues) {
        Queue q = queues.queue("chain");
        long dueAt = System.currentTimeMillis() + 20;
        q.enqueue("due", EnqueueOptions.defaults().withDelay(Duration.ofMillis(20)));
        q.enqueue("later", EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));
        while (System.currentTimeMillis() <= dueAt) {   // the server runs on this machine's clock
            Thread.onSpinWait();
        }
        List<DrainedJob> ran = QueueDrain.drain(q, job -> {
            if (job.payloadUtf8().equals("due")) {
                q.enqueue("follow-up");
            }
        });
        assertThat(ran).extracting(DrainedJob::payload).containsExactly("due", "follow-up");
        assertThat(q.stats().delayed()).isEqualTo(1);
    }

    @Test
    void aHandlerThatThrowsFailsItsJobAndTheDrainLoudly(QueueClient queues) {
        Queue q = queues.queue("failing");
        String id = q.enqueue("boom", EnqueueOptions.defaults().withMaxAttempts(3)).id();
        q.enqueue("never reached");
        IllegalStateException thrown = new IllegalStateException("card declined");
        assertThatThrownBy(() -> QueueDrain.drain(q, job -> {
            throw thrown;
        })).isInstanceOf(AssertionError.class).hasCause(thrown)
                .hasMessageContaining("job " + id).hasMessageContaining("RETRYING").hasMessageContaining("card declined");
        assertThat(q.inspect(id)).map(JobInfo::lastError).get().asString().contains("card declined");
        assertThat(q.stats().pending()).isEqualTo(1);
    }

    @Test
    void aNonRetryableFailureSendsTheJobToDead(QueueClient queues) {
        Queue q = queues.queue("poison");
        q.enqueue("bad");
        assertThatThrownBy(() -> QueueDrain.drain(q, job -> {
            throw new NonRetryableException("unreadable");
        })).isInstanceOf(AssertionError.class).hasMessageContaining("DEAD");
        assertThat(q.stats().dead()).isEqualTo(1);
    }

    @Test
    void aJobTheHandlerSettlesItselfKeepsItsOwnOutcome(QueueClient queues) {
        Queue q = queues.queue("self-settling");
        q.enqueue("x");
        List<DrainedJob> ran = QueueDrain.drain(q, job -> job.failWithoutRetry("refused"));
        assertThat(ran).extracting(DrainedJob::outcome).containsExactly(SettleOutcome.DEAD);
        assertThat(q.stats().dead()).isEqualTo(1);
    }
}
