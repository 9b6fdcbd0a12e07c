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

    /**
     * @return a request whose payload is {@code text} in UTF-8, with the default options
     * @throws IllegalArgumentException if text is null
     */
    public static JobRequest of(String text) {
        return new JobRequest(utf8(text), EnqueueOptions.defaults());
    }

    /**
     * @return a request whose payload is {@code text} in UTF-8, with {@code options}
     * @throws IllegalArgumentException if text is null (null options are refused when it is enqueued)
     */
    public static JobRequest of(String text, EnqueueOptions options) {
        return new JobRequest(utf8(text), options);
    }

    /** @return {@code text} as UTF-8 bytes; a null text is bad input, refused before Redis is touched */
    static byte[] utf8(String text) {
        if (text == null) {
            throw new IllegalArgumentException("payload must not be null");
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
