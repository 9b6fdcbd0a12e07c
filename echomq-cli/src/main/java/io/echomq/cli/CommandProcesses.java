package io.echomq.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@code emq worker}'s shell commands each in a session of its own, and kills a command with everything it
 * started.
 *
 * <ol>
 *   <li>Own session: a terminal sends Ctrl-C's SIGINT to its whole foreground process group. A command in the
 *       worker's group would die of it (exit status 130, an attempt spent) while the worker is still stopping
 *       gracefully. Java cannot call {@code setsid()}/{@code setpgid()}, so the command runs under util-linux's
 *       {@code setsid --wait} when that is on the {@code PATH}: the JVM's child is never a group leader, so setsid
 *       does not fork but calls {@code setsid()} and {@code exec}s the shell, whose process id becomes the id of
 *       its new session and process group ({@code --wait} only matters if it had to fork). Without setsid the
 *       command starts directly, in the worker's group, as before.</li>
 *   <li>Kill: {@code kill -KILL -<pgid>} reaches every process still in the command's group, including background
 *       children whose parent already exited (no longer its descendants); then every remaining descendant is
 *       killed by handle, which covers a child that made a session of its own.</li>
 * </ol>
 */
final class CommandProcesses {
    private static final String SETSID = find("setsid");
    private static final String KILL = find("kill");

    private CommandProcesses() {
    }

    /**
     * @param command the argv to run
     * @return a builder running {@code command} in a new session where {@code setsid} exists
     */
    static ProcessBuilder builder(List<String> command) {
        List<String> argv = new ArrayList<>();
        if (SETSID != null) {
            argv.add(SETSID);
            argv.add("--wait");
        }
        argv.addAll(command);
        return new ProcessBuilder(argv);
    }

    /** @return whether commands get a session (and process group) of their own */
    static boolean ownSession() {
        return SETSID != null;
    }

    /**
     * Kills the process, its process group when it leads one, and every descendant, with SIGKILL. Never throws.
     *
     * @param process a process started from {@link #builder}
     */
    static void killTree(Process process) {
        List<ProcessHandle> descendants = process.descendants().toList();   // before the kill re-parents them
        if (SETSID != null && KILL != null) {   // the group outlives its leader while members remain
            try {
                new ProcessBuilder(KILL, "-KILL", "--", "-" + process.pid())
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start().waitFor(2, TimeUnit.SECONDS);
            } catch (IOException e) {
                // fall through to the per-process kill
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        descendants.forEach(ProcessHandle::destroyForcibly);
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    private static String find(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        return null;
    }
}
