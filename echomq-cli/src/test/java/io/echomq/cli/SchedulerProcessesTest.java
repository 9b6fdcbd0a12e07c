package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.Schedule;
import io.echomq.queue.ScheduleSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code emq scheduler} processes on one every-second schedule: exactly one job per second,
 * and one of them {@code kill -9}ed mid-run loses nothing and doubles nothing. The run lasts about
 * ten seconds of fire times (not twenty, to keep the suite's budget); the schedulers then stop on
 * SIGTERM with exit code 143.
 */
@Timeout(180)
class SchedulerProcessesTest extends QueueCliTestBase {
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @TempDir
    Path dir;
    private final List<Process> launched = new ArrayList<>();

    @Test
    void threeSchedulersOneKilledMakeExactlyOneJobPerSecond() throws Exception {
        client.schedules("q").upsert(Schedule.of("beat", ScheduleSpec.every(Duration.ofSeconds(1)), "tick"));
        List<Process> jvms = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            jvms.add(launch(i, "scheduler", "q", "--poll", "200"));
        }
        await().atMost(PATIENCE).until(() -> fireTimes().size() >= 4);
        jvms.get(0).destroyForcibly();   // SIGKILL: no shutdown of any kind
        assertThat(jvms.get(0).waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(jvms.get(0).exitValue()).isEqualTo(137);
        int atKill = fireTimes().size();
        await().atMost(PATIENCE).until(() -> fireTimes().size() >= atKill + 6);
        for (Process jvm : jvms.subList(1, 3)) {
            jvm.destroy();   // SIGTERM
        }
        for (int i = 1; i < 3; i++) {
            assertThat(jvms.get(i).waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(jvms.get(i).exitValue()).as(err(i)).isEqualTo(143);
            assertThat(err(i)).contains("scheduler: stopped (signal): created=");
        }

        TreeMap<Long, Integer> fired = fireTimes();
        List<Long> times = new ArrayList<>(fired.keySet());
        assertThat(times.size()).isGreaterThanOrEqualTo(10);
        fired.forEach((t, n) -> assertThat(n).as("jobs for fire time %d", t).isEqualTo(1));
        for (int i = 1; i < times.size(); i++) {
            assertThat(times.get(i) - times.get(i - 1)).as("one job per second, none lost, at %d", times.get(i))
                    .isEqualTo(1000);
        }
        assertThat(client.queue("q").stats().pending()).isEqualTo(times.size());
    }

    /** @return fire time (ms) → jobs fired for it, read from the jobs' idempotency keys */
    private static TreeMap<Long, Integer> fireTimes() {
        TreeMap<Long, Integer> out = new TreeMap<>();
        Object seq = REDIS.raw().call("GET", "emq:{q}:seq");
        long n = seq == null ? 0 : Long.parseLong(seq.toString());
        for (long i = 1; i <= n; i++) {
            Object idem = REDIS.raw().call("HGET", "emq:{q}:job:" + i, "idem");
            if (idem != null && idem.toString().startsWith("schedule:beat:")) {
                out.merge(Long.parseLong(idem.toString().substring("schedule:beat:".length())), 1, Integer::sum);
            }
        }
        return out;
    }

    private Process launch(int i, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Emq.class.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectOutput(dir.resolve(i + ".out").toFile())
                .redirectError(dir.resolve(i + ".err").toFile());
        pb.environment().put(RedisOptions.ENV, REDIS.url());
        Process jvm = pb.start();
        launched.add(jvm);
        return jvm;
    }

    private String err(int i) throws IOException {
        return Files.readString(dir.resolve(i + ".err"));
    }

    /** No scheduler JVM outlives its test. */
    @AfterEach
    void stopLaunched() throws InterruptedException {
        for (Process jvm : launched) {
            jvm.destroyForcibly();
            jvm.waitFor(10, TimeUnit.SECONDS);
        }
        launched.clear();
    }
}
