package io.echomq.lock;

import io.echomq.EchoMQException;
import io.echomq.RedisCommandException;
import java.time.Duration;

/**
 * An acquire with {@link AcquireOptions#waitForReplicas} was granted on the primary, but fewer
 * replicas than asked acknowledged the grant within the timeout. The client has already released
 * the lock by compare-and-delete, so nothing is held and nothing needs releasing. (Should that
 * release itself fail, the grant expires by its ttl.)
 *
 * <p>Retrying is safe; whether it helps depends on why the replicas lag.
 */
public final class ReplicaAckException extends EchoMQException {
    private static final long serialVersionUID = 1L;

    private final String resource;
    private final int required;
    private final long acknowledged;
    private final Duration timeout;

    /**
     * @param resource     the resource whose grant was given back
     * @param required     replicas asked for
     * @param acknowledged replicas that acknowledged within the timeout
     * @param timeout      how long the client waited
     */
    public ReplicaAckException(String resource, int required, long acknowledged, Duration timeout) {
        super("Lock '" + resource + "' was granted but only " + acknowledged + " of " + required
                + " replica(s) acknowledged it within " + timeout.toMillis() + " ms; the grant was released");
        this.resource = resource;
        this.required = required;
        this.acknowledged = acknowledged;
        this.timeout = timeout;
    }

    /** @return the resource whose grant was given back */
    public String resource() {
        return resource;
    }

    /** @return how many replicas had to acknowledge */
    public int required() {
        return required;
    }

    /** @return how many did, per {@code WAIT}'s reply */
    public long acknowledged() {
        return acknowledged;
    }

    /** @return how long the client waited for them */
    public Duration timeout() {
        return timeout;
    }

    /** @return the {@link ReplicaAckException} that {@code e} wraps, else {@code e} itself */
    static RuntimeException unwrap(RedisCommandException e) {
        return e.getCause() instanceof ReplicaAckException r ? r : e;
    }
}
