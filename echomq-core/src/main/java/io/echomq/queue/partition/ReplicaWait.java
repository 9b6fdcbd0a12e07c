package io.echomq.queue;

import java.time.Duration;
import java.util.List;

/**
 * A client's wait for its enqueues to reach replicas ({@link QueueClient.Builder#waitForReplicas}):
 * after the enqueue scripts of one bulk, a {@code WAIT} on the same connection, which counts the
 * replicas that acknowledged every write that connection sent so far, these jobs included.
 *
 * @param replicas how many must acknowledge, at least 1
 * @param timeout  how long {@code WAIT} may block, shorter than the command timeout
 */
record ReplicaWait(int replicas, Duration timeout) {
    /**
     * Waits for the replicas of what {@code wire}'s connection wrote, the jobs of {@code results} included.
     *
     * @throws EnqueueReplicaException if fewer replicas acknowledged within the timeout
     * @throws io.echomq.RedisCommandException if {@code WAIT} itself fails
     */
    void confirm(QueueWire wire, List<EnqueueResult> results) {
        Long acked = wire.await(wire.async().waitForReplication(replicas, timeout.toMillis()).toCompletableFuture(),
                "WAIT");
        if (acked == null || acked < replicas) {
            throw new EnqueueReplicaException(wire.name(), results, replicas, acked == null ? 0 : acked, timeout);
        }
    }
}
