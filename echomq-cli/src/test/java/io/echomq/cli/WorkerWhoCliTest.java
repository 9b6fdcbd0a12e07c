package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Who runs what from the command line: {@code emq worker --name}, the workers' ids and held jobs
 * in {@code emq queue workers}, the worker and running time of each job in
 * {@code emq queue list --state active}, and a worker on a paused queue saying so.
 */
@Timeout(120)
class WorkerWhoCliTest extends QueueCliTestBase {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Test
    void activeJobsShowTheirWorkerAndRunningTimeLongestFirstAndWorkersShowTheirJobs() throws Exception {
        String first = client.queue("q").enqueue("a");
        var one = WorkerCommandTest.Background.start("worker", "q", "--name", "billing", "--concurrency", "1",
                "--lease", "120000", "--grace", "0", "--exec", "exec sleep 60");
        await().atMost(PATIENCE).until(() -> client.queue("q").stats().active() == 1);
        String second = client.queue("q").enqueue("b");
        var two = WorkerCommandTest.Background.start("worker", "q", "--name", "billing", "--concurrency", "1",
                "--lease", "30000", "--grace", "0", "--exec", "exec sleep 60");
        try {
            await().atMost(PATIENCE).until(() -> emq("queue", "workers", "q").out().split("jobs=[0-9]").length == 3);
            EmqRun workers = emq("queue", "workers", "q");
            assertThat(workers.err()).isEqualTo("workers=2\n");
            String idOne = idIn(one.err().toString());
            String idTwo = idIn(two.err().toString());
            assertThat(idOne).as("two processes' workers of one name have their own ids").isNotEqualTo(idTwo);
            assertThat(workers.out()).contains(idOne + " ", " name=billing ", "paused=no jobs=" + first + "\n",
                    idTwo + " ", "paused=no jobs=" + second + "\n");

            EmqRun active = emq("queue", "list", "q", "--state", "active");
            List<String> lines = Arrays.asList(active.out().split("\n"));
            assertThat(lines).as("the first claimed runs longest: listed first, though its deadline is later")
                    .hasSize(2);
            assertThat(lines.get(0)).startsWith(first + "\tactive\t").endsWith("\tworker=billing@" + idOne)
                    .containsPattern("\trunning_for=[0-9]+\\.[0-9]s\t");
            assertThat(lines.get(1)).startsWith(second + "\tactive\t").endsWith("\tworker=billing@" + idTwo);
            assertThat(runningFor(lines.get(0))).isGreaterThanOrEqualTo(runningFor(lines.get(1)));
        } finally {
            one.stop();
            two.stop();
        }
    }

    @Test
    void aWorkerOnAPausedQueueSaysSoAndSaysWhenItIsResumed() throws Exception {
        client.queue("q").enqueue("x");
        client.queue("q").pause();
        var worker = WorkerCommandTest.Background.start("worker", "q", "--exec", "true");
        try {
            assertThat(worker.err().toString()).contains(
                    "worker q: queue q is paused: claiming nothing until it is resumed (emq queue resume q)\n");
            await().atMost(PATIENCE).until(() -> emq("queue", "workers", "q").out().contains(" paused=yes "));
            client.queue("q").resume();
            await().atMost(PATIENCE).until(() -> worker.err().toString().contains(
                    "worker q: queue q is resumed: claiming again\n"));
            await().atMost(PATIENCE).until(() -> client.queue("q").stats().completed() == 1);
        } finally {
            worker.stop();
        }
    }

    @Test
    void aBadNameExitsTwo() {
        EmqRun run = EmqRun.at("redis://127.0.0.1:" + EmqRun.closedPort(), "worker", "q", "--name", " ",
                "--exec", "true");
        assertThat(run.err()).isEqualTo("emq worker: Invalid value for option '--name': a worker's name must be 1..100 "
                + "characters, not blank, with no control character; was \" \" (see 'emq worker --help')\n");
        assertThat(run.code()).as("judged before Redis (a closed port) is touched").isEqualTo(2);
    }

    private static String idIn(String err) {
        Matcher m = Pattern.compile(", worker billing@(\\S+)\n").matcher(err);
        assertThat(m.find()).as("the start line names the worker: %s", err).isTrue();
        return m.group(1);
    }

    private static double runningFor(String line) {
        Matcher m = Pattern.compile("\trunning_for=([0-9.]+)s\t").matcher(line);
        assertThat(m.find()).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
