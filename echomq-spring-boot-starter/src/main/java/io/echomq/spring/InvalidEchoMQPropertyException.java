package io.echomq.spring;

/**
 * A configuration property that EchoMQ cannot use: a malformed Redis URL, a negative or too long
 * duration, a bad name. Thrown while the EchoMQ beans are created, so the application does not
 * start; {@link EchoMQFailureAnalyzer} reports it as one line that names the property.
 *
 * <p>The message never holds a password: URLs in it are redacted.
 */
public class InvalidEchoMQPropertyException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String property;
    private final String reason;

    /**
     * @param property the property's name, for example {@code echomq.redis.url}
     * @param reason what is wrong with its value, one line, with no password in it
     */
    public InvalidEchoMQPropertyException(String property, String reason) {
        super(property + ": " + reason);
        this.property = property;
        this.reason = reason;
    }

    /** @return the property's name, for example {@code echomq.redis.url} */
    public String property() {
        return property;
    }

    /** @return what is wrong with its value */
    public String reason() {
        return reason;
    }
}
