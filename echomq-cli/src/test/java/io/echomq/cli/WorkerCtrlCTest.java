package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.QueueRetention;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C on {@code emq worker} run as a terminal's foreground job: the worker JVM runs in a process group of its own
 * (started through {@code setsid}, as a shell's job control would), and each "Ctrl-C" is one {@code kill -INT} to
 * that whole group, which is what a terminal sends. The first stops gracefully without touching the running
 * commands; a second stops at once, giving the lease back unspent and killing the command with its children.
 */
@Timeout(180)
class WorkerCtrlCTest extends QueueCliTestBase {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @TempDir
    Path dir;
    private final List<Process> launched = new ArrayList<>();

    @BeforeAll
    static void needsSetsid() {
        assertThat(CommandProcesses.ownSession()).as("setsid (util-linux) must be on the PATH for these tests")
                .isTrue();
    }

    @Test
    void ctrlCLetsTheRunningCommandFinishAndExits130() throws Exception {
        client.queue("q").setRetention(QueueRetention.defaults());   // keeps the completed hash to read
        String id = client.queue("q").enqueue("x");
        Path pid = dir.resolve("pid");
        Path go = dir.resolve("go");
        // The command runs until the test creates 'go', which it does only after the Ctrl-C.
        Process jvm = launchAsTerminalJob("worker", "q", "--exec",
                "echo $$ > " + sh(pid) + "; while [ ! -e " + sh(go) + " ]; do sleep 0.05; done; echo finished");
        long shell = awaitPid(pid, jvm);

        ctrlC(jvm);
        await().atMost(PATIENCE).until(() -> err().contains("stopping:"));
        assertThat(alive(shell)).as("the Ctrl-C did not reach the command; stderr: %s", err()).isTrue();
        Files.createFile(go);

        assertThat(jvm.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the JVM exits").isTrue();
        assertThat(jvm.exitValue()).as("stderr: %s", err()).isEqualTo(130);
        assertThat(err()).contains("worker q: stopping: waiting up to 30 s for 1 running job",
                "worker q: stopped (signal): completed=1 retrying=0 dead=0 lost=0 running=0 returned=0");
        assertThat(read(dir.resolve("jvm.out"))).isEqualTo("finished\n");
        assertThat(hget("q", id, "state")).isEqualTo("done");
    }

    @Test
    void aSecondCtrlCReturnsTheLeaseUnspentAtOnceAndKillsTheCommandWithItsChildren() throws Exception {
        String id = client.queue("q").enqueue("x");
        Path pid = dir.resolve("pid");
        Path kid = dir.resolve("kid");
        Process jvm = launchAsTerminalJob("worker", "q", "--grace", "600000", "--exec",
                "echo $$ > " + sh(pid) + "; sleep 600 & echo $! > " + sh(kid) + "; wait");
        long shell = awaitPid(pid, jvm);
        long child = awaitPid(kid, jvm);
        assertThat(hget("q", id, "spent")).isEqualTo("1");

        ctrlC(jvm);
        await().atMost(PATIENCE).until(() -> err().contains("stopping:"));
        assertThat(alive(shell) && alive(child)).as("the first Ctrl-C leaves the command running").isTrue();
        long second = System.nanoTime();
        ctrlC(jvm);

        assertThat(jvm.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the JVM exits").isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - second)).as("well before the 600 s grace")
                .isLessThan(PATIENCE);
        assertThat(jvm.exitValue()).as("stderr: %s", err()).isEqualTo(130);
        assertThat(err()).contains("worker q: stopping: waiting up to 600 s for 1 running job",
                "worker q: stopped (signal): completed=0 retrying=0 dead=0 lost=0 running=0 returned=1");
        // SIGKILL was sent before the JVM exited; a killed orphan lingers as a zombie until init reaps it
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(alive(shell)).as("the command is gone").isFalse();
            assertThat(alive(child)).as("the command's child is gone").isFalse();
        });
        assertThat(hget("q", id, "state")).isEqualTo("pending");
        assertThat(hget("q", id, "spent")).as("the returned lease spent no attempt").isEqualTo("0");
    }

    /** Starts {@code emq args} as its own JVM, leading a process group of its own like a shell's job. */
    /**
     * Starts the worker JVM as a terminal's foreground job would run: in a process group of its own, and with
     * SIGINT and SIGQUIT at their default disposition. A build started in the background of a non-interactive
     * shell (a CI script, {@code cmd &}) inherits both as ignored, and an ignored SIGINT is ignored by the JVM
     * too, so without {@code env --default-signal} a Ctrl-C could never reach the worker here, whereas from a
     * terminal it always does.
     */
    private Process launchAsTerminalJob(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("setsid", "env", "--default-signal=INT,QUIT",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Emq.class.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectOutput(dir.resolve("jvm.out").toFile())
                .redirectError(dir.resolve("jvm.err").toFile());
        pb.environment().put(RedisOptions.ENV, REDIS.url());
        Process jvm = pb.start();
        launched.add(jvm);
        return jvm;
    }

    /** A worker JVM a failed test left running would claim the next test's job: none outlives its test. */
    @AfterEach
    void stopLaunched() throws InterruptedException {
        for (Process jvm : launched) {
            jvm.descendants().forEach(ProcessHandle::destroyForcibly);
            jvm.destroyForcibly();
            jvm.waitFor(10, TimeUnit.SECONDS);
        }
        launched.clear();
    }

    /** Sends SIGINT to the JVM's whole process group, as a terminal does on Ctrl-C. */
    private static void ctrlC(Process jvm) throws Exception {
        // setsid did not fork (the JVM's child leads no group), so the JVM's pid is its group's id
        Process kill = new ProcessBuilder("kill", "-INT", "--", "-" + jvm.pid()).inheritIO().start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).as("kill -INT -%d", jvm.pid())
                .isTrue();
    }

    private String err() {
        return read(dir.resolve("jvm.err"));
    }

    private static Object hget(String queue, String id, String field) {
        return REDIS.raw().call("HGET", "emq:{" + queue + "}:job:" + id, field);
    }

    private static String sh(Path path) {
        return "'" + path.toString().replace("'", "'\\''") + "'";
    }

    /** Waits for the command to write its pid; a worker JVM that exits first fails the test with its stderr. */
    private long awaitPid(Path file, Process jvm) {
        await().atMost(PATIENCE).until(() -> {
            assertThat(jvm.isAlive()).as("the worker JVM exited (%s) before its command started; stderr: %s",
                    jvm.isAlive() ? "" : jvm.exitValue(), err()).isTrue();
            return Files.exists(file) && read(file).matches("\\d+\n");
        });
        return Long.parseLong(read(file).strip());
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
