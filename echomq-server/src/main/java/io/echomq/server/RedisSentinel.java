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
    private final String password;
    private final Path dir;
    private final Process process;
    private final Thread shutdownHook;
    private boolean closed;

    private RedisSentinel(int port, String password, Path dir, Process process) {
        this.port = port;
        this.password = password;
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
     * @see #start(String, RedisServer, int, Duration, Duration, String, String)
     * @throws IllegalStateException if the binary cannot be resolved, or the sentinel does not start and answer
     *     within 10 seconds (the message includes the tail of its log), or no free port could be bound
     * @throws UncheckedIOException if the temporary directory or its files cannot be written
     */
    public static RedisSentinel start(String masterName, RedisServer master, int quorum, Duration downAfter,
                                      Duration failoverTimeout) {
        return start(masterName, master, quorum, downAfter, failoverTimeout, null, null);
    }

    /**
     * As {@link #start(String, RedisServer, int, Duration, Duration)}, with passwords: the data nodes' (the
     * sentinel's {@code auth-pass} for the master and its replicas) and the sentinel's own ({@code requirepass},
     * which it also gives the other sentinels as {@code sentinel-pass}).
     *
     * @param dataPassword the master's and replicas' {@code requirepass}, or {@code null} for none
     * @param password this sentinel's {@code requirepass}, or {@code null} for none
     * @return a running sentinel that answers {@code PING} (after {@code AUTH} when it has a password)
     * @throws IllegalArgumentException if {@code quorum} is under 1, or a duration is under 1 ms, or a password
     *     holds a blank or a quote
     * @throws NullPointerException if {@code masterName}, {@code master} or a duration is {@code null}
     * @throws IllegalStateException if the binary cannot be resolved, or the sentinel does not start and answer
     *     within 10 seconds (the message includes the tail of its log), or no free port could be bound
     * @throws UncheckedIOException if the temporary directory or its files cannot be written
     */
    public static RedisSentinel start(String masterName, RedisServer master, int quorum, Duration downAfter,
                                      Duration failoverTimeout, String dataPassword, String password) {
        Objects.requireNonNull(masterName, "masterName");
        for (String secret : new String[] {dataPassword, password}) {
            if (secret != null && !secret.matches("[^\\s\"']+")) {
                throw new IllegalArgumentException("a password must not be empty or hold a blank or a quote");
            }
        }
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
                List<String> lines = new java.util.ArrayList<>(List.of(
                        "sentinel monitor " + masterName + " " + master.host() + " " + master.port() + " " + quorum,
                        "sentinel down-after-milliseconds " + masterName + " " + downAfter.toMillis(),
                        "sentinel failover-timeout " + masterName + " " + failoverTimeout.toMillis(),
                        "sentinel parallel-syncs " + masterName + " 1"));
                if (dataPassword != null) {
                    lines.add("sentinel auth-pass " + masterName + " " + dataPassword);
                }
                if (password != null) {
                    lines.add("requirepass " + password);
                    lines.add("sentinel sentinel-pass " + password);
                }
                return launch(binary, port, lines, password);
            } catch (ServerProcess.PortTaken e) {
                if (attempt >= PORT_ATTEMPTS) {
                    throw new IllegalStateException("redis-server --sentinel could not bind 127.0.0.1:" + port
                            + " (" + attempt + " attempt(s)); output:\n" + e.getMessage());
                }
            }
        }
    }

    private static RedisSentinel launch(Path binary, int port, List<String> monitor, String password) {
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
        RedisSentinel sentinel = new RedisSentinel(port, password, dir, process);
        try {
            awaitReady(process, port, password, log);
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

    /** As {@link ServerProcess#awaitReady}, authenticating first when the sentinel has a password. */
    private static void awaitReady(Process process, int port, String password, Path log) {
        if (password == null) {
            ServerProcess.awaitReady(process, port, log);
            return;
        }
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(
                ServerProcess.START_TIMEOUT_MILLIS);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                String output = ServerProcess.tail(log);
                if (output.contains("already in use")) {
                    throw new ServerProcess.PortTaken(output);
                }
                throw new IllegalStateException("redis-server --sentinel exited with code " + process.exitValue()
                        + " during startup on port " + port + "; output:\n" + output);
            }
            try (RawRedis conn = RawRedis.connect(HOST, port)) {
                conn.call("AUTH", password);
                String info = (String) conn.call("INFO", "server");
                if (String.valueOf(process.pid()).equals(ServerIdentity.field(info, "process_id"))) {
                    return;
                }
            } catch (RuntimeException notYet) {
                // not listening yet
            }
            try {
                process.waitFor(20, java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while starting a sentinel", e);
            }
        }
        throw new IllegalStateException("redis-server --sentinel did not answer on port " + port + " within "
                + ServerProcess.START_TIMEOUT_MILLIS + " ms; output:\n" + ServerProcess.tail(log));
    }

    /**
     * Opens a connection to this sentinel, authenticated when it has a password.
     *
     * @return the connection; close it when done
     * @throws java.io.UncheckedIOException if the sentinel cannot be reached
     * @throws RawRedis.ErrorReply if it refuses the password
     */
    public RawRedis connect() {
        RawRedis conn = RawRedis.connect(HOST, port);
        if (password != null) {
            try {
                conn.call("AUTH", password);
            } catch (RuntimeException e) {
                conn.close();
                throw e;
            }
        }
        return conn;
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
            try (RawRedis conn = connect()) {
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
