package io.echomq.queue;

/**
 * A sharded queue's pause, resume and cancel, over its partitions.
 *
 * <ol>
 *   <li>Pauses or resumes each partition of the mark, one {@code pause-4} call each, in order
 *       ({@link #pause}); there is no one atomic step over partitions, so claims stop partition by
 *       partition within the call.</li>
 *   <li>Reads the flag of each partition: paused when any partition is ({@link #isPaused}).</li>
 *   <li>Cancels a job on the partition its id names ({@link #cancel}).</li>
 * </ol>
 */
final class ShardControl {
    private final PartitionSpan span;
    private final ShardRouting routing;

    ShardControl(PartitionSpan span, ShardRouting routing) {
        this.span = span;
        this.routing = routing;
    }

    /** @return whether any partition changed */
    boolean pause(boolean paused) {
        boolean changed = false;
        for (Partition p : span.queues()) {
            changed |= paused ? p.pause() : p.resume();
        }
        return changed;
    }

    boolean isPaused() {
        for (Partition p : span.queues()) {
            if (p.isPaused()) {
                return true;
            }
        }
        return false;
    }

    /** @throws IllegalArgumentException if the id is not {@code <partition>-<id>} or its local part is invalid */
    CancelOutcome cancel(String id) {
        JobHome at = routing.locate(id);
        return at == null ? CancelOutcome.NOT_FOUND : at.partition().cancel(at.localId());
    }
}
