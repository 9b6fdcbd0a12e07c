package io.echomq.cli;

import io.echomq.server.RedisServer;
import java.io.UncheckedIOException;

/**
 * Starts echomq-server's real {@code redis-server} for {@code emq server} and {@code emq demo},
 * turning a failed start into a {@link StartException} with a one-line reason.
 */
final class EmbeddedServer {
    private EmbeddedServer() {
    }

    /**
     * Starts a server on {@code 127.0.0.1}.
     *
     * @param port the port, or {@code 0} for a free one
     * @return the running server; close it to stop it
     * @throws IllegalArgumentException if the port is outside 0..65535
     * @throws StartException if the server did not start, for example because the port is in use
     */
    static RedisServer start(int port) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("Invalid value for option '--port': " + port + " is outside 0..65535");
        }
        try {
            return RedisServer.builder().port(port).start();
        } catch (IllegalStateException | UncheckedIOException e) {
            throw new StartException(port, e);
        }
    }

    /** The embedded {@code redis-server} did not start; the message says why in one line. */
    static final class StartException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StartException(int port, Exception cause) {
            super(reason(port, cause), cause);
        }

        private static String reason(int port, Exception cause) {
            String text = String.valueOf(cause.getMessage());
            String where = port == 0 ? "a free port" : "port " + port;
            if (text.contains("already in use") || text.contains("could not bind")) {
                return "cannot start redis-server on " + where + ": the port is already in use"
                        + (port == 0 ? "" : " (is another Redis running? try --port 0 for a free port)");
            }
            return "cannot start redis-server on " + where + ": " + text.lines().findFirst().orElse(text);
        }
    }
}
