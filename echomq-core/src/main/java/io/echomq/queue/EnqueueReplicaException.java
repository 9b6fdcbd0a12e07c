package io.echomq.queue;

import io.echomq.EchoMQException;
import java.time.Duration;
import java.util.List;

/**
 * An enqueue by a client built with {@link QueueClient.Builder#waitForReplicas} was written on
 * the primary, but fewer replicas than asked acknowledged it within the timeout. The jobs exist
 * and will run; what is not known is whether they survive a failover that promotes a replica
 * before the primary's writes reach it (docs/scaling.md, "What a failover can lose").
 *
 * <p>Enqueue again with the same idempotency keys to be told the jobs exist
 * ({@link EnqueueResult#created()} false) and to wait for the replicas once more: a job enqueued
 * with a key is never created twice within its window. {@link #results()} holds each job's id.
 */
public final class EnqueueReplicaException extends EchoMQException {
    private static final long serialVersionUID = 1L;

    private final String queue;
    private final transient List<EnqueueResult> results;
    private final int required;
    private final long acknowledged;
    private final Duration timeout;

    /**
     * @param queue        the queue (or partition) the jobs were enqueued to
     * @param results      one result per job, in the order given
     * @param required     replicas asked for
     * @param acknowledged replicas that acknowledged within the timeout, per {@code WAIT}'s reply
     * @param timeout      how long the client waited
     */
    public EnqueueReplicaException(String queue, List<EnqueueResult> results, int required, long acknowledged,
                                   Duration timeout) {
        super(results.size() + " job(s) enqueued on '" + queue + "' but only " + acknowledged + " of " + required
                + " replica(s) acknowledged them within " + timeout.toMillis() + " ms; the jobs exist on the primary,"
                + " and a failover before they replicate could lose them");
        this.queue = queue;
        this.results = List.copyOf(results);
        this.required = required;
        this.acknowledged = acknowledged;
        this.timeout = timeout;
    }

    /** @return the queue (or, for a sharded queue, the partition) the jobs were enqueued to */
    public String queue() {
        return queue;
    }

    /** @return one result per job, in the order given: the jobs exist on the primary */
    public List<EnqueueResult> results() {
        return results == null ? List.of() : results;
    }

    /** @return how many replicas had to acknowledge */
    public int required() {
        return required;
    }

    /** @return how many did */
    public long acknowledged() {
        return acknowledged;
    }

    /** @return how long the client waited for them */
    public Duration timeout() {
        return timeout;
    }
}
