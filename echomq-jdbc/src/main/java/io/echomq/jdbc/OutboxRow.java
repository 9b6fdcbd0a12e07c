package io.echomq.jdbc;

import io.echomq.queue.EnqueueOptions;
import java.time.Duration;
import java.time.Instant;

/**
 * One committed outbox row as the relay read it: the job to enqueue, and its idempotency key.
 *
 * <p>Duties: turn the stored option columns back into {@link EnqueueOptions}, with the row's own idempotency key
 * and the relay's window. Why here: {@link OutboxSql} names the same columns for the writer, and this is the one reader.
 *
 * @param id the row's id, the relay's order and the DELETE's key
 * @param key the idempotency key, {@code outbox:<uuid>}
 * @param createdMillis when {@link Outbox#add} wrote it, epoch ms on the writer's clock
 */
record OutboxRow(long id, String key, String queue, byte[] payload, int priority, long delayMs, long runAtMs,
                 int maxAttempts, long backoffMs, long backoffCapMs, long timeoutMs, String group,
                 long createdMillis) {

    /**
     * @param window how long the queue remembers the key
     * @return the options the job was added with, plus the idempotency key
     * @throws IllegalArgumentException if a stored value is out of the range {@link EnqueueOptions} accepts (a row
     *     written by hand, not by {@link Outbox#add})
     */
    EnqueueOptions options(Duration window) {
        EnqueueOptions o = EnqueueOptions.defaults().withPriority(priority);
        if (runAtMs != 0) {
            o = o.withRunAt(Instant.ofEpochMilli(runAtMs));
        } else if (delayMs != 0) {
            o = o.withDelay(Duration.ofMillis(delayMs));
        }
        if (maxAttempts != 0) {
            o = o.withMaxAttempts(maxAttempts);
        }
        if (backoffMs != 0) {
            o = o.withBackoff(Duration.ofMillis(backoffMs), Duration.ofMillis(backoffCapMs));
        }
        if (timeoutMs != 0) {
            o = o.withTimeout(Duration.ofMillis(timeoutMs));
        }
        if (group != null) {
            o = o.withGroup(group);
        }
        return o.withIdempotencyKey(key, window);
    }
}
