package io.echomq.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;

/**
 * A {@code redis-server} that speaks only TLS: {@code --port 0} (no plain port at all) and
 * {@code --tls-port} on loopback, with the generated certificates. Clients are not asked for a
 * certificate ({@code tls-auth-clients no}). Readiness is checked by a TLS {@code PING} that
 * trusts the given CA; {@link #close()} stops the process. The binary is {@link RedisBinary#resolve()}.
 * The certificates come from a {@link ServerCertificates}, for example the test kit's generated ones:
 *
 * <pre>{@code
 * TestCertificates certs = TestCertificates.generate("test CA");   // echomq-testkit
 * try (TlsRedisServer redis = TlsRedisServer.start(certs)) {
 *     connect(redis.url(), certs.ca());
 * }
 * }</pre>
 */
public final class TlsRedisServer implements AutoCloseable {
    private final Process process;
    private final Path dir;
    private final int port;

    private TlsRedisServer(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
    }

    /**
     * Starts the server with {@code certs} and waits (at most 10 s) for a TLS {@code PING}.
     *
     * @param certs the CA and server certificate to serve
     * @return the running server
     * @throws IllegalStateException if it exits or does not answer in time (with its log)
     * @throws UncheckedIOException if its directory cannot be created or it cannot be run
     */
    public static TlsRedisServer start(ServerCertificates certs) {
        int port = freePort();
        Path dir;
        try {
            dir = Files.createTempDirectory("echomq-tls-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path log = dir.resolve("redis.log");
        List<String> command = List.of(RedisBinary.resolve().toString(), "--port", "0", "--tls-port",
                Integer.toString(port), "--bind", "127.0.0.1", "--dir", dir.toString(), "--daemonize", "no",
                "--save", "", "--appendonly", "no", "--tls-cert-file", certs.serverCert().toString(),
                "--tls-key-file", certs.serverKey().toString(), "--tls-ca-cert-file", certs.ca().toString(),
                "--tls-auth-clients", "no");
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        TlsRedisServer server = new TlsRedisServer(p, dir, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                server.close();
                throw new IllegalStateException("redis-server with TLS exited at start (was " + RedisBinary.resolve()
                        + " built with TLS? Valkey and Redis build it in with make BUILD_TLS=yes, which needs"
                        + " OpenSSL's headers; docs/building-valkey.md shows how): " + tail(log));
            }
            if (server.pingOverTls(certs)) {
                return server;
            }
            try {
                p.waitFor(20, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                server.close();
                throw new IllegalStateException(e);
            }
        }
        server.close();
        throw new IllegalStateException("redis-server with TLS did not answer within 10 s: " + tail(log));
    }

    /** @return the TLS port on 127.0.0.1 */
    public int port() {
        return port;
    }

    /** @return {@code rediss://127.0.0.1:<port>} */
    public String url() {
        return "rediss://127.0.0.1:" + port;
    }

    /**
     * @param certs the certificates whose CA to trust
     * @return whether a TLS connection trusting that CA gets {@code +PONG}
     */
    public boolean pingOverTls(ServerCertificates certs) {
        try (SSLSocket s = (SSLSocket) certs.clientContext().getSocketFactory()
                .createSocket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(2000);
            OutputStream out = s.getOutputStream();
            out.write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] reply = in.readNBytes(7);
            return new String(reply, StandardCharsets.US_ASCII).equals("+PONG\r\n");
        } catch (IOException notYet) {
            return false;
        }
    }

    /** Stops the server (SIGTERM, then SIGKILL after 5 s) and deletes its directory; never throws. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String tail(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
