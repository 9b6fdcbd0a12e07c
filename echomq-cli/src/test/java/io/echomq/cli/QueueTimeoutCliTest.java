package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.EnqueueOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code emq queue enqueue --timeout} and {@code emq queue timeout} against a real server: the
 * job's own timeout and the queue's default end an {@code emq worker --exec} command that has no
 * {@code --timeout} of its own, killing its process group.
 */
@Timeout(120)
class QueueTimeoutCliTest extends QueueCliTestBase {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private static Object hget(String queue, String id, String field) {
        return REDIS.raw().call("HGET", "emq:{" + queue + "}:job:" + id, field);
    }

    /** Runs a worker with no --timeout of its own until the queue is drained; each command records its pids. */
    private EmqRun drainWithHangingCommands(String queue, Path pids) {
        String file = "'" + pids.toString().replace("'", "'\\''") + "'";
        return emq("worker", queue, "--lease", "5000", "--exit-when-idle", "--exec",
                "sleep 60 & echo $$ $! >> " + file + "; wait");
    }

    private static void assertAllGone(Path pids, int count) {
        String text;
        try {
            text = Files.readString(pids);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Long> started = Arrays.stream(text.trim().split("\\s+")).map(Long::parseLong).toList();
        assertThat(started).as("a shell and its child per job").hasSize(count);
        await().atMost(PATIENCE).until(() -> started.stream()
                .noneMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)));
    }

    /** One worker run without --timeout: a job with its own 300 ms, and one under the queue's default of 250 ms. */
    @Test
    void aJobsOwnTimeoutAndTheQueueDefaultKillTheirCommandsOnAWorkerWithoutOne() {
        assertThat(emq("queue", "timeout", "slow", "250", "--create")).isEqualTo(new EmqRun(0, "timeout=250\n", ""));
        EmqRun enqueued = emq("queue", "enqueue", "slow", "x", "--timeout", "300", "--max-attempts", "1");
        assertThat(enqueued.code()).as("stderr: %s", enqueued.err()).isZero();
        String own = enqueued.out().trim();
        String byDefault = emq("queue", "enqueue", "slow", "y", "--max-attempts", "1").out().trim();
        assertThat(hget("slow", own, "timeout_ms")).isEqualTo("300");
        assertThat(hget("slow", byDefault, "timeout_ms")).as("the default is the queue's, not copied into the job")
                .isNull();
        Path pids = dir.resolve("pids");

        EmqRun run = drainWithHangingCommands("slow", pids);
        assertThat(run.code()).as("stderr: %s", run.err()).isEqualTo(ExitCodes.JOBS_DIED);
        assertThat(run.err()).contains("completed=0 retrying=0 dead=2 lost=0");
        assertThat(String.valueOf(hget("slow", own, "last_error")))
                .startsWith("io.echomq.queue.JobTimeoutException: TIMEOUT: job " + own + " attempt 1 ran past its "
                        + "timeout of 300 ms");
        assertThat(String.valueOf(hget("slow", byDefault, "last_error")))
                .startsWith("io.echomq.queue.JobTimeoutException: TIMEOUT: job " + byDefault + " attempt 1 ran past "
                        + "its timeout of 250 ms");
        assertAllGone(pids, 4);
    }

    @Test
    void theQueueDefaultIsShownSetAndCleared() {
        client.queue("q").enqueue("x");
        assertThat(emq("queue", "timeout", "q")).isEqualTo(new EmqRun(0, "timeout=none\n", ""));
        assertThat(emq("queue", "timeout", "q", "250")).isEqualTo(new EmqRun(0, "timeout=250\n", ""));
        assertThat(emq("queue", "timeout", "q")).isEqualTo(new EmqRun(0, "timeout=250\n", ""));
        assertThat(client.queue("q").defaultTimeout()).contains(Duration.ofMillis(250));
        assertThat(emq("queue", "timeout", "q", "--clear")).isEqualTo(new EmqRun(0, "CLEARED\n", ""));
        assertThat(emq("queue", "timeout", "q", "--clear")).isEqualTo(new EmqRun(0, "NOT_SET\n", ""));
        assertThat(emq("queue", "timeout", "q")).isEqualTo(new EmqRun(0, "timeout=none\n", ""));
        assertThat(client.queue("q").defaultTimeout()).isEmpty();
    }

    @Test
    void badTimeoutsExit2WithNothingWritten() {
        assertThat(QueueTimeoutCommand.MAX_MS).isEqualTo(EnqueueOptions.MAX_TIMEOUT.toMillis());
        EmqRun zero = emq("queue", "timeout", "q", "0");
        assertThat(zero.code()).isEqualTo(2);
        assertThat(zero.err()).contains("Invalid value for option '<ms>': 0 is outside 1..86400000 milliseconds");
        assertThat(emq("queue", "timeout", "q", "86400001").code()).isEqualTo(2);
        assertThat(emq("queue", "timeout", "q", "-5").code()).isEqualTo(2);
        assertThat(emq("queue", "timeout", "q", "abc").code()).isEqualTo(2);
        EmqRun both = emq("queue", "timeout", "q", "500", "--clear");
        assertThat(both.code()).isEqualTo(2);
        assertThat(both.err()).contains("give either <ms> or --clear, not both");
        EmqRun enqueue = emq("queue", "enqueue", "q", "x", "--timeout", "0");
        assertThat(enqueue.code()).isEqualTo(2);
        assertThat(enqueue.err()).contains("Invalid value for option '--timeout': 0 is outside 1..86400000 "
                + "milliseconds");
        assertThat(emq("queue", "enqueue", "q", "x", "--timeout", "86400001").code()).isEqualTo(2);
        assertThat(REDIS.raw().call("DBSIZE")).isEqualTo(0L);
    }
}
