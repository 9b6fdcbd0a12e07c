package io.echomq.spring.queue;

import io.echomq.queue.EnqueueOptions;

/**
 * One job of {@link EchoMQTemplate#enqueueAll(String, java.util.List)}: a payload object, encoded
 * with the template's {@link PayloadCodec}, and its options. The object counterpart of the core's
 * {@link io.echomq.queue.JobRequest}.
 *
 * @param payload the value a handler will receive; not null, and writable by the codec
 * @param options how to enqueue it; not null
 */
public record PayloadJobRequest(Object payload, EnqueueOptions options) {
    /** @return a request with the default options ({@link EnqueueOptions#defaults()}) */
    public static PayloadJobRequest of(Object payload) {
        return new PayloadJobRequest(payload, EnqueueOptions.defaults());
    }

    /** @return a request with {@code options} (nulls are refused when it is enqueued) */
    public static PayloadJobRequest of(Object payload, EnqueueOptions options) {
        return new PayloadJobRequest(payload, options);
    }
}
