package io.echomq.test;

import io.echomq.queue.JobInfo;
import io.echomq.queue.JobPage;
import io.echomq.queue.JobState;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueOperations;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Assertions on what a queue holds to run: its enqueued jobs, the pending ones in claim order and then the delayed
 * ones in due order (jobs running, done or dead are not enqueued). Each assertion reads the queue afresh and throws
 * an {@link AssertionError} that lists the payloads it found.
 *
 * <pre>{@code
 * assertThatQueue(queues.queue("emails")).hasEnqueued(1).hasEnqueuedPayload(p -> p.contains("ada@example.com"));
 * }</pre>
 */
public final class QueueAssert {
    private final QueueOperations queue;

    private QueueAssert(QueueOperations queue) {
        this.queue = queue;
    }

    /**
     * Starts the assertions on {@code queue}.
     *
     * @param queue the queue, plain or sharded
     * @return its assertions
     * @throws IllegalArgumentException if queue is null
     */
    public static QueueAssert assertThatQueue(QueueOperations queue) {
        if (queue == null) {
            throw new IllegalArgumentException("queue must not be null");
        }
        return new QueueAssert(queue);
    }

    /**
     * Reads the payloads of the queue's enqueued jobs, for any assertion library.
     *
     * @param queue the queue
     * @return the payloads decoded as UTF-8: pending in claim order, then delayed in due order
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public static List<String> enqueuedPayloads(QueueOperations queue) {
        List<String> out = new ArrayList<>();
        for (JobState state : List.of(JobState.PENDING, JobState.DELAYED)) {
            String cursor = null;
            do {
                JobPage page = queue.list(state, Queue.MAX_BATCH, cursor);
                page.jobs().forEach(j -> queue.inspect(j.id()).map(JobInfo::payloadUtf8).ifPresent(out::add));
                cursor = page.next().orElse(null);
            } while (cursor != null);
        }
        return out;
    }

    /**
     * Asserts that exactly {@code count} jobs are enqueued.
     *
     * @param count the number expected
     * @return this, to chain
     * @throws AssertionError if another number is
     */
    public QueueAssert hasEnqueued(int count) {
        List<String> payloads = enqueuedPayloads(queue);
        if (payloads.size() != count) {
            throw new AssertionError("expected " + count + " job(s) enqueued on '" + queue.name() + "', found "
                    + payloads.size() + ": " + payloads);
        }
        return this;
    }

    /**
     * Asserts that no job is enqueued.
     *
     * @return this, to chain
     * @throws AssertionError if a job is
     */
    public QueueAssert isEmpty() {
        return hasEnqueued(0);
    }

    /**
     * Asserts that at least one enqueued job's payload matches.
     *
     * @param expected what the payload, decoded as UTF-8, must satisfy
     * @return this, to chain
     * @throws AssertionError if none does
     * @throws IllegalArgumentException if expected is null
     */
    public QueueAssert hasEnqueuedPayload(Predicate<String> expected) {
        if (expected == null) {
            throw new IllegalArgumentException("expected must not be null");
        }
        List<String> payloads = enqueuedPayloads(queue);
        Optional<String> match = payloads.stream().filter(expected).findFirst();
        if (match.isEmpty()) {
            throw new AssertionError("no job enqueued on '" + queue.name() + "' has a matching payload; found: "
                    + payloads);
        }
        return this;
    }

    /**
     * Asserts that the enqueued jobs' payloads are exactly these, in this order (pending in claim order, then
     * delayed in due order).
     *
     * @param expected the payloads, as UTF-8 text
     * @return this, to chain
     * @throws AssertionError if they differ
     */
    public QueueAssert hasEnqueuedPayloads(String... expected) {
        List<String> payloads = enqueuedPayloads(queue);
        if (!payloads.equals(List.of(expected))) {
            throw new AssertionError("expected the payloads " + List.of(expected) + " enqueued on '" + queue.name()
                    + "', found: " + payloads);
        }
        return this;
    }
}
