package io.echomq.queue;

/**
 * What {@link QueueOperations#setLayout} did.
 *
 * @param layout  the layout the queue has now (every partition, for a sharded queue)
 * @param changed whether the call changed it: false when the queue already had it (for a sharded
 *                queue: when every partition did)
 * @param moved   how many pending jobs the call moved from the wait LIST into the pending ZSET
 *                (a switch to {@link QueueLayout#ZSET}; always 0 for {@link QueueLayout#LIST}),
 *                summed over the partitions of a sharded queue
 */
public record LayoutChange(QueueLayout layout, boolean changed, long moved) {
}
