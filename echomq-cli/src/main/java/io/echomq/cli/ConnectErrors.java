package io.echomq.cli;

import io.echomq.RedisCommandException;
import io.echomq.RedisUrl;
import java.net.URI;
import java.util.Locale;

/**
 * Says why a connection failed, in the user's words, from the exception the client's builder
 * threw (Lettuce's message is at the root of its causes).
 *
 * <p>Duties: tell apart the failures a user can fix at once (no server on that port, a password
 * the server wants, a wrong password or user) and name the fix; keep every other failure as it
 * was. The URL shown is always redacted, so a password is never printed.
 */
final class ConnectErrors {

    private ConnectErrors() {
    }

    /**
     * A connection failure explained: the CLI prints its message as it is, with exit code 3.
     */
    static final class Explained extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Explained(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * @param url the URL the client was built with (it may hold a password; only its redacted
     *     form is shown)
     * @param failure what the client's builder threw
     * @return an {@link Explained} naming the cause and the fix, or {@code failure} itself when
     *     the cause is none of those this class knows
     */
    static RuntimeException explain(String url, RedisCommandException failure) {
        String causes = causes(failure).toUpperCase(Locale.ROOT);
        String where = hostPort(url);
        if (causes.contains("WRONGPASS") || causes.contains("INVALID PASSWORD")) {
            return new Explained("wrong password or user for " + RedisUrl.redact(url), failure);
        }
        if (causes.contains("NOAUTH") || causes.contains("AUTHENTICATION REQUIRED")) {
            return new Explained("the server at " + where + " needs a password: redis://:PASSWORD@" + where
                    + " (or redis://USER:PASSWORD@" + where + " for an ACL user)", failure);
        }
        if (causes.contains("CONNECTION REFUSED")) {
            return new Explained("cannot connect to " + where + ": connection refused; is a server running? "
                    + "`./emq server` starts one", failure);
        }
        return failure;
    }

    /**
     * @return whether the failure says only that the connection closed during its handshake, with
     *     no reply of the server's to tell why: Lettuce's "Connection closed prematurely", or its
     *     "RedisHandshakeHandler not registered" when the close came before its handshake started
     */
    static boolean closedInHandshake(RedisCommandException failure) {
        String causes = causes(failure).toUpperCase(Locale.ROOT);
        return (causes.contains("CONNECTION CLOSED PREMATURELY") || causes.contains("REDISHANDSHAKEHANDLER NOT REGISTERED"))
                && !causes.contains("WRONGPASS") && !causes.contains("NOAUTH");
    }

    /** @return {@code host:port} of a redis:// or rediss:// URL (port 6379 when not given), else the redacted URL */
    static String hostPort(String url) {
        try {
            URI uri = URI.create(url.trim());
            if (uri.getHost() == null) {
                return RedisUrl.redact(url);
            }
            return uri.getHost() + ":" + (uri.getPort() == -1 ? 6379 : uri.getPort());
        } catch (IllegalArgumentException e) {
            return RedisUrl.redact(url);
        }
    }

    private static String causes(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }
}
