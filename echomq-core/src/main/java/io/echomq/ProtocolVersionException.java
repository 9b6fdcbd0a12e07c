package io.echomq;

/**
 * A script refused data written by a later version of the EchoMQ wire protocol: a client that
 * speaks an older protocol than the data needs must not grant, claim or settle it, since it would
 * do so by rules the data no longer follows. Nothing was changed on the server.
 *
 * <p>The cure is to upgrade this client (docs/protocol.md, "Versions", says which protocol each
 * release speaks and in which order to upgrade). Retrying does not help while the data stays.
 */
public class ProtocolVersionException extends RedisCommandException {
    private static final long serialVersionUID = 1L;

    /** The error code a script answers with when it refuses a later protocol's data. */
    public static final String CODE = "EMQPROTOCOL";

    /**
     * @param command the command or script that was refused, never {@code null}
     * @param resource the lock resource or queue it was for, or {@code null} if none
     * @param cause the server's error reply, whose message starts with {@link #CODE}
     */
    public ProtocolVersionException(String command, String resource, Throwable cause) {
        super(command, resource, cause);
    }

    /**
     * @param cause a failure, possibly {@code null}
     * @return whether {@code cause} is a script's refusal of a later protocol's data: its message
     *     starts with {@link #CODE}
     */
    public static boolean isRefusal(Throwable cause) {
        return cause != null && cause.getMessage() != null && cause.getMessage().startsWith(CODE + " ");
    }
}
