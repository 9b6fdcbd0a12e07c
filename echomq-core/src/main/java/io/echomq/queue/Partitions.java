package io.echomq.queue;

import io.echomq.internal.Checks;
import java.util.ArrayList;
import java.util.List;

/**
 * The plain queues a {@link QueueOperations} stands for: a plain queue itself, or every partition of
 * a sharded queue. The one place that tells the two kinds apart, for the stores and readers that
 * {@code QueueOperations}' default methods and the tools hand a queue to, so that each of them works
 * on the partitions' {@link QueueWire}s and asks no facade which kind it was given.
 *
 * <ol>
 *   <li>The lines to every plain queue a queue spans ({@link #wires}), in partition order.</li>
 *   <li>Whether a queue is sharded, so its ids carry {@code <partition>-} ({@link #sharded}).</li>
 *   <li>Where one job lives: the line to its plain queue and its id there ({@link #home}).</li>
 * </ol>
 *
 * <p>Each throws {@link UnsupportedOperationException} for an implementation of {@code QueueOperations}
 * other than the library's two, which keeps no keys this package knows.
 */
final class Partitions {
    /** Where a job lives: the line to its (partition) queue, and its id there. */
    record Home(QueueWire wire, String localId) {
    }

    private Partitions() {
    }

    /**
     * @param refusal the start of the message for a queue of neither kind, followed by its class name
     * @return the line to a plain queue, or to each partition of a sharded queue, index i for partition i
     * @throws UnsupportedOperationException if {@code q} is neither kind
     */
    static List<QueueWire> wires(QueueOperations q, String refusal) {
        if (q instanceof Queue plain) {
            return List.of(plain.wire());
        }
        if (q instanceof ShardedQueue sharded) {
            List<Queue> span = sharded.partitionQueues();
            List<QueueWire> out = new ArrayList<>(span.size());
            for (Queue p : span) {
                out.add(p.wire());
            }
            return out;
        }
        throw new UnsupportedOperationException(refusal + (q == null ? "null" : q.getClass().getName()));
    }

    /** @return whether {@code q} is a sharded queue, whose job ids name their partition */
    static boolean sharded(QueueOperations q) {
        return q instanceof ShardedQueue;
    }

    /**
     * @return the line to the plain queue that holds job {@code id} (for a sharded queue, its
     *     partition) and the job's id there
     * @throws IllegalArgumentException if the id is invalid, or for a sharded queue not of the form
     *     {@code <partition>-<id>} or of a partition beyond its span
     * @throws UnsupportedOperationException if the queue is neither a {@link Queue} nor a {@link ShardedQueue}
     */
    static Home home(QueueOperations queue, String id) {
        List<QueueWire> span = wires(queue, "a job's keys are read through a Queue or a ShardedQueue, not ");
        if (sharded(queue)) {
            int partition = partitionOf(id);
            if (partition >= span.size()) {
                throw new IllegalArgumentException("job id '" + id + "' names partition " + partition + ", beyond the "
                        + span.size() + " of queue " + queue.name());
            }
            return new Home(span.get(partition), Checks.jobId(id.substring(id.indexOf('-') + 1)));
        }
        return new Home(span.get(0), Checks.jobId(id));
    }

    /**
     * @return the partition a sharded queue's job id {@code <partition>-<id>} names
     * @throws IllegalArgumentException if the id is not of that form
     */
    static int partitionOf(String id) {
        int dash = id.indexOf('-');
        if (dash < 1 || dash > 4 || !id.substring(0, dash).chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException("job id '" + id + "' is not of the form <partition>-<id>, "
                    + "as the ids of a sharded queue are");
        }
        return Integer.parseInt(id.substring(0, dash));
    }
}
