package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueLayout;
import io.echomq.queue.SettleOutcome;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code emq queue pause|resume|cancel|layout}: their output, exit codes, and what they change. */
class QueueControlCliTest extends QueueCliTestBase {
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void pauseAndResumeAnswerWhatTheyChangedAndStatsShowsIt() {
        Queue q = client.queue("q");
        q.enqueue("x");

        assertThat(emq("queue", "pause", "q")).isEqualTo(new EmqRun(0, "PAUSED\n", ""));
        assertThat(emq("queue", "pause", "q")).isEqualTo(new EmqRun(0, "ALREADY_PAUSED\n", ""));
        assertThat(q.isPaused()).isTrue();
        assertThat(q.claim(LEASE)).isEmpty();
        assertThat(emq("queue", "stats", "q").out()).contains(" paused=1 ").startsWith("pending=1 ");

        assertThat(emq("queue", "resume", "q")).isEqualTo(new EmqRun(0, "RESUMED\n", ""));
        assertThat(emq("queue", "resume", "q")).isEqualTo(new EmqRun(0, "NOT_PAUSED\n", ""));
        assertThat(emq("queue", "stats", "q").out()).contains(" paused=0 ");
        assertThat(q.claim(LEASE)).isPresent();
    }

    @Test
    void cancelAnswersEachOutcomeWithItsExitCode() {
        Queue q = client.queue("q");
        String waiting = q.enqueue("waiting");
        String running = q.enqueue("running");
        Job held = q.claim(LEASE).orElseThrow();   // the oldest: "waiting" is claimed first
        String heldId = held.id();
        String other = heldId.equals(waiting) ? running : waiting;

        assertThat(emq("queue", "cancel", "q", other)).isEqualTo(new EmqRun(0, "CANCELLED\n", ""));
        assertThat(emq("queue", "cancel", "q", heldId)).isEqualTo(new EmqRun(0, "SIGNALLED\n", ""));
        assertThat(held.complete()).isEqualTo(SettleOutcome.CANCELLED);
        assertThat(emq("queue", "cancel", "q", heldId)).isEqualTo(new EmqRun(1, "ALREADY_FINISHED\n", ""));
        assertThat(emq("queue", "cancel", "q", "404")).isEqualTo(new EmqRun(1, "NOT_FOUND\n", ""));
        assertThat(emq("queue", "inspect", "q", heldId).out()).contains("state=cancelled");
    }

    @Test
    void aShardedQueueIsPausedAndCancelledThroughItsPartitions() {
        assertThat(emq("queue", "enqueue", "s", "x", "--partitions", "2").code()).isZero();
        String id = emq("queue", "enqueue", "s", "y").out().strip();

        assertThat(emq("queue", "pause", "s")).isEqualTo(new EmqRun(0, "PAUSED\n", ""));
        assertThat(emq("queue", "stats", "s").out().lines()).allMatch(l -> l.contains(" paused=1"));
        assertThat(emq("queue", "cancel", "s", id)).isEqualTo(new EmqRun(0, "CANCELLED\n", ""));
        assertThat(emq("queue", "cancel", "s", "7")).satisfies(run -> {
            assertThat(run.code()).isEqualTo(2);
            assertThat(run.err()).contains("<partition>-<id>");
        });
        assertThat(emq("queue", "resume", "s")).isEqualTo(new EmqRun(0, "RESUMED\n", ""));
    }

    @Test
    void badInputExitsTwoBeforeRedisIsTouched() {
        String url = "redis://127.0.0.1:" + EmqRun.closedPort();
        EmqRun badQueue = EmqRun.at(url, "queue", "pause", "a{b}");
        assertThat(badQueue.code()).isEqualTo(2);
        assertThat(badQueue.err()).startsWith("emq queue pause: ");
        assertThat(EmqRun.at(url, "queue", "resume", "bad name").code()).isEqualTo(2);
        EmqRun badId = EmqRun.at(url, "queue", "cancel", "q", "7:lock");
        assertThat(badId.code()).isEqualTo(2);
        assertThat(badId.err()).startsWith("emq queue cancel: ");
        EmqRun noId = EmqRun.at(url, "queue", "cancel", "q");
        assertThat(noId.err()).isEqualTo("emq queue cancel: Missing required parameter: '<id>' "
                + "(see 'emq queue cancel --help')\n");
        assertThat(noId.code()).isEqualTo(2);
    }

