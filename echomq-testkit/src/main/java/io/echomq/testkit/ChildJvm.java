package io.echomq.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A Java main class run as a child process, for fault tests: the {@code emq worker} command
 * ({@code io.echomq.cli.Emq}) or a small test main. It is started with the JVM that runs the test and, by default,
 * the test's own class path ({@code java.class.path}), so no jar needs to be built first.
 *
 * <ol>
 *   <li>Faults: {@link #kill()} sends {@code SIGKILL} ({@code kill -9}); {@link #pause()} and {@link #resume()} send
 *       {@code SIGSTOP} and {@code SIGCONT}; {@link #restart()} kills it if it still runs and starts it again with the
 *       same command.</li>
 *   <li>Output: every stdout line is handed to the line consumer given at start (on a reader thread) and kept, so a
 *       test can wait for one with {@link #awaitLine}; a line is handed to the consumer before {@code awaitLine}
 *       can see it. stderr goes to a log file ({@link #stderrLog()}), appended
 *       across restarts.</li>
 *   <li>Cleanup: {@link #close()} kills it; a JVM shutdown hook does the same if a test forgets.</li>
 * </ol>
 *
 * <p>Signals need the {@code kill} command (Linux, macOS). Thread-safe.
 */
public final class ChildJvm implements AutoCloseable {

    private static final long EXIT_WAIT_MILLIS = 10_000;

    private final List<String> command;
    private final Path stderrLog;
    private final Consumer<String> onLine;
    private final List<String> lines = new ArrayList<>(); // guarded by this
    private final Thread shutdownHook;
    private Process process;                               // guarded by this
    private boolean paused;                                // guarded by this
    private boolean closed;                                // guarded by this
    private int starts;                                    // guarded by this

    private ChildJvm(List<String> command, Path stderrLog, Consumer<String> onLine) {
        this.command = command;
        this.stderrLog = stderrLog;
        this.onLine = onLine;
        this.shutdownHook = new Thread(this::killQuietly, "echomq-child-jvm-shutdown");
    }

    /**
     * Starts {@code mainClass} with {@code args} in a new JVM on the current class path.
     *
     * @param mainClass the fully qualified main class, for example {@code "io.echomq.cli.Emq"}
     * @param onLine    called with each stdout line, on the child's reader thread; keep it quick
     * @param args      the program arguments
     * @return the running child; close it when done
     * @throws NullPointerException if an argument is {@code null}
     * @throws UncheckedIOException if the JVM cannot be started or its log file created
     */
    public static ChildJvm start(String mainClass, Consumer<String> onLine, String... args) {
        return start(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"), mainClass, onLine, args);
    }

    /**
     * Starts {@code mainClass} in a new JVM on the current class path, with the given JVM options.
     *
     * @param jvmOptions options placed before the main class, for example {@code List.of("-Xmx64m")}
     * @param mainClass  the fully qualified main class
     * @param onLine     called with each stdout line, on the child's reader thread
     * @param args       the program arguments
     * @return the running child
     * @throws NullPointerException if an argument is {@code null}
     * @throws UncheckedIOException if the JVM cannot be started or its log file created
     */
    public static ChildJvm start(List<String> jvmOptions, String mainClass, Consumer<String> onLine, String... args) {
        Objects.requireNonNull(mainClass, "mainClass");
        Objects.requireNonNull(onLine, "onLine");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        Path log;
        try {
            log = Files.createTempFile("echomq-child-", ".stderr.log");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the child's log file", e);
        }
        ChildJvm child = new ChildJvm(List.copyOf(cmd), log, onLine);
        Runtime.getRuntime().addShutdownHook(child.shutdownHook);
        child.launch();
        return child;
    }

    private synchronized void launch() {
        try {
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(stderrLog.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.PIPE).start();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + command.get(0), e);
        }
        starts++;
        paused = false;
        Process p = process;
        Thread reader = new Thread(() -> readLines(p), "echomq-child-jvm-" + p.pid() + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    private void readLines(Process p) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                onLine.accept(line);   // first, so that a line awaitLine returns has been consumed already
                synchronized (this) {
                    lines.add(line);
                    notifyAll();
                }
            }
        } catch (IOException ended) {
            // the process died
        }
    }

    /** @return the process id of the current process */
    public synchronized long pid() {
        return process.pid();
    }

    /** @return whether the current process is alive (a paused process is alive) */
    public synchronized boolean isAlive() {
        return process.isAlive();
    }

    /** @return how many times a process was started: 1, plus one per {@link #restart()} */
    public synchronized int starts() {
        return starts;
    }

    /** @return the file that collects the child's stderr */
    public Path stderrLog() {
        return stderrLog;
    }

    /**
     * Kills the current process with {@code SIGKILL} and waits for it to be gone. Nothing in it runs afterwards: no
     * shutdown hook, no flush. Every line it wrote before it died is still read and passed on: the signal goes
     * through the process handle, because {@link Process#destroyForcibly()} also closes the pipe from the process,
     * and the lines in it that were not read yet would be lost. Idempotent.
     *
     * @throws IllegalStateException if the process is still alive 10 seconds later
     */
    public synchronized void kill() {
        process.toHandle().destroyForcibly();
        awaitExit(process);
        paused = false;
    }

    /**
     * Stops the current process with {@code SIGSTOP}: every thread freezes, timers included, until {@link #resume()}.
     * Where {@code /proc} exists (Linux), it returns only once the kernel reports the process stopped.
     *
     * @throws IllegalStateException if the process is not alive, the signal could not be sent, or the process is not
     *         reported stopped within 10 seconds
     */
    public synchronized void pause() {
        signal("STOP");
        awaitState(true);
        paused = true;
    }

    /**
     * Continues a paused process with {@code SIGCONT}. Where {@code /proc} exists, it returns only once the kernel
     * no longer reports the process stopped.
     *
     * @throws IllegalStateException if the process is not alive, the signal could not be sent, or the process is
     *         still reported stopped 10 seconds later
     */
    public synchronized void resume() {
        signal("CONT");
        awaitState(false);
        paused = false;
    }

    /** Polls {@code /proc/<pid>/stat} until the process state is (or is no longer) 'T', stopped. */
    private void awaitState(boolean stopped) {
        Path stat = Path.of("/proc", Long.toString(process.pid()), "stat");
        if (!Files.isReadable(stat)) {
            return; // no procfs: trust the signal
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EXIT_WAIT_MILLIS);
        while (true) {
            String s;
            try {
                s = Files.readString(stat, StandardCharsets.UTF_8);
            } catch (IOException gone) {
                return;
            }
            // The state follows the command name, which is in parentheses and may contain spaces.
            char state = s.charAt(s.lastIndexOf(')') + 2);
            if ((state == 'T') == stopped) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("process " + process.pid() + " is in state " + state + ", not "
                        + (stopped ? "stopped" : "running") + ", 10 s after the signal");
            }
            try {
                process.waitFor(1, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for process " + process.pid(), e);
            }
        }
    }

    /** @return whether {@link #pause()} was called and not yet undone */
    public synchronized boolean isPaused() {
        return paused;
    }

    /**
     * Kills the current process if it is alive, then starts the same command again. Output lines seen so far are
     * kept.
     *
     * @throws IllegalStateException if closed, or the old process would not die
     * @throws UncheckedIOException if the new JVM cannot be started
     */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        kill();
        launch();
    }

    /**
     * Waits for the current process to exit by itself.
     *
     * @param timeout the longest wait
     * @return the exit code, or empty if it is still running after {@code timeout}
     * @throws InterruptedException if interrupted while waiting
     */
    public Optional<Integer> awaitExit(Duration timeout) throws InterruptedException {
        Process p;
        synchronized (this) {
            p = process;
        }
        return p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? Optional.of(p.exitValue()) : Optional.empty();
    }

    /**
     * Writes one line to the current process's stdin.
     *
     * @param line the text, without the line break
     * @throws UncheckedIOException if the process has closed its stdin or died
     */
    public synchronized void send(String line) {
        try {
            process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
            process.getOutputStream().flush();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write to the child's stdin", e);
        }
    }

    /**
     * Waits until a stdout line (of any start of this child, including lines already seen) matches.
     *
     * @param match   the condition
     * @param timeout the longest wait
     * @return the first matching line
     * @throws IllegalStateException if no line matched within {@code timeout} (the message has the last lines and
     *         the tail of stderr)
     * @throws InterruptedException if interrupted while waiting
     */
    public String awaitLine(Predicate<String> match, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int seen = 0;
        synchronized (this) {
            while (true) {
                for (; seen < lines.size(); seen++) {
                    if (match.test(lines.get(seen))) {
                        return lines.get(seen);
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    List<String> tail = lines.subList(Math.max(0, lines.size() - 10), lines.size());
                    throw new IllegalStateException("no matching line from the child within " + timeout.toMillis()
                            + " ms; last lines: " + tail + "; stderr tail:\n" + stderrTail());
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }
    }

    /** @return a copy of every stdout line seen so far */
    public synchronized List<String> lines() {
        return List.copyOf(lines);
    }

    /** @return the last 4 KiB of the child's stderr, for failure messages */
    public String stderrTail() {
        try {
            String s = Files.readString(stderrLog, StandardCharsets.UTF_8);
            return s.substring(Math.max(0, s.length() - 4096));
        } catch (IOException e) {
            return "(no stderr: " + e + ")";
        }
    }

    /** Kills the process (if alive) and deletes the stderr log. Idempotent; never throws. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        killQuietly();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException jvmShuttingDown) {
            // the hook runs anyway
        }
        try {
            Files.deleteIfExists(stderrLog);
        } catch (IOException ignored) {
            // a temporary file
        }
    }

    @Override
    public synchronized String toString() {
        return "ChildJvm[pid " + process.pid() + ", " + command.get(command.size() - 1) + "]";
    }

    private void killQuietly() {
        Process p;
        synchronized (this) {
            p = process;
        }
        if (p != null) {
            p.destroyForcibly();
            try {
                p.waitFor(EXIT_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void signal(String name) {
        if (!process.isAlive()) {
            throw new IllegalStateException("process " + process.pid() + " is not alive");
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
                    .redirectErrorStream(true).start();
            if (!kill.waitFor(EXIT_WAIT_MILLIS, TimeUnit.MILLISECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed: "
                        + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run kill -" + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending SIG" + name, e);
        }
    }

    private static void awaitExit(Process p) {
        try {
            if (!p.waitFor(EXIT_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("process " + p.pid() + " did not die after SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for process " + p.pid(), e);
        }
    }
}
