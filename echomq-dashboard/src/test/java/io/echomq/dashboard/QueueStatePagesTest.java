package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueRetention;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A queue's page shows the state an operator needs at a glance: its flow control and whether it
 * throttles the queue now, its cancelled jobs with their count, and why a list is empty when a
 * setting makes it so.
 */
class QueueStatePagesTest extends DashboardTestBase {
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void theFlowControlLineShowsTheSettingsAndWhetherTheQueueIsThrottledNow() {
        Queue q = client.queue("emails");
        for (int i = 0; i < 4; i++) {
            q.enqueue("e" + i);
        }
        assertThat(get("/queue?name=emails").body()).contains("Flow control: no rate limit, no cap",
                "Not throttled now");

        q.flowControl().setRateLimit(2, Duration.ofMinutes(1));
        q.flowControl().setConcurrencyCap(5);
        assertThat(get("/queue?name=emails").body()).contains("rate limit 2 jobs per 1 min (0 started in the "
                + "current window) · cap 5 active at once (0 active)", "Not throttled now");

        q.claim(2, LEASE);
        String full = get("/queue?name=emails").body();
        assertThat(full).contains("(2 started in the current window)", "throttled now",
                "its rate limit&#39;s window is full: 2 pending jobs wait");

        q.flowControl().clearRateLimit();
        q.flowControl().setConcurrencyCap(2);
        assertThat(get("/queue?name=emails").body()).contains("cap 2 active at once (2 active)", "throttled now",
                "it runs as many jobs as its cap allows");
        assertThat(get(readOnly, "/queue?name=emails").body()).as("read-only shows it too").contains("throttled now");
    }

    @Test
    void cancelledJobsHaveATabWithACountThoughTheDefaultKeepsNoHash() {
        Queue q = client.queue("emails");
        String waiting = q.enqueue("a");
        String running = q.enqueue("b");
        q.enqueue("c");
        q.cancel(waiting);
        Job job = q.claim(2, LEASE).stream().filter(j -> j.id().equals(running)).findFirst().orElseThrow();
        q.cancel(job.id());

        String page = get("/queue?name=emails").body();
        Matcher tab = Pattern.compile("state=cancelled\">cancelled <span>(\\d+)</span>").matcher(page);
        assertThat(tab.find()).as("a cancelled tab in %s", page).isTrue();
        assertThat(tab.group(1)).isEqualTo("2");
        String cancelled = get("/queue?name=emails&state=cancelled").body();
        assertThat(row(cancelled, waiting)).isNotEmpty();
        assertThat(row(cancelled, running)).isNotEmpty();
        assertThat(cancelled).contains("By time of the cancel, oldest first");
    }

    @Test
    void anEmptyListSaysWhyWhenASettingMakesItEmpty() {
        Queue q = client.queue("emails");
        q.enqueue("a");
        q.claim(LEASE).orElseThrow().complete();
        assertThat(get("/queue?name=emails&state=done").body()).contains("No done jobs. This queue keeps no completed "
                + "jobs: it stores no retention settings, so a job&#39;s hash is deleted when it completes (1 completed "
                + "so far). Set emq queue retention emails --done-max &lt;n&gt; --done-age &lt;ms&gt;");

        q.setRetention(QueueRetention.defaults().withDoneMax(0).withDeadMax(0));
        assertThat(get("/queue?name=emails&state=done").body()).contains("keeps no completed jobs (retention done-max 0)");
        assertThat(get("/queue?name=emails&state=dead").body()).contains("No dead jobs. This queue keeps no dead jobs "
                + "(retention dead-max 0)");

        q.enqueue("b");
        q.pause();
        assertThat(get("/queue?name=emails&state=active").body()).contains("No active jobs. The queue is paused");

        client.queue("quiet").enqueue("x");
        client.queue("quiet").setRetention(QueueRetention.defaults());
        assertThat(get("/queue?name=quiet&state=dead").body()).as("empty for no setting: no reason given")
                .contains("No dead jobs.</p>");
        assertThat(get("/queue?name=quiet&state=done").body()).contains("No done jobs.</p>");
    }
}
