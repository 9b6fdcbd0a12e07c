package io.echomq.lock;

import io.echomq.internal.Checks;
import java.time.Duration;

/**
 * How to acquire: fenced or plain, with or without a watchdog. Immutable; each {@code with…}
 * method returns a new value.
 *
 * <ul>
 *   <li><b>fenced</b> (the default) runs one script: {@code SET <lock> <token> NX PX <ttl>} and,
 *       only when it succeeds, the next fence (max(last + 1, the server's clock in microseconds),
 *       in a fence key that expires). The lease has a
 *       {@linkplain Lease#fence() fence}.</li>
 *   <li><b>plain</b> sends exactly one {@code SET <lock> <token> NX PX <ttl>}. The lease has no
 *       fence.</li>
 *   <li><b>watchdog</b> renews the lease at about ttl/3 until it is released or lost. Off by
 *       default: a lease should expire when its holder stops.</li>
 *   <li><b>wait for replicas</b> ({@link #waitForReplicas}, off by default) sends
 *       {@code WAIT <replicas> <timeout>} after a grant. If fewer replicas acknowledge the grant
 *       in time, the lock is released (compare-and-delete) and the acquire throws
 *       {@link ReplicaAckException}. It narrows the lock loss of an asynchronous failover; see
 *       {@code docs/locks.md} for what it does not close.</li>
 * </ul>
 */
public final class AcquireOptions {
    /** The longest {@link #waitForReplicas} timeout: one minute. */
    public static final Duration MAX_REPLICA_WAIT = Duration.ofMinutes(1);

    private static final AcquireOptions DEFAULTS = new AcquireOptions(true, false);

    private final boolean fenced;
    private final boolean watchdog;
    private final int replicas;
    private final Duration replicaWait;

    private AcquireOptions(boolean fenced, boolean watchdog) {
        this(fenced, watchdog, 0, Duration.ZERO);
    }

    private AcquireOptions(boolean fenced, boolean watchdog, int replicas, Duration replicaWait) {
        this.fenced = fenced;
        this.watchdog = watchdog;
        this.replicas = replicas;
        this.replicaWait = replicaWait;
    }

    /** @return fenced, no watchdog */
    public static AcquireOptions defaults() {
        return DEFAULTS;
    }

    /** @return a copy that acquires with the plain {@code SET NX PX}, without a fence */
    public AcquireOptions plain() {
        return new AcquireOptions(false, watchdog, replicas, replicaWait);
    }

    /** @return a copy that acquires with the fenced script (the default) */
    public AcquireOptions fenced() {
        return new AcquireOptions(true, watchdog, replicas, replicaWait);
    }

    /** @return a copy whose leases are renewed by the client's watchdog at about ttl/3 */
    public AcquireOptions withWatchdog() {
        return new AcquireOptions(fenced, true, replicas, replicaWait);
    }

    /**
     * A copy that, after each grant, sends {@code WAIT <replicas> <timeout ms>} on the same
     * connection: the grant counts only once at least {@code replicas} replicas have acknowledged
     * it. When fewer do within {@code timeout}, the client releases the lock by compare-and-delete
     * and the acquire throws {@link ReplicaAckException} (a typed failure, not an empty result:
     * the lock was free, so "held" would be a lie). A waiting {@link LockClient#acquire} does not
     * retry then; the caller decides.
     *
     * <p>Costs: one more round trip per grant, and up to {@code timeout} when replicas lag.
     * Redis answers one connection's commands in order, so while {@code WAIT} blocks, the other
     * commands of this {@link LockClient} (shared connection) wait behind it: keep the timeout
     * short. It must be shorter than the client's command timeout. It is not supported on a
     * {@code redis-cluster://} URL yet, nor by {@link RedlockClient} (whose grant rests on a quorum
     * of independent masters, not on replication): the acquire then throws
     * {@link UnsupportedOperationException}, naming the option, before anything is sent.
     *
     * @param replicas how many replicas must acknowledge, at least 1
     * @param timeout  how long to wait for them, 1 ms to {@link #MAX_REPLICA_WAIT}
     * @return the copy
     * @throws IllegalArgumentException if {@code replicas} is under 1, or {@code timeout} is
     *     null, under 1 ms or over {@link #MAX_REPLICA_WAIT}
     */
    public AcquireOptions waitForReplicas(int replicas, Duration timeout) {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be at least 1: " + replicas);
        }
        Checks.ttlMillis(timeout, MAX_REPLICA_WAIT, "timeout");
        return new AcquireOptions(fenced, watchdog, replicas, timeout);
    }

    /** @return how many replicas must acknowledge a grant; 0 when the option is off (the default) */
    public int replicasToWait() {
        return replicas;
    }

    /** @return how long a grant waits for its replicas; {@link Duration#ZERO} when the option is off */
    public Duration replicaWait() {
        return replicaWait;
    }

    /** @return whether the fenced script is used */
    public boolean isFenced() {
        return fenced;
    }

    /** @return whether leases are renewed by the watchdog */
    public boolean hasWatchdog() {
        return watchdog;
    }

    @Override
    public String toString() {
        return "AcquireOptions[" + (fenced ? "fenced" : "plain") + (watchdog ? ", watchdog" : "")
                + (replicas > 0 ? ", wait for " + replicas + " replica(s) up to " + replicaWait.toMillis() + " ms" : "")
                + "]";
    }
}
