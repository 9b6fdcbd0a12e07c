package io.echomq.spring;

import io.echomq.RedisUrl;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The one way a property's value reaches an EchoMQ builder: the builder's own check runs, and its
 * {@link IllegalArgumentException} becomes an {@link InvalidEchoMQPropertyException} that names the
 * property. So every rule stays in the core, stated once, and every message names what to fix.
 */
final class PropertyChecks {
    private PropertyChecks() {
    }

    /**
     * Gives {@code value} to {@code setter}.
     *
     * @throws InvalidEchoMQPropertyException naming {@code property} if the setter refuses the value
     */
    static <T> void apply(String property, T value, Consumer<T> setter) {
        if (value == null) {
            throw new InvalidEchoMQPropertyException(property, "must be set");
        }
        try {
            setter.accept(value);
        } catch (IllegalArgumentException e) {
            throw new InvalidEchoMQPropertyException(property, RedisUrl.redactAll(String.valueOf(e.getMessage())));
        }
    }

    /**
     * @return {@code value} when it is zero or positive
     * @throws InvalidEchoMQPropertyException naming {@code property} if null or negative
     */
    static Duration notNegative(String property, Duration value) {
        if (value == null || value.isNegative()) {
            throw new InvalidEchoMQPropertyException(property, "must be zero or more, was " + value);
        }
        return value;
    }

    /**
     * @return {@code value} when it is within {@code min..max}, as the worker's builder requires
     * @throws InvalidEchoMQPropertyException naming {@code property} otherwise
     */
    static Duration between(String property, Duration value, Duration min, Duration max) {
        if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new InvalidEchoMQPropertyException(property,
                    "must be " + min.toMillis() + " ms to " + max.toHours() + " hour, was " + value);
        }
        return value;
    }

    /**
     * @return {@code value} when it is -1 (no limit) or more
     * @throws InvalidEchoMQPropertyException naming {@code property} otherwise
     */
    static long limit(String property, long value) {
        if (value < -1) {
            throw new InvalidEchoMQPropertyException(property, "must be -1 (no limit) or more, was " + value);
        }
        return value;
    }
}
