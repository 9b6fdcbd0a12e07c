package io.echomq.queue;

import io.echomq.MonotonicClock;
import io.echomq.internal.ChannelSignals;
import io.echomq.internal.RedisEngine;

/**
 * What the queue's parts take from the client that built them: the engine, the clock, the wake
 * and cancel channels, the client's limits and its instrumentation. {@link QueueClient} builds one
 * at construction and hands it (or the one service a part needs) to every queue, partition,
 * worker and schedule it opens, so that no part reaches back up into the client for a service.
 *
 * <p>Immutable and shared by every thread of the client.
 *
 * @param engine          the client's connections and scripts
 * @param clock           every time reading of the queue's parts (claim timing, leases, beats)
 * @param wakeSignals     the subscriptions to the queues' wake and cancel channels
 * @param instrumentation the client's guarded instrumentation, or {@link QueueInstrumentation#NONE}
 * @param maxPayloadBytes the largest payload or progress value accepted, in bytes
 * @param retainCompletedMs how long a completed job's hash is kept, in ms
 * @param missedFiresAfterMs how far before the server's now a schedule's fire time is missed, in ms
 * @param replicaWait     the wait for replicas after each enqueue, or null for none
 */
record QueueContext(RedisEngine engine, MonotonicClock clock, ChannelSignals wakeSignals,
        QueueInstrumentation instrumentation, int maxPayloadBytes, long retainCompletedMs,
        long missedFiresAfterMs, ReplicaWait replicaWait) {

    /** @return what the queue named {@code queue} (a sharded queue's name, for a partition) reports */
    QueueObservations observations(String queue) {
        return new QueueObservations(instrumentation, clock, queue);
    }
}
