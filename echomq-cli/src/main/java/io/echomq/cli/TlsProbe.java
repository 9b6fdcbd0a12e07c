package io.echomq.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import java.security.NoSuchAlgorithmException;

/**
 * Finds out quickly whether a {@code rediss://} server speaks TLS at all, before the client
 * connects.
 *
 * <p>Why: a plaintext Redis never answers a TLS hello (it waits for the end of an inline
 * command), so the client would wait its whole connect timeout, 10 s by default, and then say
 * only that the connection timed out. This probe opens one socket, sends the hello and waits at
 * most {@link #ANSWER_MS}; silence, or an answer that is not TLS, means a plaintext server. Any TLS
 * answer, even a certificate the JVM does not trust, passes: the client then connects and reports
 * its own error. Nothing but the hello is sent, and no data is read past it.
 */
final class TlsProbe {
    /** Longest wait for the TCP connection. */
    static final int CONNECT_MS = 1_000;
    /** Longest wait for the server's answer to the TLS hello. */
    static final int ANSWER_MS = 1_500;

    private TlsProbe() {
    }

    /**
     * @param url a {@code rediss://} URL; any other URL is left alone
     * @throws ConnectErrors.Explained if the server answers the TLS hello with silence or with
     *     something that is not TLS
     */
    static void check(String url) {
        String trimmed = url.trim();
        if (!trimmed.regionMatches(true, 0, "rediss://", 0, "rediss://".length())) {
            return;
        }
        URI uri;
        try {
            uri = URI.create(trimmed);
        } catch (IllegalArgumentException e) {
            return;   // the builder reports a malformed URL
        }
        if (uri.getHost() == null) {
            return;
        }
        String host = uri.getHost().replaceAll("^\\[|\\]$", "");
        int port = uri.getPort() == -1 ? 6379 : uri.getPort();
        try (Socket plain = new Socket()) {
            plain.connect(new InetSocketAddress(host, port), CONNECT_MS);
            plain.setSoTimeout(ANSWER_MS);
            SSLContext context = SSLContext.getDefault();
            try (SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(plain, host, port, false)) {
                tls.startHandshake();
            }
        } catch (SocketTimeoutException | SSLHandshakeException e) {
            if (e instanceof SocketTimeoutException || isNotTls(e)) {
                throw notTls(host, port, e);
            }
            // a TLS server whose certificate we may not trust: the client reports that
        } catch (SSLException e) {
            if (isNotTls(e)) {
                throw notTls(host, port, e);
            }
        } catch (IOException | NoSuchAlgorithmException e) {
            // refused, unreachable and the like: the client's own error says it
        }
    }

    private static boolean isNotTls(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = String.valueOf(t.getMessage());
            if (t instanceof SocketTimeoutException || m.contains("Unsupported or unrecognized SSL message")
                    || m.contains("plaintext connection")) {
                return true;
            }
        }
        return false;
    }

    private static ConnectErrors.Explained notTls(String host, int port, Throwable cause) {
        return new ConnectErrors.Explained("the server at " + host + ":" + port + " did not answer TLS; "
                + "is it a plaintext server? use redis://", cause);
    }
}
