package io.echomq.server;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A tiny blocking RESP2 client over a plain {@link Socket}, for test assertions that must not depend on the
 * client library under test. Calls on one instance are serialized; it is meant for a single test thread.
 *
 * <p>Arguments are sent as UTF-8 bulk strings; replies are decoded as documented on {@link #call(String...)}.
 * Connect and read timeouts are 10 seconds.
 */
public final class RawRedis implements AutoCloseable {

    static final int TIMEOUT_MILLIS = 10_000;

    private final String host;
    private final int port;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final ClusterRouter router;   // null unless this connection routes over a cluster

    private RawRedis(String host, int port, int connectTimeoutMillis) throws IOException {
        this.host = host;
        this.port = port;
        this.router = null;
        this.socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            socket.connect(new InetSocketAddress(host, port), connectTimeoutMillis);
            this.in = new BufferedInputStream(socket.getInputStream());
            this.out = socket.getOutputStream();
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    private RawRedis(ClusterRouter router) {
        this.host = null;
        this.port = 0;
        this.router = router;
        this.socket = null;
        this.in = null;
        this.out = null;
    }

    /** A connection that routes every command over a cluster; see {@link RedisCluster#raw()}. */
    static RawRedis routing(ClusterRouter router) {
        return new RawRedis(router);
    }

    /**
     * Opens a connection.
     *
     * @param host host name or address, for example {@code 127.0.0.1}
     * @param port TCP port
     * @return a connected client; close it when done
     * @throws UncheckedIOException if the connection cannot be established within 10 seconds
     */
    public static RawRedis connect(String host, int port) {
        try {
            return new RawRedis(host, port, TIMEOUT_MILLIS);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot connect to " + host + ":" + port, e);
        }
    }

    /**
     * Sends one command and reads its reply.
     *
     * @param args the command name and its arguments, for example {@code call("SET", "k", "v")}
     * @return {@link String} for simple and bulk strings, {@link Long} for integers, {@code List<Object>} for
     *         arrays (an error nested in an array is returned as an {@link ErrorReply} element, not thrown), and
     *         {@code null} for nil bulk strings and nil arrays. On a connection from {@link RedisCluster#raw()}
     *         the command goes to the master owning its key's slot (following {@code MOVED} and {@code ASK}), and
     *         {@code FLUSHALL}, {@code FLUSHDB}, {@code DBSIZE} (summed), {@code KEYS} (concatenated),
     *         {@code SCRIPT FLUSH}, {@code CONFIG SET|RESETSTAT} and {@code PUBSUB NUMSUB|SHARDNUMSUB} (counts
     *         summed) go to every master
     * @throws ErrorReply if the server replies with an error
     * @throws UncheckedIOException on I/O failure, timeout, or if the server closes the connection
     * @throws IllegalArgumentException if {@code args} is empty
     */
    public synchronized Object call(String... args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("no command");
        }
        if (router != null) {
            return router.call(args);
        }
        try {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            buf.write(('*' + Integer.toString(args.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                buf.write(('$' + Integer.toString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                buf.write(bytes);
                buf.write('\r');
                buf.write('\n');
            }
            buf.writeTo(out);
            out.flush();
            Object reply = read();
            if (reply instanceof ErrorReply) {
                throw new ErrorReply(((ErrorReply) reply).getMessage());
            }
            return reply;
        } catch (IOException e) {
            throw new UncheckedIOException("I/O error talking to " + host + ":" + port, e);
        }
    }

    /**
     * Opens a dedicated connection to the same server, sends {@code MONITOR}, and records every command the server
     * executes from then on (on a background daemon thread) until the returned tap is closed. When this method
     * returns, the server has acknowledged {@code MONITOR}, so every later command is captured; capture is
     * asynchronous, so use {@link CommandTap#awaitCommand} to wait for a command to appear.
     *
     * @return the running tap; close it when done
     * @throws UncheckedIOException if the connection cannot be opened
     * @throws ErrorReply if the server rejects {@code MONITOR}
     * @throws UnsupportedOperationException on a connection from {@link RedisCluster#raw()}: MONITOR sees one node
     *         only, so a test that needs it must be tagged to run on a single server
     */
    public CommandTap monitor() {
        if (router != null) {
            throw new UnsupportedOperationException("MONITOR sees one node of a cluster: tag this test "
                    + "@Tag(\"standalone-only\") (see docs/scaling.md)");
        }
        RawRedis connection = connect(host, port);
        try {
            Object ok = connection.call("MONITOR");
            if (!"OK".equals(ok)) {
                throw new IllegalStateException("Unexpected MONITOR reply: " + ok);
            }
            connection.socket.setSoTimeout(0); // an idle monitor is normal
        } catch (IOException | RuntimeException e) {
            connection.close();
            if (e instanceof RuntimeException) {
                throw (RuntimeException) e;
            }
            throw new UncheckedIOException((IOException) e);
        }
        return new CommandTap(connection);
    }

    /** Reads one line of the MONITOR stream, without its leading type byte; used by {@link CommandTap}. */
    String readMonitorLine() throws IOException {
        Object reply = read();
        if (!(reply instanceof String)) {
            throw new IOException("Unexpected MONITOR output: " + reply);
        }
        return (String) reply;
    }

    /** Closes the connection. Idempotent; never throws. */
    @Override
    public void close() {
        if (router != null) {
            router.close();
            return;
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing useful to do
        }
    }

    private Object read() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("Connection closed by server");
        }
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                return new ErrorReply(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(length + 2);
                if (data.length != length + 2) {
                    throw new EOFException("Connection closed inside a bulk string");
                }
                return new String(data, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read());
                }
                return items;
            }
            default:
                throw new IOException("Unexpected RESP type byte '" + (char) type + "' followed by: " + line);
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\r') {
            if (b < 0) {
                throw new EOFException("Connection closed inside a reply");
            }
            line.write(b);
        }
        if (in.read() != '\n') {
            throw new IOException("Malformed reply: CR not followed by LF");
        }
        return line.toString(StandardCharsets.UTF_8);
    }

    /** An error reply from the server, such as {@code ERR unknown command}; the message is the error text. */
    public static final class ErrorReply extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /**
         * Creates an error reply.
         *
         * @param error the error text without the leading {@code -}, for example {@code "ERR syntax error"}
         */
        public ErrorReply(String error) {
            super(error);
        }
    }
}
