package io.echomq.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} (or {@code valkey-server}) process listening on {@code 127.0.0.1}, for tests. Which
 * product it is, and its version, come from what the server says in {@code INFO server}, never from the binary's
 * name (see {@link #product()}). The binary comes from
 * {@link RedisBinary#resolve()} unless the builder names one. The server runs without persistence
 * ({@code save ""}, {@code appendonly no}, unless overridden) in a fresh temporary directory, which also holds its
 * log, and is stopped by {@link #close()} or, failing that, by a JVM shutdown hook. Where {@code setpriv} (util-linux)
 * offers {@code --pdeathsig}, the server is also killed by the kernel when this JVM dies without running its hooks
 * ({@code kill -9}, a crash), so that no orphan keeps the port; see {@link ParentBoundLauncher}.
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.start()) {
 *     connect(redis.url());
 * }
 * }</pre>
 */
public final class RedisServer implements AutoCloseable {

    private static final String HOST = ServerProcess.HOST;
    private static final long START_TIMEOUT_MILLIS = ServerProcess.START_TIMEOUT_MILLIS;
    private static final int PORT_ATTEMPTS = 5;
    private static final Set<String> RESERVED = Set.of("port", "bind", "dir", "daemonize");

    private final Path binary;
    private final int port;
    private final Path dir;
    private final Thread shutdownHook;
    private volatile Process process;
    private List<String> command;   // set by launch; what restart() runs again
    private ServerIdentity identity;
    private boolean closed;
    private int restarts;

    private RedisServer(Path binary, int port, Process process, Path dir) {
        this.binary = binary;
        this.port = port;
        this.process = process;
        this.dir = dir;
        this.shutdownHook = new Thread(() -> {
            this.process.destroyForcibly();
            ServerProcess.deleteRecursively(dir);
        }, "echomq-redis-shutdown-" + port);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts a server with default settings on a free port; same as {@code builder().start()}.
     *
     * @return a running server that answers {@code PING}
     * @throws IllegalStateException if the binary cannot be resolved (see {@link RedisBinary#resolve()}), or the
     *         server does not start and answer within 10 seconds (the message includes the tail of its output)
     * @throws UncheckedIOException if the temporary directory or log file cannot be created
     */
    public static RedisServer start() {
        return builder().start();
    }

    /**
     * Returns a builder for a server with a custom binary, port or configuration.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the address the server listens on.
     *
     * @return always {@code "127.0.0.1"}
     */
    public String host() {
        return HOST;
    }

    /**
     * Returns the TCP port the server listens on.
     *
     * @return the port
     */
    public int port() {
        return port;
    }

    /**
     * Returns a connection URL for clients such as Lettuce.
     *
     * @return {@code "redis://127.0.0.1:<port>"}
     */
    public String url() {
        return "redis://" + HOST + ":" + port;
    }

    /**
     * Returns the executable this server was started from.
     *
     * @return the {@code redis-server} path
     */
    public Path binary() {
        return binary;
    }

    /**
     * Returns the product's own version, read from {@code INFO server} at startup: {@code valkey_version} on Valkey,
     * {@code redis_version} on Redis. Valkey also reports a {@code redis_version} (its compatibility level, 7.2.4 on
     * Valkey 8.0), which is {@link #redisVersion()}.
     *
     * @return for example {@code "6.2.11"}, {@code "7.0.15"} or {@code "8.0.1"}
     */
    public String version() {
        return identity.version();
    }

    /**
     * Returns which server this is, from {@code server_name} in {@code INFO server}: Valkey says
     * {@code server_name:valkey}; Redis has no such field.
     *
     * @return {@code "Valkey"} or {@code "Redis"} (another {@code server_name} is returned capitalised)
     */
    public String product() {
        return identity.product();
    }

    /**
     * Returns the {@code redis_version} field: Redis's version, or the Redis version a Valkey server is compatible
     * with.
     *
     * @return for example {@code "7.0.15"}, or {@code "7.2.4"} on Valkey 8.0
     */
    public String redisVersion() {
        return identity.redisVersion();
    }

    /**
     * Tells whether the server process is alive and {@link #close()} has not been called.
     *
     * @return {@code true} while running
     */
    public synchronized boolean isRunning() {
        return !closed && process.isAlive();
    }

    /**
     * Restarts the server the way a crash and a supervisor would: kills the process with {@code SIGKILL} (nothing is
     * flushed beyond what the server's own persistence settings already wrote), then starts the same binary with
     * the same configuration on the same port and in the same directory, and waits until it answers {@code PING}.
     * With {@code config("appendonly", "yes")} the new process reloads the append-only file; with the default
     * settings (no persistence) it starts empty. Clients connected before see their connections reset.
     *
     * @throws IllegalStateException if the server was closed, or the new process does not answer within 10 seconds
     *         (the message includes the tail of its log), or the port could not be bound again
     */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("cannot restart a closed server: " + this);
        }
        process.destroyForcibly();
        ServerProcess.awaitExit(process);
        Path log = dir.resolve("redis.log");
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
        while (true) {
            try {
                process = ParentBoundLauncher.start(new ProcessBuilder(command).directory(dir.toFile())
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())));
            } catch (IOException e) {
                throw new IllegalStateException("Cannot run " + binary, e);
            }
            try {
                identity = ServerIdentity.of(ServerProcess.awaitReady(process, port, log));
                restarts++;
                return;
            } catch (ServerProcess.PortTaken e) {
                // the old socket may linger for a moment after SIGKILL; try again until the deadline
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("redis-server could not bind port " + port + " again: "
                            + e.getMessage());
                }
            }
        }
    }

    /**
     * Kills the server the way a crash would, and leaves it down: {@code SIGKILL}, nothing flushed beyond what its
     * own persistence settings already wrote, and no new process. Its clients see their connections reset and
     * every reconnect refused. {@link #restart()} starts it again; {@link #close()} still deletes its directory.
     * Idempotent.
     *
     * @throws IllegalStateException if the server was closed
     */
    public synchronized void kill() {
        if (closed) {
            throw new IllegalStateException("cannot kill a closed server: " + this);
        }
        process.destroyForcibly();
        ServerProcess.awaitExit(process);
    }

    /**
     * Returns how many times {@link #restart()} has succeeded.
     *
     * @return the restart count, 0 for a server never restarted
     */
    public synchronized int restarts() {
        return restarts;
    }

    /**
     * Returns the server's working directory, which holds its log and, when persistence is on, its data files. It
     * survives {@link #restart()} and is deleted by {@link #close()}.
     *
     * @return the directory
     */
    public Path dir() {
        return dir;
    }

    /**
     * Stops the server: sends {@code SHUTDOWN NOSAVE}, waits up to 5 seconds for the process to exit, kills it
     * forcibly if needed, and deletes its temporary directory. Idempotent; never throws.
     */
    @Override
    public void close() {
        stop(true);
    }

    private synchronized void stop(boolean graceful) {
        if (closed) {
            return;
        }
        closed = true;
        if (graceful && process.isAlive()) {
            try (RawRedis conn = RawRedis.connect(HOST, port)) {
                conn.call("SHUTDOWN", "NOSAVE");
            } catch (RuntimeException expected) {
                // the server closes the connection without replying, or is already gone
            }
        } else {
            process.destroyForcibly();
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
        return "RedisServer[" + url() + ", " + identity + ", " + binary + "]";
    }

    /** Builds and starts a {@link RedisServer}. Not thread-safe. */
    public static final class Builder {
        private Path binary;
        private int port;
        private final Map<String, String> config = new LinkedHashMap<>();

        private Builder() {
            config.put("save", "");
            config.put("appendonly", "no");
            config.put("protected-mode", "yes");
        }

        /**
         * Uses this executable instead of {@link RedisBinary#resolve()}.
         *
         * @param binary a {@code redis-server} executable
         * @return this builder
         * @throws NullPointerException if {@code binary} is {@code null}
         */
        public Builder binary(Path binary) {
            this.binary = Objects.requireNonNull(binary, "binary");
            return this;
        }

        /**
         * Sets the port; {@code 0} (the default) picks a free port and retries with another one if it is taken
         * before the server binds it.
         *
         * @param port {@code 0} or a port in 1..65535
         * @return this builder
         * @throws IllegalArgumentException if the port is out of range
         */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            this.port = port;
            return this;
        }

        /**
         * Adds a configuration directive passed on the command line as {@code --name value}, for example
         * {@code config("appendonly", "yes")} or {@code config("maxmemory", "10mb")}. A later value for the same
         * name replaces an earlier one and the defaults ({@code save ""}, {@code appendonly no},
         * {@code protected-mode yes}).
         *
         * @param name  the directive name
         * @param value its value (may contain spaces, for example {@code "900 1"} for {@code save})
         * @return this builder
         * @throws IllegalArgumentException if the name is blank or one of {@code port}, {@code bind}, {@code dir},
         *         {@code daemonize}, which the test kit controls
         * @throws NullPointerException if an argument is {@code null}
         */
        public Builder config(String name, String value) {
            String key = name.trim().toLowerCase(Locale.ROOT);
            Objects.requireNonNull(value, "value");
            if (key.isEmpty() || RESERVED.contains(key)) {
                throw new IllegalArgumentException("config directive not allowed here: '" + name + "'");
            }
            config.put(key, value);
            return this;
        }

        /**
         * Starts the server and waits (at most 10 seconds) until it answers {@code PING}.
         *
         * @return the running server
         * @throws IllegalStateException if the binary cannot be resolved, or the server exits or does not answer in
         *         time (the message includes the tail of its output), or a free port could not be bound after
         *         several attempts
         * @throws UncheckedIOException if the temporary directory or log file cannot be created
         */
        public RedisServer start() {
            Path bin = binary != null ? binary : RedisBinary.resolve();
            int attempts = port == 0 ? PORT_ATTEMPTS : 1;
            for (int attempt = 1; ; attempt++) {
                int p = port == 0 ? freePort() : port;
                try {
                    return launch(bin, p, config);
                } catch (ServerProcess.PortTaken e) {
                    if (attempt >= attempts) {
                        throw new IllegalStateException("redis-server could not bind 127.0.0.1:" + p + " (" + attempt
                                + " attempt(s)); output:\n" + e.getMessage());
                    }
                }
            }
        }
    }

    private static RedisServer launch(Path binary, int port, Map<String, String> config) {
        Path dir;
        try {
            dir = Files.createTempDirectory("echomq-redis-" + port + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create a temporary directory", e);
        }
        Path log = dir.resolve("redis.log");
        List<String> command = new ArrayList<>(List.of(binary.toString(),
                "--port", Integer.toString(port), "--bind", HOST, "--dir", dir.toString(), "--daemonize", "no"));
        config.forEach((name, value) -> {
            command.add("--" + name);
            command.add(value);
        });
        Process process;
        try {
            process = ParentBoundLauncher.start(new ProcessBuilder(command).directory(dir.toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile()));
        } catch (IOException e) {
            ServerProcess.deleteRecursively(dir);
            throw new IllegalStateException("Cannot run " + binary, e);
        }
        RedisServer server = new RedisServer(binary, port, process, dir);
        server.command = List.copyOf(command);
        try {
            server.identity = ServerIdentity.of(ServerProcess.awaitReady(process, port, log));
            return server;
        } catch (RuntimeException e) {
            server.stop(false); // no SHUTDOWN: the port may belong to someone else
            throw e;
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot find a free port", e);
        }
    }
}
