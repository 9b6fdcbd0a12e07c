package io.echomq.spring.queue;

import java.lang.reflect.Type;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;

/**
 * JSON payloads through the application's Jackson 3 mapper (the {@code JsonMapper} bean Spring
 * Boot configures, so its modules and settings apply); {@code byte[]} and {@code String} still
 * pass through unchanged, as with {@link PlainPayloadCodec}, so a handler taking a String sees the
 * JSON text.
 */
public class JacksonPayloadCodec implements PayloadCodec {
    private final PlainPayloadCodec plain = new PlainPayloadCodec();
    private final ObjectMapper mapper;

    /** @param mapper the mapper; not null */
    public JacksonPayloadCodec(ObjectMapper mapper) {
        if (mapper == null) {
            throw new IllegalArgumentException("mapper must not be null");
        }
        this.mapper = mapper;
    }

    @Override
    public byte[] encode(Object payload) {
        if (payload instanceof byte[] || payload instanceof String) {
            return plain.encode(payload);
        }
        if (payload == null) {
            throw new IllegalArgumentException("payload must not be null");
        }
        try {
            return mapper.writeValueAsBytes(payload);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("cannot write a " + payload.getClass().getName() + " as JSON: "
                    + e.getOriginalMessage(), e);
        }
    }

    @Override
    public Object decode(byte[] payload, Type type) {
        if (plain.canDecode(type)) {
            return plain.decode(payload, type);
        }
        try {
            return mapper.readValue(payload, mapper.constructType(type));
        } catch (JacksonException e) {
            throw new IllegalArgumentException("payload does not decode as " + type.getTypeName() + ": "
                    + e.getOriginalMessage(), e);
        }
    }

    @Override
    public boolean canDecode(Type type) {
        return true;
    }
}
