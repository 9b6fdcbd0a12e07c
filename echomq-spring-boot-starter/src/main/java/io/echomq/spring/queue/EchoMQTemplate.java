package io.echomq.spring.queue;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.EnqueueResult;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Enqueues jobs with the same {@link PayloadCodec} that {@link EchoJobHandler} methods decode
 * with, so a producer's object reaches its handler as the same type:
 *
 * <pre>{@code
 * template.enqueue("emails", new Email("ada@example.com", "Welcome"));   // JSON, with Jackson
 *
 * @EchoJobHandler(queue = "emails")
 * void send(Email email) { ... }
 * }</pre>
 *
 * A queue is opened as it is stored ({@link QueueClient#open(String)}), plain or sharded, at the first
 * enqueue to its name (one round trip), and kept for the template's life.
 *
 * <p>Thread-safe; a bean of the starter.
 */
public class EchoMQTemplate {
    private final QueueClient client;
    private final PayloadCodec codec;
    private final ConcurrentHashMap<String, QueueOperations> opened = new ConcurrentHashMap<>();

    /**
     * @param client the queue client
     * @param codec the payload codec
     */
    public EchoMQTemplate(QueueClient client, PayloadCodec codec) {
        this.client = client;
        this.codec = codec;
    }

    /**
     * Enqueues with the default options.
     *
     * @return the new job's id
     * @throws IllegalArgumentException if the queue name is invalid, the payload cannot be encoded
     *     or is too large
     * @throws IllegalStateException if the queue's partition mark holds something other than a count
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public String enqueue(String queue, Object payload) {
        return open(queue).enqueue(codec.encode(payload));
    }

    /**
     * Enqueues with options: delay, priority, attempts, backoff, idempotency key.
     *
     * @return the job's id, and whether it was created (false when an idempotency key matched an earlier job)
     * @throws IllegalArgumentException if the queue name or options are invalid, the payload cannot
     *     be encoded or is too large
     * @throws IllegalStateException if the queue's partition mark holds something other than a count
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public EnqueueResult enqueue(String queue, Object payload, EnqueueOptions options) {
        return open(queue).enqueue(codec.encode(payload), options);
    }

    private QueueOperations open(String queue) {
        QueueOperations q = opened.get(queue);
        return q != null ? q : opened.computeIfAbsent(queue, client::open);
    }

    /** @return the codec this template encodes with */
    public PayloadCodec codec() {
        return codec;
    }
}
