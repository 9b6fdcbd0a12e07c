package io.echomq.queue;

/**
 * The answer to {@link QueueOperations#delete(boolean, java.util.function.LongConsumer)}.
 *
 * @param deleted    true when the queue is gone; false when it was refused because jobs were
 *                   active and force was not given (then nothing was changed)
 * @param activeJobs how many jobs were active when the delete looked (summed over partitions)
 * @param keys       how many keys were deleted, the queue's own sets and counters included
 */
public record DeleteResult(boolean deleted, long activeJobs, long keys) {
}
