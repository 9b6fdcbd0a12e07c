package io.echomq.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One Redis Sentinel process on {@code 127.0.0.1}, for tests: the same {@code redis-server} binary as
 * {@link RedisServer} ({@link RedisBinary#resolve()}), started as {@code redis-server <conf> --sentinel}, watching
 * one master. Sentinel rewrites its configuration file as it learns the replicas, the other sentinels and every
 * failover, so the file lives in a fresh temporary directory of its own, with its log; {@link #close()} stops the
 * process and deletes the directory, and a JVM shutdown hook does so if the test does not. Where {@code setpriv}
 * offers {@code --pdeathsig}, the kernel kills it when this JVM dies without running its hooks (see
 * {@link RedisServer}).
 */
public final class RedisSentinel implements AutoCloseable {
    private static final String HOST = ServerProcess.HOST;
    private static final int PORT_ATTEMPTS = 5;

    private final int port;
    private final Path dir;
    private final Process process;
    private final Thread shutdownHook;
    private boolean closed;

    private RedisSentinel(int port, Path dir, Process process) {
        this.port = port;
        this.dir = dir;
        this.process = process;
        this.shutdownHook = new Thread(() -> {
            process.destroyForcibly();
            ServerProcess.deleteRecursively(dir);
        }, "echomq-sentinel-shutdown-" + port);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts a sentinel on a free port that monitors {@code master} under {@code masterName}.
     *
     * @param masterName the name clients ask the sentinel for ({@code SENTINEL GET-MASTER-ADDR-BY-NAME})
     * @param master the server to monitor, on {@code 127.0.0.1}
     * @param quorum how many sentinels must agree that the master is down before a failover, at least 1
     * @param downAfter how long the master may go unanswered before this sentinel thinks it down (at least 1 ms)
     * @param failoverTimeout the sentinel's {@code failover-timeout}: how long a failover may take, and how long
     *     before the same master may fail over again
     * @return a running sentinel that answers {@code PING}
     * @throws IllegalArgumentException if {@code quorum} is under 1, or a duration is under 1 ms
     * @throws NullPointerException if an argument is {@code null}
     * @throws IllegalStateException if the binary cannot be resolved, or the sentinel does not start and answer
     *     within 10 seconds (the message includes the tail of its log), or no free port could be bound
     * @throws UncheckedIOException if the temporary directory or its files cannot be written
     */
    public static RedisSentinel start(String masterName, RedisServer master, int quorum, Duration downAfter,
                                      Duration failoverTimeout) {
        Objects.requireNonNull(masterName, "masterName");
        Objects.requireNonNull(master, "master");
        if (quorum < 1) {
            throw new IllegalArgumentException("quorum must be at least 1: " + quorum);
        }
        if (downAfter.toMillis() < 1 || failoverTimeout.toMillis() < 1) {
            throw new IllegalArgumentException("downAfter and failoverTimeout must be at least 1 ms");
        }
        Path binary = RedisBinary.resolve();
        for (int attempt = 1; ; attempt++) {
            int port = freePort();
            try {
                return launch(binary, port, List.of(
                        "sentinel monitor " + masterName + " " + master.host() + " " + master.port() + " " + quorum,
                        "sentinel down-after-milliseconds " + masterName + " " + downAfter.toMillis(),
                        "sentinel failover-timeout " + masterName + " " + failoverTimeout.toMillis(),
                        "sentinel parallel-syncs " + masterName + " 1"));
            } catch (ServerProcess.PortTaken e) {
                if (attempt >= PORT_ATTEMPTS) {
                    throw new IllegalStateException("redis-server --sentinel could not bind 127.0.0.1:" + port
                            + " (" + attempt + " attempt(s)); output:\n" + e.getMessage());
                }
            }
        }
    }

    private static RedisSentinel launch(Path binary, int port, List<String> monitor) {
        Path dir;
        try {
            dir = Files.createTempDirectory("echomq-sentinel-" + port + "-");
            StringBuilder conf = new StringBuilder()
                    .append("port ").append(port).append('\n')
                    .append("bind ").append(HOST).append('\n')
                    .append("daemonize no\n")
                    .append("dir ").append(dir).append('\n');
            monitor.forEach(line -> conf.append(line).append('\n'));
            Files.writeString(dir.resolve("sentinel.conf"), conf, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write a sentinel's configuration", e);
        }
        Path log = dir.resolve("sentinel.log");
        Process process;
        try {
            process = ParentBoundLauncher.start(new ProcessBuilder(binary.toString(),
                    dir.resolve("sentinel.conf").toString(), "--sentinel")
                    .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()));
        } catch (IOException e) {
            ServerProcess.deleteRecursively(dir);
            throw new IllegalStateException("Cannot run " + binary + " --sentinel", e);
        }
        RedisSentinel sentinel = new RedisSentinel(port, dir, process);
        try {
            ServerProcess.awaitReady(process, port, log);
            return sentinel;
        } catch (RuntimeException e) {
            sentinel.closed = true;
            process.destroyForcibly();
            ServerProcess.awaitExit(process);
            Runtime.getRuntime().removeShutdownHook(sentinel.shutdownHook);
            ServerProcess.deleteRecursively(dir);
            throw e;
        }
    }

    /** @return always {@code "127.0.0.1"} */
    public String host() {
        return HOST;
    }

    /** @return the TCP port the sentinel listens on */
    public int port() {
        return port;
    }

    /** @return {@code host:port}, as a Sentinel URL lists its sentinels */
    public String address() {
        return HOST + ":" + port;
    }

    /**
     * Stops the sentinel ({@code SHUTDOWN}, then a kill after 5 seconds) and deletes its directory. Idempotent;
     * never throws.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (process.isAlive()) {
            try (RawRedis conn = RawRedis.connect(HOST, port)) {
                conn.call("SHUTDOWN", "NOSAVE");
            } catch (RuntimeException expected) {
                // the sentinel closes the connection without replying, or is already gone
            }
        }
        ServerProcess.awaitExit(process);
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException jvmShuttingDown) {
            // the hook runs anyway
        }
        ServerProcess.deleteRecursively(dir);
    }

    @Override
    public String toString() {
        return "RedisSentinel[" + address() + "]";
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot find a free port", e);
        }
    }
}
