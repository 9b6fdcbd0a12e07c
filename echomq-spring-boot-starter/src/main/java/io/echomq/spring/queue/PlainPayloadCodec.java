package io.echomq.spring.queue;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;

/**
 * The codec without JSON: {@code byte[]} as is and {@code String} as UTF-8, nothing else. The
 * default when Jackson 3 is not on the class path.
 */
public class PlainPayloadCodec implements PayloadCodec {

    /** Creates the codec. */
    public PlainPayloadCodec() {
    }

    @Override
    public byte[] encode(Object payload) {
        if (payload instanceof byte[] bytes) {
            return bytes;
        }
        if (payload instanceof String text) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
        throw new IllegalArgumentException("cannot encode a " + (payload == null ? "null" : payload.getClass().getName())
                + " payload without a JSON mapper: pass byte[] or String, or add Jackson 3 (tools.jackson.core:jackson-databind)");
    }

    @Override
    public Object decode(byte[] payload, Type type) {
        if (type == byte[].class) {
            return payload;
        }
        if (type == String.class) {
            return new String(payload, StandardCharsets.UTF_8);
        }
        throw new IllegalArgumentException("cannot decode a payload as " + type.getTypeName()
                + " without a JSON mapper: take byte[] or String, or add Jackson 3 (tools.jackson.core:jackson-databind)");
    }

    @Override
    public boolean canDecode(Type type) {
        return type == byte[].class || type == String.class;
    }
}
