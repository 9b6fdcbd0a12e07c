package io.echomq.queue;

/**
 * The answer to one enqueue.
 *
 * @param id      the job's id
 * @param created false when an idempotency key inside its window already named this id, so
 *                nothing was added
 */
public record EnqueueResult(String id, boolean created) {
}
