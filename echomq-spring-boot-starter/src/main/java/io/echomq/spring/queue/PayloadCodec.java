package io.echomq.spring.queue;

import java.lang.reflect.Type;

/**
 * How job payloads are written by {@link EchoMQTemplate} and read for {@link EchoJobHandler}
 * methods, one codec for both so producer and handler agree. {@code byte[]} passes through
 * unchanged and {@code String} is UTF-8 with every codec; other types need a JSON codec
 * ({@link JacksonPayloadCodec}, the default when Jackson 3 is on the class path). An application
 * may define its own bean of this type.
 */
public interface PayloadCodec {
    /**
     * @param payload the value to enqueue, not null
     * @return its bytes
     * @throws IllegalArgumentException if this codec cannot write the value's type, or writing fails
     */
    byte[] encode(Object payload);

    /**
     * @param payload a job's bytes
     * @param type the handler parameter's type
     * @return the value
     * @throws IllegalArgumentException if this codec cannot read that type or the bytes do not decode
     *     (the handler's job then goes to dead: decoding again would fail again)
     */
    Object decode(byte[] payload, Type type);

    /**
     * @param type a handler parameter's type
     * @return whether {@link #decode} can produce it; checked at startup, so a handler taking a type
     *     no codec reads fails then rather than at its first job
     */
    boolean canDecode(Type type);
}
