package io.echomq.bench;

import io.echomq.bench.loop.ResultLine;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A peer library's side of a bench, run as a child process with its own class path or runtime:
 * its stdout's {@link ResultLine}s are collected, everything else it prints goes to our stderr as
 * progress. A peer that cannot be found or set up is reported as missing, never as a failure of
 * the bench.
 */
final class Peer {
    private final String name;
    private final List<String> command;
    private final Path directory;

    private Peer(String name, List<String> command, Path directory) {
        this.name = name;
        this.command = List.copyOf(command);
        this.directory = directory;
    }

    /** @return the project's root folder: {@code -Demq.home}, else found from this class's location */
    static Optional<Path> home() {
        String prop = System.getProperty("emq.home");
        if (prop != null && !prop.isBlank()) {
            return Optional.of(Path.of(prop));
        }
        try {
            // <root>/echomq-bench/target/emq-bench.jar or <root>/echomq-bench/target/classes
            Path here = Path.of(Peer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path root = here.getParent().getParent().getParent();
            return Files.isDirectory(root.resolve("echomq-bench")) ? Optional.of(root) : Optional.empty();
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    /**
     * The Redisson peer: {@code echomq-bench-redisson/target/redisson-peer.jar} on this JVM's
     * {@code java}.
     *
     * @param why receives the reason when the peer is missing
     */
    static Optional<Peer> redisson(List<String> args, StringBuilder why) {
        Optional<Path> home = home();
        Path jar = home.map(h -> h.resolve("echomq-bench-redisson/target/redisson-peer.jar")).orElse(null);
        if (jar == null || !Files.isRegularFile(jar)) {
            why.append("the Redisson peer jar is not built (").append(jar == null ? "project folder not found" : jar)
                    .append("); ./emq bench builds it, or run: mvn -B -q -DskipTests -pl echomq-bench-redisson -am package");
            return Optional.empty();
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-jar");
        cmd.add(jar.toString());
        cmd.addAll(args);
        return Optional.of(new Peer("redisson", cmd, jar.getParent()));
    }

    /**
     * The BullMQ peer: {@code echomq-bench/peers/bullmq/bench.mjs} on {@code node}, after an
     * {@code npm ci} into its git-ignored {@code node_modules} on first use.
     *
     * @param why receives the reason when the peer is missing
     */
    static Optional<Peer> bullmq(List<String> args, PrintWriter progress, StringBuilder why) {
        Optional<Path> home = home();
        if (home.isEmpty()) {
            why.append("the project folder was not found (set -Demq.home)");
            return Optional.empty();
        }
        Path dir = home.get().resolve("echomq-bench/peers/bullmq");
        if (!Files.isRegularFile(dir.resolve("bench.mjs"))) {
            why.append("no ").append(dir.resolve("bench.mjs"));
            return Optional.empty();
        }
        if (!onPath("node")) {
            why.append("node is not installed (BullMQ needs Node.js 18+)");
            return Optional.empty();
        }
        if (!Files.isDirectory(dir.resolve("node_modules/bullmq"))) {
            if (!onPath("npm")) {
                why.append("npm is not installed, so BullMQ cannot be installed into ").append(dir);
                return Optional.empty();
            }
            progress.println("bench: installing BullMQ for the peer (npm ci, first use only)…");
            progress.flush();
            int rc = runQuietly(List.of("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"), dir, progress);
            if (rc != 0 || !Files.isDirectory(dir.resolve("node_modules/bullmq"))) {
                why.append("npm ci failed in ").append(dir).append(" (exit ").append(rc).append(")");
                return Optional.empty();
            }
        }
        List<String> cmd = new ArrayList<>(List.of("node", "bench.mjs"));
        cmd.addAll(args);
        return Optional.of(new Peer("bullmq", cmd, dir));
    }

    /** @return this peer's name, {@code redisson} or {@code bullmq} */
    String name() {
        return name;
    }

    /**
     * Runs the peer to the end, at most {@code timeoutSeconds}.
     *
     * @return its result lines, parsed
     * @throws IllegalStateException if it could not start, timed out or exited non-zero; the
     *     message carries the reason, and the bench reports the peer as failed
     */
    List<Map<String, String>> run(PrintWriter progress, long timeoutSeconds) throws InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(directory.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new IllegalStateException(name + " peer did not start: " + e.getMessage(), e);
        }
        List<Map<String, String>> results = new ArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    Map<String, String> fields = ResultLine.parse(line);
                    if (fields != null) {
                        synchronized (results) {
                            results.add(fields);
                        }
                    } else {
                        synchronized (progress) {
                            progress.println(name + ": " + line);
                            progress.flush();
                        }
                    }
                }
            } catch (IOException | IllegalArgumentException e) {
                progress.println(name + ": unreadable output: " + e.getMessage());
            }
        }, name + "-peer-output");
        reader.setDaemon(true);
        reader.start();
        try {
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                throw new IllegalStateException(name + " peer did not finish within " + timeoutSeconds + " s");
            }
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        }
        reader.join(5000);
        if (p.exitValue() != 0) {
            throw new IllegalStateException(name + " peer exited with " + p.exitValue());
        }
        synchronized (results) {
            return List.copyOf(results);
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

    private static int runQuietly(List<String> cmd, Path dir, PrintWriter progress) {
        try {
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return -1;
            }
            if (p.exitValue() != 0) {
                progress.println(out.strip());
            }
            return p.exitValue();
        } catch (IOException e) {
            progress.println("bench: " + e.getMessage());
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
