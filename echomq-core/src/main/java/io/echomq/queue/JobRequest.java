package io.echomq.queue;

import java.nio.charset.StandardCharsets;

/**
 * One job of a bulk {@link Queue#enqueueAll}: its payload and its options.
 *
 * @param payload the bytes a handler will receive; not null, at most the client's payload limit
 * @param options how to enqueue it; not null
 */
public record JobRequest(byte[] payload, EnqueueOptions options) {
    /** @return a request with the default options */
    public static JobRequest of(byte[] payload) {
        return new JobRequest(payload, EnqueueOptions.defaults());
    }

    /** @return a request whose payload is {@code text} in UTF-8, with the default options */
    public static JobRequest of(String text) {
        return new JobRequest(text.getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults());
    }
}
