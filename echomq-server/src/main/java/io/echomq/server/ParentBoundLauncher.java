package io.echomq.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Starts a child process that dies with this JVM, even when the JVM gets {@code SIGKILL} and runs no shutdown hook.
 *
 * <ol>
 *   <li>Where {@code setpriv} (util-linux) is on the {@code PATH} and knows {@code --pdeathsig}, the command runs as
 *       {@code setpriv --pdeathsig KILL -- <command>}: setpriv asks the kernel ({@code PR_SET_PDEATHSIG}) to send
 *       {@code SIGKILL} when its parent dies, then {@code exec}s the command, which keeps that setting and setpriv's
 *       process id. Elsewhere (macOS, a system without util-linux) the command is started directly, and only the
 *       shutdown hooks protect against orphans.</li>
 *   <li>Linux's "parent" here is the <em>thread</em> that forked the child, not the process: a child forked by a
 *       short-lived thread (a test's worker thread, a pool thread that retires) would be killed when that thread
 *       ends. So every start happens on one daemon thread that lives as long as the JVM.</li>
 * </ol>
 *
 * Thread-safe.
 */
final class ParentBoundLauncher {
    /** The wrapper prefix, or an empty list when the wrapper is unavailable. */
    private static final List<String> PREFIX = detect();
    /** The one long-lived thread that forks every child; a single-thread pool's thread never times out. */
    private static final ExecutorService FORKER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "echomq-redis-launcher");
        t.setDaemon(true);
        return t;
    });

    private ParentBoundLauncher() {
    }

    /**
     * Starts {@code builder}'s command, wrapped so that it dies with this JVM where the wrapper is available.
     * The builder's command is restored before returning.
     *
     * @param builder the process to start; its directory, environment and redirections are used as given
     * @return the started process, whose {@link Process#pid()} is the command's own
     * @throws IOException if the process cannot be started
     */
    static Process start(ProcessBuilder builder) throws IOException {
        List<String> command = List.copyOf(builder.command());
        List<String> wrapped = new ArrayList<>(PREFIX);
        wrapped.addAll(command);
        Future<Process> started = FORKER.submit(() -> {
            synchronized (builder) {
                builder.command(wrapped);
                try {
                    return builder.start();
                } finally {
                    builder.command(command);
                }
            }
        });
        try {
            return started.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting " + command.get(0), e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException("cannot start " + command.get(0), e.getCause());
        }
    }

    /** @return whether the kernel will kill the children started here when this JVM dies */
    static boolean bindsToParent() {
        return !PREFIX.isEmpty();
    }

    private static List<String> detect() {
        if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            return List.of();
        }
        String path = System.getenv("PATH");
        if (path == null) {
            return List.of();
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, "setpriv");
            if (Files.isExecutable(candidate) && supportsPdeathsig(candidate)) {
                return List.of(candidate.toString(), "--pdeathsig", "KILL", "--");
            }
        }
        return List.of();
    }

    /** Runs {@code setpriv --pdeathsig KILL -- true}: an old setpriv without the option fails it. */
    private static boolean supportsPdeathsig(Path setpriv) {
        try {
            Process p = new ProcessBuilder(setpriv.toString(), "--pdeathsig", "KILL", "--", "true")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
