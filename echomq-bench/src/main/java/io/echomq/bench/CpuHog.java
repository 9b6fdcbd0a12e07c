package io.echomq.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code --load}: a CPU hog beside the bench, so that a ratio can be seen to survive (or not) a
 * busy machine. Its duties:
 *
 * <ol>
 *   <li>start one busy loop in its own process ({@code sh -c 'while :; do :; done'}), so that it
 *       takes CPU from every side alike (our JVM, the peer's JVM or node, and the server), not from
 *       our JVM alone as a thread of it would;</li>
 *   <li>pin it to the machine's last CPU with {@code taskset} where there is one, so that it takes
 *       one core and stays there; without {@code taskset} it runs unpinned, and says so;</li>
 *   <li>stop it when closed, and never outlive the bench (a shutdown hook stops it too).</li>
 * </ol>
 */
final class CpuHog implements AutoCloseable {
    private final Process process;
    private final String description;
    private final Thread hook;

    private CpuHog(Process process, String description) {
        this.process = process;
        this.description = description;
        this.hook = new Thread(process::destroyForcibly, "emq-bench-cpu-hog-stop");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * Starts the hog.
     *
     * @throws IllegalStateException if {@code sh} cannot be started
     */
    static CpuHog start() {
        int cpu = Runtime.getRuntime().availableProcessors() - 1;
        List<String> cmd = new ArrayList<>();
        String description;
        if (onPath("taskset")) {
            cmd.addAll(List.of("taskset", "-c", Integer.toString(cpu)));
            description = "one busy loop in its own process, pinned to cpu " + cpu + " (taskset) of "
                    + (cpu + 1);
        } else {
            description = "one busy loop in its own process, NOT pinned (no taskset) on "
                    + (cpu + 1) + " cpu(s)";
        }
        cmd.addAll(List.of("sh", "-c", "while :; do :; done"));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return new CpuHog(p, description);
        } catch (IOException e) {
            throw new IllegalStateException("the --load CPU hog did not start: " + e.getMessage(), e);
        }
    }

    /** @return what runs, for the bench's header line */
    String description() {
        return description;
    }

    /** @return whether the hog is still running */
    boolean isAlive() {
        return process.isAlive();
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down already: the hook stops it
        }
    }

    private static boolean onPath(String tool) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }
}
