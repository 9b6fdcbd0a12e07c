package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueEventSettings;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code emq queue events} prints one line per event, follows new ones until stopped;
 * {@code event-settings} stores the switch; {@code queue wait} answers each end with its own exit
 * code; an {@code --exec} worker stores the command's stdout, cut at 16 KiB, as the result.
 */
@Timeout(60)
class QueueEventsCliTest extends QueueCliTestBase {
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void eventsPrintsTheKeptOnesOneALineAndExits() {
        Queue q = client.queue("mail");
        String id = q.enqueue("a");
        Job job = q.claim(LEASE).orElseThrow();
        job.fail("smtp said: no \"way\"");
        EmqRun run = emq("queue", "events", "mail");
        assertThat(run.code()).as(run.err()).isZero();
        String[] lines = run.out().split("\n");
        assertThat(lines).hasSize(2);
        assertThat(lines[0]).matches("\\d+-\\d+ active " + id + " 1");
        assertThat(lines[1]).matches("\\d+-\\d+ retrying " + id + " 1 reason=\"smtp said: no \\\\\"way\\\\\"\" delay_ms=\\d+");

        String after = lines[0].split(" ")[0];
        EmqRun rest = emq("queue", "events", "mail", "--from", after);
        assertThat(rest.out()).as("only what follows the id").isEqualTo(lines[1] + "\n");
        assertThat(emq("queue", "events", "mail", "--from", "yesterday").code()).isEqualTo(ExitCodes.BAD_INPUT);
    }

    @Test
    void followPrintsNewEventsUntilStopped() {
        Queue q = client.queue("mail");
        CommandLine cli = Emq.commandLine(Map.of(RedisOptions.ENV, REDIS.url()), InputStream.nullInputStream());
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(new StringWriter(), true));
        CompletableFuture<Integer> code = CompletableFuture.supplyAsync(
                () -> cli.execute("queue", "events", "mail", "--follow", "--from", "0"));
        String id = q.enqueue("a");
        q.claim(LEASE).orElseThrow().complete();
        await().atMost(Duration.ofSeconds(10)).until(() -> out.toString().contains(" completed " + id + " 1\n"));
        String id2 = q.enqueue("b", EnqueueOptions.defaults()).id();
        q.cancel(id2);
        await().atMost(Duration.ofSeconds(10)).until(() -> out.toString().contains(" cancelled " + id2 + " 0 "));
        QueueEventsCommand cmd = cli.getSubcommands().get("queue").getSubcommands().get("events").getCommand();
        cmd.stop();
        assertThat(code.join()).isZero();
        assertThat(out.toString().split("\n")).hasSize(3);
    }

    @Test
    void eventSettingsShowsAndStoresTheSwitch() {
        assertThat(emq("queue", "event-settings", "mail").err()).contains("no such queue 'mail'");
        EmqRun shown = emq("queue", "event-settings", "mail", "--create");
        assertThat(shown.out()).isEqualTo("events=on max=10000 enqueued=off\n");
        EmqRun set = emq("queue", "event-settings", "mail", "--max", "50", "--enqueued", "on", "--create");
        assertThat(set.out()).isEqualTo("events=on max=50 enqueued=on\n");
        assertThat(QueueEventSettings.read(client, "mail"))
                .isEqualTo(QueueEventSettings.defaults().withMaxLength(50).withEnqueued(true));
        assertThat(emq("queue", "event-settings", "mail", "--off").out()).isEqualTo("events=off max=0 enqueued=on\n");
        client.queue("mail").enqueue("x");
        client.queue("mail").claim(LEASE).orElseThrow().complete();
        assertThat(emq("queue", "events", "mail").out()).as("nothing written while off").isEmpty();
        assertThat(emq("queue", "event-settings", "mail", "--on").out()).isEqualTo("events=on max=10000 enqueued=on\n");
        assertThat(emq("queue", "event-settings", "mail", "--off", "--max", "5").code()).isEqualTo(ExitCodes.BAD_INPUT);
    }

    @Test
    void anExecWorkersStdoutIsTheResultAndWaitAnswersEachEndWithItsCode() throws Exception {
        Queue q = client.queue("mail");
        String shout = q.enqueue("hello");
        String big = q.enqueue("big");
        String doomed = q.enqueue("doom", EnqueueOptions.defaults().withMaxAttempts(1)).id();
        EmqRun worker = emq("worker", "mail", "--exit-when-idle", "--exec",
                "case $EMQ_JOB_ID in " + shout + ") tr a-z A-Z ;; " + big + ") head -c 20000 /dev/zero | tr '\\0' a ;; "
                        + "*) echo no >&2; exit 5 ;; esac");
        assertThat(worker.code()).as(worker.err()).isEqualTo(ExitCodes.JOBS_DIED);

        EmqRun done = emq("queue", "wait", "mail", shout, "--timeout", "0");
        assertThat(done.code()).isZero();
        assertThat(done.out()).isEqualTo("COMPLETED result=\"HELLO\\n\"\n");
        assertThat(q.awaitResult(big, Duration.ZERO).result()).as("cut at the limit").hasSize(16 * 1024);

        EmqRun dead = emq("queue", "wait", "mail", doomed, "--timeout", "0");
        assertThat(dead.code()).isEqualTo(ExitCodes.JOB_DEAD);
        assertThat(dead.out()).isEqualTo("DEAD reason=\"failed on attempt 1 of 1\"\n");
        String pending = q.enqueue("later");
        EmqRun timedOut = emq("queue", "wait", "mail", pending, "--timeout", "200");
        assertThat(timedOut.code()).isEqualTo(ExitCodes.TIMED_OUT);
        assertThat(timedOut.out()).isEqualTo("TIMED_OUT\n");
        assertThat(emq("queue", "wait", "mail", "424242", "--timeout", "0").out()).isEqualTo("NOT_FOUND\n");
    }
}
