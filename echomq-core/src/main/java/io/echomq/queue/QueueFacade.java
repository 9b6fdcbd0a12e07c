package io.echomq.queue;

import io.echomq.internal.Checks;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the two facades share: a queue is a span of partitions (one for a {@link Queue}, the mark's
 * count for a {@link ShardedQueue}), and the calls here read or write each partition of the span
 * alike, through the stores that own them ({@code DefaultTimeoutStore}, {@code LayoutStore},
 * {@code FairGroups}, {@code FlowControl}, {@code ResultWaiter}). Each facade says what its span is
 * ({@link #span}) and where a job id lives ({@link #locate}); nothing here asks which kind it is.
 *
 * <p>{@link QueueOperations} is the contract and is sealed to the two facades, both of which
 * extend this class; so every {@code QueueOperations} is one ({@link #of}). The methods' contracts
 * are documented on {@code QueueOperations}.
 */
abstract class QueueFacade {

    QueueFacade() {
    }

    /**
     * @return the facade behind {@code queue}: every implementation of the sealed
     *     {@link QueueOperations} extends this class
     * @throws IllegalArgumentException if queue is null
     */
    static QueueFacade of(QueueOperations queue) {
        return (QueueFacade) Checks.notNull(queue, "queue");
    }

    /** @return the queue's name */
    public abstract String name();

    /** @return the partitions spanned now, index i for partition i; never empty */
    abstract List<Partition> span();

    /**
     * @return where job {@code id} lives, or null when it names a partition beyond the span
     * @throws IllegalArgumentException if the id is invalid (for a sharded queue, not of the form
     *     {@code <partition>-<id>})
     */
    abstract JobHome locate(String id);

    /** @return where a worker of this queue claims from: its partitions, in turn */
    abstract ClaimSource claimSource();

    /**
     * @return where job {@code id} lives
     * @throws IllegalArgumentException if the id is invalid, or names a partition beyond the span
     */
    final JobHome home(String id) {
        JobHome at = locate(id);
        if (at == null) {
            throw new IllegalArgumentException("job id '" + id + "' names a partition beyond the " + span().size()
                    + " of queue " + name());
        }
        Checks.jobId(at.localId());
        return at;
    }

    /** @return the line to every partition spanned now, index i for partition i */
    final List<QueueWire> wires() {
        List<Partition> span = span();
        List<QueueWire> out = new ArrayList<>(span.size());
        for (Partition p : span) {
            out.add(p.wire());
        }
        return out;
    }

    /** @see QueueOperations#enqueue(byte[], EnqueueOptions) */
    public abstract EnqueueResult enqueue(byte[] payload, EnqueueOptions options);

    /** @see QueueOperations#claim(int, Duration) */
    public abstract List<Job> claim(int max, Duration lease);

    /** @see QueueOperations#delete(boolean, java.util.function.LongConsumer) */
    public abstract DeleteResult delete(boolean force, java.util.function.LongConsumer progress);

    /** @see QueueOperations#enqueue(String) */
    public final String enqueue(String text) {
        Checks.notNull(text, "payload");
        return enqueue(text.getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults()).id();
    }

    /** @see QueueOperations#enqueue(byte[]) */
    public final String enqueue(byte[] payload) {
        return enqueue(payload, EnqueueOptions.defaults()).id();
    }

    /** @see QueueOperations#enqueue(String, EnqueueOptions) */
    public final EnqueueResult enqueue(String text, EnqueueOptions options) {
        return enqueue(JobRequest.utf8(text), options);
    }

    /** @see QueueOperations#claim(Duration) */
    public final Optional<Job> claim(Duration lease) {
        List<Job> jobs = claim(1, lease);
        return jobs.isEmpty() ? Optional.empty() : Optional.of(jobs.get(0));
    }

    /** @see QueueOperations#groups() */
    public final FairGroups groups() {
        return new FairGroups(wires());
    }

    /** @see QueueOperations#defaultTimeout() */
    public final Optional<Duration> defaultTimeout() {
        return DefaultTimeoutStore.read(wires());
    }

    /** @see QueueOperations#setDefaultTimeout(Duration) */
    public final void setDefaultTimeout(Duration timeout) {
        DefaultTimeoutStore.write(wires(), timeout);
    }

    /** @see QueueOperations#clearDefaultTimeout() */
    public final boolean clearDefaultTimeout() {
        return DefaultTimeoutStore.clear(wires());
    }

    /** @see QueueOperations#flowControl() */
    public final FlowControl flowControl() {
        return new FlowControl(this::wires);
    }

    /** @see QueueOperations#cancelledRecorded() */
    public final long cancelledRecorded() {
        long n = 0;
        for (QueueWire w : wires()) {
            n += w.<Long>await(w.async().zcard(w.keys().cancelled()).toCompletableFuture(), "ZCARD cancelled");
        }
        return n;
    }

    /** @see QueueOperations#layout() */
    public final QueueLayout layout() {
        return LayoutStore.read(wires());
    }

    /** @see QueueOperations#setLayout(QueueLayout) */
    public final LayoutChange setLayout(QueueLayout layout) {
        return LayoutStore.write(wires(), layout);
    }

    /** @see QueueOperations#awaitResult(String, Duration) */
    public final JobResult awaitResult(String id, Duration timeout) throws InterruptedException {
        Checks.notNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
        }
        Checks.jobId(id);
        return ResultWaiter.await(locate(id), id, timeout);
    }

    /** @see QueueOperations#delete(boolean) */
    public final DeleteResult delete(boolean force) {
        return delete(force, n -> { });
    }
}
