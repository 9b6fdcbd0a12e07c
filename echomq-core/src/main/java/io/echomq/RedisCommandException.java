package io.echomq;

/**
 * A Redis command or script failed: the server answered with an error (for example
 * {@code WRONGTYPE}), the command timed out, or the connection was lost or refused.
 *
 * <p>The message and the accessors name the operation (for example {@code "EVALSHA acquire-2"} or
 * {@code "CONNECT"}) and the resource it was for, so that a log line alone says what broke. When
 * the outcome of a mutating command is unknown (a timeout or a dropped connection), the command
 * may or may not have run on the server; every operation of this library is safe to retry.
 */
public class RedisCommandException extends EchoMQException {
    private static final long serialVersionUID = 1L;

    private final String command;
    private final String resource;

    /**
     * @param command the command or script that failed, never {@code null}
     * @param resource the lock resource, queue or key it was for, or {@code null} if none
     * @param cause the underlying failure
     */
    public RedisCommandException(String command, String resource, Throwable cause) {
        super(describe(command, resource, cause), cause);
        this.command = command;
        this.resource = resource;
    }

    /** @return the command or script that failed, for example {@code "EVALSHA release-3"} */
    public String command() {
        return command;
    }

    /** @return the resource, queue or key the command was for, or {@code null} if none */
    public String resource() {
        return resource;
    }

    private static String describe(String command, String resource, Throwable cause) {
        StringBuilder b = new StringBuilder("Redis ").append(command).append(" failed");
        if (resource != null) {
            b.append(" for '").append(resource).append('\'');
        }
        if (cause != null && cause.getMessage() != null) {
            b.append(": ").append(cause.getMessage());
        }
        return b.toString();
    }
}