    @Test
    void eachCommandDocumentsItsOutputAndExitCodes() {
        EmqRun pause = EmqRun.run(java.util.Map.of(), "queue", "pause", "--help");
        assertThat(pause.out()).contains("ALREADY_PAUSED", "  0  PAUSED or ALREADY_PAUSED").doesNotContain("  1  ");
        EmqRun resume = EmqRun.run(java.util.Map.of(), "queue", "resume", "--help");
        assertThat(resume.out()).contains("  0  RESUMED or NOT_PAUSED").doesNotContain("  1  ");
        EmqRun cancel = EmqRun.run(java.util.Map.of(), "queue", "cancel", "--help");
        assertThat(cancel.out()).contains("  0  CANCELLED or SIGNALLED", "  1  ALREADY_FINISHED or NOT_FOUND");
    }

    @Test
    void layoutShowsTheStoredLayoutAndASwitchSaysWhatItMoved() {
        Queue q = client.queue("q");
        q.enqueue("a");
        q.enqueue("b");

        assertThat(emq("queue", "layout", "q")).isEqualTo(new EmqRun(0, "layout=list\n", ""));
        assertThat(emq("queue", "layout", "q", "zset")).isEqualTo(new EmqRun(0, "layout=zset changed=yes moved=2\n", ""));
        assertThat(emq("queue", "layout", "q", "ZSET")).isEqualTo(new EmqRun(0, "layout=zset changed=no moved=0\n", ""));
        assertThat(q.layout()).isEqualTo(QueueLayout.ZSET);
        assertThat(emq("queue", "layout", "q")).isEqualTo(new EmqRun(0, "layout=zset\n", ""));
        assertThat(emq("queue", "layout", "q", "list")).isEqualTo(new EmqRun(0, "layout=list changed=yes moved=0\n", ""));
        assertThat(q.layout()).isEqualTo(QueueLayout.LIST);

        assertThat(emq("queue", "enqueue", "s", "x", "--partitions", "2").code()).isZero();
        assertThat(emq("queue", "layout", "s", "zset").out()).isEqualTo("layout=zset changed=yes moved=1\n");
        assertThat(client.open("s").layout()).isEqualTo(QueueLayout.ZSET);
    }

    @Test
    void anUnknownLayoutExitsTwoBeforeRedisIsTouched() {
        EmqRun bad = EmqRun.at("redis://127.0.0.1:" + EmqRun.closedPort(), "queue", "layout", "q", "sorted");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).startsWith("emq queue layout: Invalid value for <layout>: 'sorted' (expected list or zset)");
        EmqRun help = EmqRun.run(java.util.Map.of(), "queue", "layout", "--help");
        assertThat(help.out()).contains("list", "zset", "ZPOPMIN", "  0  the layout was printed");
    }

    @Test
    void workersListsTheLiveWorkersFromTheirHeartbeats() throws Exception {
        client.queue("q").enqueue("held");
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        assertThat(emq("queue", "workers", "q")).isEqualTo(new EmqRun(0, "", "workers=0\n"));
        try (io.echomq.queue.Worker w = client.worker("q", job -> release.await(10, java.util.concurrent.TimeUnit.SECONDS))
                .concurrency(3).maintenanceInterval(Duration.ofMillis(50)).start()) {
            long deadline = System.nanoTime() + 15_000_000_000L;
            EmqRun run = emq("queue", "workers", "q");
            while (!run.out().contains(" jobs=1")) {
                assertThat(System.nanoTime()).as("the worker's heartbeat, holding its job: %s", run).isLessThan(deadline);
                Thread.sleep(20);
                run = emq("queue", "workers", "q");
            }
            long pid = ProcessHandle.current().pid();
            assertThat(run.code()).isZero();
            assertThat(run.err()).isEqualTo("workers=1\n");
            assertThat(run.out()).matches("[A-Za-z0-9._-]+-" + pid + "-[0-9]+ host=[A-Za-z0-9._-]+ pid=" + pid + " name="
                    + java.util.regex.Pattern.quote(w.toString())
                    + " concurrency=3 in_hand=1 since_beat_ms=[0-9]+ started=[0-9T:.-]+Z paused=no jobs=1\n");
            release.countDown();
        }
        assertThat(emq("queue", "workers", "q")).isEqualTo(new EmqRun(0, "", "workers=0\n"));
    }
}
