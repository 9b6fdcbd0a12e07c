package io.echomq.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The life of one server process, for {@link RedisServer}. Its duties, kept together because
 * each reads the process and its log:
 * <ul>
 *   <li>wait until our own process answers {@code PING} (another process may hold the port in a
 *       start race, so the answer's {@code process_id} must be ours), and tell a taken port from
 *       any other start failure;</li>
 *   <li>wait for an exit, killing the process when it does not go in time;</li>
 *   <li>read the tail of the log for error messages, and delete the temporary directory.</li>
 * </ul>
 */
final class ServerProcess {
    static final String HOST = "127.0.0.1";
    static final long START_TIMEOUT_MILLIS = 10_000;
    private static final long STOP_TIMEOUT_MILLIS = 5_000;

    private ServerProcess() {
    }

    /** Polls with PING until our own process answers; returns its {@code INFO server} text. */
    static String awaitReady(Process process, int port, Path log) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                String output = tail(log);
                if (output.contains("already in use")) {
                    throw new PortTaken(output);
                }
                throw new IllegalStateException("redis-server exited with code " + process.exitValue()
                        + " during startup on port " + port + "; output:\n" + output);
            }
            try (RawRedis conn = RawRedis.connect(HOST, port)) {
                if ("PONG".equals(conn.call("PING"))) {
                    String info = (String) conn.call("INFO", "server");
                    // Another process may own the port (a start race): only accept our own server.
                    if (String.valueOf(process.pid()).equals(ServerIdentity.field(info, "process_id"))) {
                        return info;
                    }
                }
            } catch (RuntimeException notYet) {
                // not listening yet, or still loading
            }
            try {
                process.waitFor(20, TimeUnit.MILLISECONDS); // returns at once if the process exits
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while starting redis-server", e);
            }
        }
        throw new IllegalStateException("redis-server did not answer PING on port " + port + " within "
                + START_TIMEOUT_MILLIS + " ms; output:\n" + tail(log));
    }

    static void awaitExit(Process process) {
        try {
            if (!process.waitFor(STOP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(STOP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    static String tail(Path log) {
        try {
            List<String> lines = List.of(new String(Files.readAllBytes(log), StandardCharsets.UTF_8).split("\n"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException ignored) {
            // best effort: it is a temporary directory
        }
    }

    /** Startup failed because the port was taken; the message is the server output. */
    static final class PortTaken extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PortTaken(String output) {
            super(output, null, false, false);
        }
    }
}
