package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.Worker;
import io.echomq.queue.WorkerDirectory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Who runs what on the dashboard: the active tab's running time and worker (longest running
 * first), the job page's worker, and the workers page's job ids, ids and paused badge.
 */
class WhoRunsPageTest extends DashboardTestBase {
    private static final Duration WAIT = Duration.ofSeconds(15);

    @Test
    void theActiveTabAndTheJobPageNameEachJobsWorkerAndTheWorkersPageItsJobs() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        String first = client.queue("emails").enqueue("a");
        Worker one = client.worker("emails", job -> release.await(20, TimeUnit.SECONDS)).name("billing").concurrency(1)
                .lease(Duration.ofMinutes(2)).maintenanceInterval(Duration.ofMillis(50)).start();
        Worker two = null;
        try {
            until(WAIT, () -> client.queue("emails").stats().active() == 1);
            String second = client.queue("emails").enqueue("b");
            two = client.worker("emails", job -> release.await(20, TimeUnit.SECONDS)).name("billing").concurrency(1)
                    .lease(Duration.ofSeconds(30)).maintenanceInterval(Duration.ofMillis(50)).start();
            until(WAIT, () -> WorkerDirectory.holders(WorkerDirectory.of(client).list("emails")).size() == 2);

            String active = get("/queue?name=emails&state=active").body();
            // Id, attempts, priority, running for, worker, claimed, lease deadline
            List<String> a = row(active, first);
            List<String> b = row(active, second);
            assertThat(a.get(3)).matches("[0-9]+\\.[0-9] s");
            assertThat(a.get(4)).isEqualTo("billing@" + one.id());
            assertThat(b.get(4)).isEqualTo("billing@" + two.id());
            assertThat(active).contains("<th class=\"n\">Running for</th><th>Worker</th>", "By running time, longest first");
            assertThat(active.indexOf(">" + first + "</a>")).as("the first claimed runs longest: listed first, "
                    + "though its lease deadline is the later one").isLessThan(active.indexOf(">" + second + "</a>"));

            String job = get("/job?queue=emails&id=" + first).body();
            assertThat(fact(job, "Worker")).isEqualTo("billing@" + one.id());
            assertThat(job).contains("<a href=\"/workers?queue=emails\"");
            assertThat(fact(job, "Running for")).matches("[0-9]+\\.[0-9] s");

            String workers = get("/workers?queue=emails").body();
            assertThat(workers).contains("<td class=\"worker-id\">" + one.id() + "</td><td class=\"held\"><a href=\""
                    + "/job?queue=emails&amp;id=" + first + "\">" + first + "</a></td>");
            assertThat(workers).contains("<td class=\"worker-id\">" + two.id() + "</td><td class=\"held\"><a href=\""
                    + "/job?queue=emails&amp;id=" + second + "\">" + second + "</a></td>");
            assertThat(workers).doesNotContain(">paused</span>");
        } finally {
            release.countDown();
            one.close();
            if (two != null) {
                two.close();
            }
        }
        String done = get("/queue?name=emails&state=active").body();
        assertThat(done).contains("No active jobs.");
    }

    @Test
    void aWorkerOnAPausedQueueIsShownPaused() {
        client.queue("reports").enqueue("r");
        client.queue("reports").pause();
        try (Worker w = client.worker("reports", job -> { }).maintenanceInterval(Duration.ofMillis(50))
                .idlePoll(Duration.ofMillis(100)).start()) {
            until(WAIT, () -> get("/workers?queue=reports").body().contains(">paused</span>"));
            assertThat(row(get("/workers?queue=reports").body(), "reports").get(3)).isEqualTo(w.name() + " paused");
            client.queue("reports").resume();
            until(WAIT, () -> !get("/workers?queue=reports").body().contains(">paused</span>"));
        }
    }

    @Test
    void aJobNoLiveWorkerListsSaysWhyItShowsNone() {
        String id = client.queue("emails").enqueue("a");
        client.queue("emails").claim(Duration.ofSeconds(30)).orElseThrow();
        assertThat(fact(get("/job?queue=emails&id=" + id).body(), "Worker")).isEqualTo(WhoRuns.NO_WORKER);
        assertThat(row(get("/queue?name=emails&state=active").body(), id).get(4)).isEqualTo("—");
    }

    @Test
    void durationsReadCoarsely() {
        assertThat(WhoRuns.duration(Duration.ofMillis(400))).isEqualTo("0.4 s");
        assertThat(WhoRuns.duration(Duration.ofSeconds(42))).isEqualTo("42 s");
        assertThat(WhoRuns.duration(Duration.ofSeconds(185))).isEqualTo("3 min 5 s");
        assertThat(WhoRuns.duration(Duration.ofMinutes(130))).isEqualTo("2 h 10 min");
    }

    /** Polls {@code done} every 20 ms until it holds, or fails after {@code atMost}. */
    private static void until(Duration atMost, java.util.function.BooleanSupplier done) {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + atMost);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** @return the text of the job page's fact named {@code term}, tags stripped and entities read back */
    private static String fact(String html, String term) {
        Matcher m = Pattern.compile("<dt>" + Pattern.quote(term) + "</dt><dd>(.*?)</dd>").matcher(html);
        assertThat(m.find()).as("a fact '%s' in %s", term, html).isTrue();
        return m.group(1).replaceAll("<[^>]+>", "").replace("&amp;", "&").replace("&#39;", "'").replace("&quot;", "\"");
    }
}
