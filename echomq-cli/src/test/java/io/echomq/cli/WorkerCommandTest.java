package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.JobRequest;
import io.echomq.queue.QueueRetention;
import io.echomq.queue.QueueStats;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * {@code emq worker <q> --exec …} against a real server: in-process runs for the job outcomes,
 * and separate JVMs, as the fault tests will launch it, for exiting by itself and on SIGTERM.
 */
@Timeout(180)
class WorkerCommandTest extends QueueCliTestBase {

    private static final Duration PATIENCE = Duration.ofSeconds(30);


    @TempDir
    Path dir;


    private static QueueStats stats(String queue) {
        return client.queue(queue).stats();
    }

    private static Object hget(String queue, String id, String field) {
        return REDIS.raw().call("HGET", "emq:{" + queue + "}:job:" + id, field);
    }

    /** @return {@code path} quoted for /bin/sh */
    private static String sh(Path path) {
        return "'" + path.toString().replace("'", "'\\''") + "'";
    }

    /** @return the pid a command wrote to {@code file}, once the whole line is there */
    private static long awaitPid(Path file) {
        await().atMost(PATIENCE).until(() -> Files.exists(file) && read(file).matches("\\d+\n"));
        return Long.parseLong(read(file).strip());
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ------------------------------------------------------------------ in-process runs

    @Test
    void drainsTwentyJobsThenExitsWhenIdle() {
        client.queue("q").enqueueAll(IntStream.range(0, 20).mapToObj(i -> JobRequest.of("job " + i)).toList());

        EmqRun run = emq("worker", "q", "--exec", "cat >/dev/null", "--exit-when-idle");

        assertThat(run.code()).as("stderr: %s", run.err()).isZero();
        assertThat(run.out()).isEmpty();
        QueueStats s = stats("q");
        assertThat(s.completed()).isEqualTo(20);
        assertThat(s.drained()).isTrue();
        assertThat(run.err()).startsWith("worker q: concurrency 4, lease 30000 ms, server ")
                .contains("worker q: stopped (queue drained): completed=20 retrying=0 dead=0 lost=0 running=0 "
                        + "returned=0\n");
    }

    @Test
    void printSettledReportsEachAnsweredSettleOnStdout() {
        assertThat(emq("queue", "enqueue", "q", "ok").out()).isEqualTo("1\n");
        assertThat(emq("queue", "enqueue", "q", "fails", "--max-attempts", "1").out()).isEqualTo("2\n");

        EmqRun run = emq("worker", "q", "--exec", "[ \"$EMQ_JOB_ID\" = 1 ]", "--exit-when-idle", "--print-settled");

        // a job went dead, so the drained worker says so in its exit code
        assertThat(run.code()).as("stderr: %s", run.err()).isEqualTo(ExitCodes.JOBS_DIED);
        assertThat(run.out().lines()).containsExactlyInAnyOrder("SETTLED 1 1 COMPLETED", "SETTLED 2 1 DEAD");
    }

    @Test
    void aFailingCommandFailsTheJobWithItsStderrAndExitStatus() {
        assertThat(emq("queue", "enqueue", "q", "payload", "--max-attempts", "1").out()).isEqualTo("1\n");

        EmqRun run = emq("worker", "q", "--exec", "echo boom >&2; exit 3", "--exit-when-idle");

        assertThat(run.code()).as("a dead job shows in the exit code; stderr: %s", run.err())
                .isEqualTo(ExitCodes.JOBS_DIED);
        assertThat(hget("q", "1", "state")).isEqualTo("dead");
        assertThat(hget("q", "1", "last_error")).isEqualTo("boom\nexit status 3");
        assertThat(stats("q").dead()).isEqualTo(1);
        assertThat(run.err()).contains("completed=0 retrying=0 dead=1 lost=0 running=0 returned=0");
        assertThat(emq("queue", "dead", "q").out()).endsWith("\tfailed on attempt 1 of 1\tboom\n");
    }

    @Test
    void aFailedAttemptIsRetriedWhileAttemptsAreLeft() {
        client.queue("q").setRetention(QueueRetention.defaults());   // keeps the completed hash to read
        client.queue("q").enqueue("x".getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withMaxAttempts(2).withBackoff(Duration.ofMillis(1), Duration.ofMillis(1)));
        Path marker = dir.resolve("second");
        // Fails on the first attempt, succeeds on the second.
        String command = "[ \"$EMQ_JOB_ATTEMPT\" = 2 ] && touch " + sh(marker) + " || exit 1";

        EmqRun run = emq("worker", "q", "--exec", command, "--exit-when-idle");

        assertThat(run.code()).as("stderr: %s", run.err()).isZero();
        assertThat(marker).exists();
        assertThat(hget("q", "1", "state")).isEqualTo("done");
        assertThat(hget("q", "1", "last_error")).isEqualTo("exit status 1");
        assertThat(run.err()).contains("completed=1 retrying=1 dead=0 lost=0");
    }

    @Test
    void eachCommandGetsItsPayloadOnStdinAndTheJobInItsEnvironment() {
        List<String> payloads = List.of("alpha", "beta\nwith a second line\n", "γάμμα ✓", "");
        List<String> ids = client.queue("files").enqueueAll(payloads.stream().map(JobRequest::of).toList())
                .stream().map(r -> r.id()).toList();
        String command = "cat > " + sh(dir) + "/\"$EMQ_JOB_ID\"; echo \"$EMQ_QUEUE $EMQ_JOB_ID $EMQ_JOB_ATTEMPT\"";

        EmqRun run = emq("worker", "files", "--exec", command, "--exit-when-idle", "--concurrency", "2");

        assertThat(run.code()).as("stderr: %s", run.err()).isZero();
        for (int i = 0; i < payloads.size(); i++) {
            assertThat(read(dir.resolve(ids.get(i)))).isEqualTo(payloads.get(i));
        }
        assertThat(run.out().lines().sorted().toList())
                .isEqualTo(ids.stream().map(id -> "files " + id + " 1").sorted().toList());
    }

    @Test
    void theLeaseIsExtendedWhileACommandOutlivesIt() {
        client.queue("slow").setRetention(QueueRetention.defaults());   // keeps the completed hash to read
        String id = client.queue("slow").enqueue("x");

        EmqRun run = emq("worker", "slow", "--exec", "sleep 1.5", "--lease", "300", "--exit-when-idle");

        assertThat(run.code()).as("stderr: %s", run.err()).isZero();
        assertThat(hget("slow", id, "state")).isEqualTo("done");
        assertThat(hget("slow", id, "attempts")).as("claimed once: the lease never ran out").isEqualTo("1");
        assertThat(stats("slow").completed()).isEqualTo(1);
        assertThat(run.err()).contains("lease 300 ms", "completed=1 retrying=0 dead=0 lost=0");
    }

    @Test
    void aLostLeaseKillsTheCommandAndItsChildren() throws Exception {
        String id = client.queue("q").enqueue("x");
        Path shPid = dir.resolve("sh.pid");
        Path sleepPid = dir.resolve("sleep.pid");
        Background worker = Background.start("worker", "q", "--lease", "300", "--exec",
                "echo $$ > " + sh(shPid) + "; sleep 60 & echo $! > " + sh(sleepPid) + "; wait");
        long shell = awaitPid(shPid);
        long child = awaitPid(sleepPid);
        assertThat(alive(shell)).isTrue();

        assertThat(emq("queue", "remove", "q", id, "--force", "--yes").out()).isEqualTo("REMOVED\n");

        await().atMost(PATIENCE).until(() -> !alive(shell) && !alive(child));
        EmqRun run = worker.stop();
        assertThat(run.code()).as("stderr: %s", run.err()).isZero();
        assertThat(run.err()).contains("lost=1");
    }

    @Test
    void aCommandPastItsTimeoutIsKilledWithItsChildrenAndTheJobRetriedThenDeadWithTimeout() {
        String id = client.queue("slow").enqueue("x",
                EnqueueOptions.defaults().withMaxAttempts(2).withBackoff(Duration.ofMillis(10), Duration.ofMillis(10)))
                .id();
        Path pids = dir.resolve("pids");
        // each attempt appends its shell's and its background child's pids, then waits for the child
        EmqRun run = emq("worker", "slow", "--lease", "5000", "--timeout", "400", "--exit-when-idle", "--exec",
                "sleep 60 & echo $$ $! >> " + sh(pids) + "; wait");

        assertThat(run.code()).as("stderr: %s", run.err()).isEqualTo(ExitCodes.JOBS_DIED);
        assertThat(run.err()).contains("lease 5000 ms, timeout 400 ms", "completed=0 retrying=1 dead=1 lost=0");
        assertThat(hget("slow", id, "state")).isEqualTo("dead");
        assertThat(hget("slow", id, "attempts")).isEqualTo("2");
        assertThat(String.valueOf(hget("slow", id, "last_error")))
                .startsWith("io.echomq.queue.JobTimeoutException: TIMEOUT: job " + id + " attempt 2");
        List<Long> started = java.util.Arrays.stream(read(pids).split("\\s+")).map(Long::parseLong).toList();
        assertThat(started).as("two attempts, a shell and a child each").hasSize(4);
        await().atMost(PATIENCE).until(() -> started.stream().noneMatch(WorkerCommandTest::alive));
    }

    @Test
    void aStopGivesUnfinishedLeasesBackAfterTheGrace() throws Exception {
        String id = client.queue("q").enqueue("x");
        Path pid = dir.resolve("pid");
        Background worker = Background.start("worker", "q", "--grace", "200", "--exec",
                "echo $$ > " + sh(pid) + "; exec sleep 60");
        long shell = awaitPid(pid);

        EmqRun run = worker.stop();

        assertThat(run.code()).as("stderr: %s", run.err()).isZero();
        assertThat(run.err()).contains("worker q: stopped (signal): completed=0 retrying=0 dead=0 lost=0 running=0 "
                + "returned=1\n");
        assertThat(alive(shell)).as("the command is killed before the worker returns").isFalse();
        QueueStats s = stats("q");
        assertThat(s.pending()).isEqualTo(1);
        assertThat(s.active()).isZero();
        assertThat(hget("q", id, "spent")).as("a returned lease spends no attempt").isEqualTo("0");
    }

    @Test
    void aStopLetsACommandFinishWithinTheGrace() throws Exception {
        client.queue("q").enqueue("x");
        Path pid = dir.resolve("pid");
        Background worker = Background.start("worker", "q", "--grace", "20000", "--exec",
                "echo $$ > " + sh(pid) + "; sleep 1");
        awaitPid(pid);

        EmqRun run = worker.stop();

        assertThat(run.code()).as("stderr: %s", run.err()).isZero();
        assertThat(run.err()).contains("stopped (signal): completed=1 retrying=0 dead=0 lost=0 running=0 returned=0");
        assertThat(stats("q").completed()).isEqualTo(1);
    }

    /** A worker running on another thread, through the same command tree as {@link Emq#main}. */
    record Background(WorkerCommand command, FutureTask<Integer> task, StringWriter out, StringWriter err) {
        static Background start(String... args) {
            CommandLine cli = Emq.commandLine(Map.of(RedisOptions.ENV, REDIS.url()));
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            cli.setOut(new PrintWriter(out, true));
            cli.setErr(new PrintWriter(err, true));
            WorkerCommand command = cli.getSubcommands().get("worker").getCommand();
            FutureTask<Integer> task = new FutureTask<>(() -> cli.execute(args));
            Thread t = new Thread(task, "test-worker");
            t.setDaemon(true);
            t.start();
            await().atMost(PATIENCE).until(() -> err.toString().contains(", server ") || task.isDone());
            return new Background(command, task, out, err);
        }

        /** Stops it as SIGTERM would and waits for it to return. */
        EmqRun stop() throws Exception {
            command.stop();
            int code = task.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            return new EmqRun(code, out.toString(), err.toString());
        }
    }

    // ------------------------------------------------------------------ separate JVMs

    /** Starts {@code emq args} as its own JVM, as {@code java -jar emq.jar args} would run. */
    private Process launch(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Emq.class.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectOutput(dir.resolve("jvm.out").toFile())
                .redirectError(dir.resolve("jvm.err").toFile());
        pb.environment().put(RedisOptions.ENV, REDIS.url());
        return pb.start();
    }

    @Test
    void asItsOwnProcessItExitsByItselfOnceTheQueueIsDrained() throws Exception {
        client.queue("q").enqueueAll(List.of(JobRequest.of("one"), JobRequest.of("two"), JobRequest.of("three")));

        Process p = launch("worker", "q", "--exec", "cat; echo", "--exit-when-idle");

        assertThat(p.waitFor(PATIENCE.toSeconds() * 2, TimeUnit.SECONDS)).as("the JVM exits by itself").isTrue();
        assertThat(p.exitValue()).as("stderr: %s", read(dir.resolve("jvm.err"))).isZero();
        assertThat(read(dir.resolve("jvm.out")).lines().sorted().toList()).isEqualTo(List.of("one", "three", "two"));
        assertThat(stats("q").completed()).isEqualTo(3);
    }

    @Test
    void asItsOwnProcessSigtermShutsDownGracefullyAndKillsTheCommand() throws Exception {
        String id = client.queue("q").enqueue("x");
        Path pid = dir.resolve("pid");

        Process p = launch("worker", "q", "--grace", "300", "--exec", "echo $$ > " + sh(pid) + "; exec sleep 60");
        long shell = awaitPid(pid);
        p.destroy();   // SIGTERM

        assertThat(p.waitFor(PATIENCE.toSeconds() * 2, TimeUnit.SECONDS)).as("the JVM exits").isTrue();
        String err = read(dir.resolve("jvm.err"));
        assertThat(p.exitValue()).as("stderr: %s", err).isEqualTo(143);
        assertThat(err).contains("worker q: concurrency 4, lease 30000 ms, server ",
                "worker q: stopped (signal): completed=0 retrying=0 dead=0 lost=0 running=0 returned=1");
        assertThat(alive(shell)).as("no orphaned command").isFalse();
        assertThat(stats("q").pending()).isEqualTo(1);
        assertThat(hget("q", id, "state")).isEqualTo("pending");
    }

    // ------------------------------------------------------------------ failures and help

    static Stream<Arguments> badInput() {
        return Stream.of(
                Arguments.of(new String[] {"worker", "q{x}", "--exec", "true"},
                        "emq worker: Invalid value for <queue>: queue name must not contain '{', '}', whitespace or "
                                + "control characters; found '{' at index 1 (see 'emq worker --help')"),
                Arguments.of(new String[] {"worker", "q", "--exec", "true", "--lease", "19"},
                        "emq worker: Invalid value for option '--lease': 19 is outside 20..86400000 milliseconds "
                                + "(see 'emq worker --help')"),
                Arguments.of(new String[] {"worker", "q", "--exec", "true", "--concurrency", "0"},
                        "emq worker: Invalid value for option '--concurrency': 0 is outside 1..10000 "
                                + "(see 'emq worker --help')"),
                Arguments.of(new String[] {"worker", "q", "--exec", "true", "--grace", "-1"},
                        "emq worker: Invalid value for option '--grace': -1 is outside 0..86400000 milliseconds "
                                + "(see 'emq worker --help')"),
                Arguments.of(new String[] {"worker", "q", "--exec", "true", "--timeout", "0"},
                        "emq worker: Invalid value for option '--timeout': 0 is outside 1..86400000 milliseconds "
                                + "(see 'emq worker --help')"),
                Arguments.of(new String[] {"worker", "q", "--exec", "true", "--timeout", "-5"},
                        "emq worker: Invalid value for option '--timeout': -5 is outside 1..86400000 milliseconds "
                                + "(see 'emq worker --help')"),
                Arguments.of(new String[] {"worker", "q", "--exec", " "},
                        "emq worker: --exec must not be empty (see 'emq worker --help')"),
                Arguments.of(new String[] {"worker", "q"},
                        "emq worker: Missing required option: '--exec=<shell command>' (see 'emq worker --help')"),
                Arguments.of(new String[] {"worker", "q", "--exec", "true", "--exit-when-idel"},
                        "emq worker: Unknown option: '--exit-when-idel' (see 'emq worker --help')"));
    }

    /** The URL points at a closed port: exit 2 proves the input was judged before Redis was touched. */
    @ParameterizedTest
    @MethodSource("badInput")
    void badInputExitsTwoBeforeRedisIsTouched(String[] args, String message) {
        EmqRun run = EmqRun.at("redis://127.0.0.1:" + EmqRun.closedPort(), args);

        assertThat(run.err()).isEqualTo(message + "\n");
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
    }

    @Test
    void unreachableRedisExitsThree() {
        int port = EmqRun.closedPort();

        EmqRun run = EmqRun.at("redis://127.0.0.1:" + port, "worker", "q", "--exec", "true");

        assertThat(run.code()).isEqualTo(3);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).startsWith("emq worker: cannot connect to 127.0.0.1:" + port).hasLineCount(1);
    }

    @Test
    void helpDocumentsTheOutputAndExitCodes() {
        EmqRun run = EmqRun.run(Map.of(), "worker", "--help");

        assertThat(run.code()).isZero();
        assertThat(run.out().replaceAll("\\s+", " ")).contains("EMQ_JOB_ID", "exit status N", "completed=N retrying=N dead=N lost=N running=N",
                "returned=N", "--exit-when-idle", "143", "130 (SIGINT)", "A second signal stops at once",
                "Exit codes:", " 2 bad input", " 3 Redis failure",
                " 7 with --exit-when-idle: the queue drained, but a job went dead");
        assertThat(run.out()).as("only the codes a worker can return").doesNotContain("  5 ", "  6 ", "  1 ");
        assertThat(Optional.ofNullable(EmqRun.run(Map.of(), "--help").out())).hasValueSatisfying(
                help -> assertThat(help).contains("worker", "queue"));
    }
}
