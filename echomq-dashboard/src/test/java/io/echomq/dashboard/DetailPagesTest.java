package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.lock.Lease;
import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.JobTimeline;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueRetention;
import io.echomq.queue.QueueEventSettings;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A job's timeline, a lock's own page and "redrive selected", over real HTTP: what each shows
 * after a known sequence, what the selection changes in Redis (read back through the core API),
 * the token, CSRF and read-only rules of the new action, and bad input.
 */
class DetailPagesTest extends DashboardTestBase {
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void aJobsTimelineShowsOnlyItsEventsInOrderAndSaysWhatTheWindowDidNotSee() {
        Queue q = client.queue("emails");
        q.setRetention(QueueRetention.defaults());   // keeps the completed job, whose page this reads
        String id = q.enqueue("a".getBytes(), EnqueueOptions.defaults().withMaxAttempts(2)).id();
        q.enqueue("other");
        assertThat(q.claim(LEASE).orElseThrow().fail("smtp <down>").name()).isEqualTo("RETRYING");
        q.claim(LEASE).orElseThrow().complete();                              // the other job
        REDIS.raw().call("ZADD", "emq:{emails}:due", "0", id);            // its retry is due now
        q.promote(10);
        q.claim(LEASE).orElseThrow().complete();

        String page = get("/job?queue=emails&id=" + id).body();
        assertThat(events(page)).containsExactly("active", "retrying", "active", "completed");
        assertThat(page).contains("smtp &lt;down&gt;", "Read every entry the stream keeps: 6").doesNotContain("trimmed");

        String cut = get("/job?queue=emails&id=" + id + "&window=3").body();
        assertThat(events(cut)).containsExactly("active", "completed");
        assertThat(cut).contains("Read the last 3 entries of the stream", "older events of this job may lie before them",
                "window=" + JobTimeline.MAX_WINDOW + "#timeline");

        REDIS.raw().call("XTRIM", "emq:{emails}:events", "MAXLEN", "2");   // as the cap does, oldest first
        String trimmed = get("/job?queue=emails&id=" + id).body();
        assertThat(events(trimmed)).containsExactly("active", "completed");
        assertThat(trimmed).contains("no longer keeps this job&#39;s first events: its cap trimmed them");

        Queue quiet = client.queue("quiet");
        quiet.setRetention(QueueRetention.defaults());   // keeps the completed job, whose page this reads
        QueueEventSettings.off().store(client, "quiet");
        String silent = quiet.enqueue("s");
        quiet.claim(LEASE).orElseThrow().complete();
        assertThat(get("/job?queue=quiet&id=" + silent).body()).contains("This queue writes no events now");
    }

    @Test
    void aLocksPageShowsHolderTtlAndFenceButNoWholeTokenAndSaysNoHistoryIsRecorded() {
        Lease lease = locks.tryAcquire("orders:1", LEASE).orElseThrow();
        assertThat(get("/locks?prefix=orders:").body()).contains("href=\"/lock?resource=orders%3A1\"");
        HttpResponse<String> r = get("/lock?resource=orders:1");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("<dd><span class=\"state active\">held</span></dd>",
                        "<code>" + lease.token().substring(0, LocksPage.TOKEN_SHOWN) + "…</code>",
                        "<dt>Last fence</dt><dd>" + lease.fence() + "</dd>", "<dt>Last granted</dt><dd>20",
                        "No per-lock history of grants is recorded", "No operator action was recorded on this lock")
                .doesNotContain(lease.token());
        lease.close();
        assertThat(get("/lock?resource=orders:1").body()).contains("not held").doesNotContain("Holder token");
        HttpResponse<String> none = get("/lock?resource=orders:2");
        assertThat(none.statusCode()).isEqualTo(404);
        assertThat(message(none)).contains("no lock on 'orders:2' is held");

        client.queue("emails").enqueue("a");
        locks.tryAcquire("queue:emails:maintenance", LEASE).orElseThrow();
        assertThat(get("/lock?resource=queue:emails:maintenance").body())
                .contains("the maintenance (reap and promote) of queue <a href=\"/queue?name=emails\">emails</a>");
    }

    @Test
    void aCompletedJobTheQueueDoesNotKeepIsAnswered404SayingWhy() {
        Queue q = client.queue("emails");   // no stored retention: the default keeps no completed job
        String id = q.enqueue("a");
        q.claim(LEASE).orElseThrow().complete();
        for (String path : new String[] {"/job?queue=emails&id=" + id, "/lock?queue=emails&job=" + id,
            "/queue?name=emails&id=" + id}) {
            HttpResponse<String> r = get(path);
            assertThat(r.statusCode()).as(path).isEqualTo(404);
            assertThat(message(r)).as(path).contains("no job '" + id + "'")
                    .contains("it completed: a completed job keeps no hash unless the queue's retention asks");
        }
    }

    @Test
    void aJobsLockShowsItsAttemptLeaseAndTimelineAndIsLinkedFromTheActiveJob() {
        Queue q = client.queue("emails");
        q.setRetention(QueueRetention.defaults());   // keeps the completed job, whose lock page this reads
        String id = q.enqueue("a");
        Job job = q.claim(LEASE).orElseThrow();
        assertThat(get("/job?queue=emails&id=" + id).body()).contains("href=\"/lock?queue=emails&amp;job=" + id + "\"");
        String held = get("/lock?queue=emails&job=" + id).body();
        assertThat(held).contains("held by the worker of attempt 1", "<dt>Lease left</dt><dd>");
        assertThat(events(held)).containsExactly("active");
        job.complete();
        String free = get("/lock?queue=emails&job=" + id).body();
        assertThat(free).contains("not held");
        assertThat(events(free)).containsExactly("active", "completed");
    }

    @Test
    void redriveSelectedAnswersOneTypedOutcomePerJobAndMovesOnlyTheDeadOnes() {
        Queue q = client.queue("emails");
        List<String> dead = dead(q, 3);
        String pending = q.enqueue("p");
        String list = get("/queue?name=emails&state=dead").body();
        assertThat(list).contains("name=\"pick0\" value=\"" + dead.get(0) + "\"", "Redrive selected…");

        HttpResponse<String> confirm = get("/confirm?queue=emails&action=redrive-selected&pick0=" + dead.get(0)
                + "&pick1=" + dead.get(1));
        assertThat(confirm.statusCode()).isEqualTo(200);
        assertThat(confirm.body()).contains("Move 2 selected jobs of emails", "name=\"pick1\" value=\"" + dead.get(1) + "\"");
        assertThat(q.stats().dead()).as("a confirmation page changes nothing").isEqualTo(3);

        HttpResponse<String> done = actOn(dashboard, dead.get(0), dead.get(1), pending, "999", dead.get(0));
        assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
        assertThat(done.body()).contains("<p class=\"outcome\">REDRIVEN 2 · NOT_DEAD 1 · MISSING 1</p>");
        assertThat(row(done.body(), pending)).containsExactly(pending, "NOT_DEAD", "It is pending, not dead; nothing changed.");
        assertThat(row(done.body(), "999").get(1)).isEqualTo("MISSING");
        assertThat(q.inspect(dead.get(0)).orElseThrow().state()).isEqualTo("pending");
        assertThat(q.inspect(dead.get(1)).orElseThrow().state()).isEqualTo("pending");
        assertThat(q.inspect(dead.get(2)).orElseThrow().state()).isEqualTo("dead");
        assertThat(row(actOn(dashboard, dead.get(0)).body(), dead.get(0)).get(1)).isEqualTo("NOT_DEAD");
    }

    @Test
    void redriveSelectedKeepsTheTokenCsrfAndReadOnlyRules() {
        Queue q = client.queue("emails");
        String id = dead(q, 1).get(0);
        String form = "queue=emails&action=redrive-selected&pick0=" + id;
        assertThat(get(readOnly, "/queue?name=emails&state=dead").body()).doesNotContain("pick0", "Redrive selected");
        assertThat(get(readOnly, "/confirm?" + form).statusCode()).isEqualTo(403);
        assertThat(actOn(readOnly, id).statusCode()).isEqualTo(403);
        HttpResponse<String> noToken = send(dashboard, HttpRequest.newBuilder(at(dashboard, "/action"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form + "&csrf=" + csrf())));
        assertThat(noToken.statusCode()).isEqualTo(401);
        HttpResponse<String> noCsrf = post(dashboard, Map.of("queue", "emails", "action", "redrive-selected", "pick0", id),
                "Origin", origin(dashboard));
        assertThat(noCsrf.statusCode()).isEqualTo(403);
        HttpResponse<String> crossSite = post(dashboard, Map.of("queue", "emails", "action", "redrive-selected",
                "pick0", id, "csrf", csrf()), "Sec-Fetch-Site", "cross-site");
        assertThat(crossSite.statusCode()).isEqualTo(403);
        assertThat(q.inspect(id).orElseThrow().state()).as("no refused request redrove the job").isEqualTo("dead");
    }

    @Test
    void badInputToTheNewPagesAndTheSelectionGetsAClear4xx() {
        Queue q = client.queue("emails");
        String id = dead(q, 1).get(0);
        expect(get("/confirm?queue=emails&action=redrive-selected"), 400, "select at least one dead job");
        String[] many = new String[SelectionRedrive.MAX_SELECTION + 1];
        java.util.Arrays.fill(many, id);
        expect(actOn(dashboard, many), 400, "select at most " + SelectionRedrive.MAX_SELECTION + " jobs");
        expect(actOn(dashboard, id, "a:b"), 400, "not a job id");
        assertThat(q.inspect(id).orElseThrow().state()).as("a bad id moved no job of the selection").isEqualTo("dead");
        expect(get("/lock"), 400, "missing parameter 'resource'");
        expect(get("/lock?resource=a&queue=emails&job=1"), 400, "not both");
        expect(get("/lock?resource=a%7Bb"), 400, "not a lock resource");
        expect(get("/lock?queue=nosuch&job=1"), 404, "no queue named 'nosuch'");
        expect(get("/lock?queue=emails&job=999"), 404, "no job '999'");
        expect(get("/lock?queue=emails&job=7:lock"), 400, "not a job id");
        expect(get("/job?queue=emails&id=" + id + "&window=0"), 400, "window must be a whole number in 1..10000");
        expect(get("/job?queue=emails&id=" + id + "&window=" + (JobTimeline.MAX_WINDOW + 1)), 400, "window must be");
    }

    /** @return the event names of the page's timeline, top to bottom */
    private static List<String> events(String html) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("<span class=\"event ([a-z]+)\">").matcher(html);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** @return the ids of {@code n} new dead jobs of {@code q} */
    private static List<String> dead(Queue q, int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(q.enqueue(("d" + i).getBytes(), EnqueueOptions.defaults().withMaxAttempts(1)).id());
            q.claim(LEASE).orElseThrow().fail("no");
        }
        return ids;
    }

    /** Posts "redrive selected" of {@code ids} on queue emails, as the confirmation page's form does. */
    private static HttpResponse<String> actOn(Dashboard d, String... ids) {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("csrf", csrf());
        form.put("queue", "emails");
        form.put("action", SelectionRedrive.WIRE);
        for (int i = 0; i < ids.length; i++) {
            form.put(SelectionRedrive.PICK + i, ids[i]);
        }
        return post(d, form, "Origin", origin(d), "Sec-Fetch-Site", "same-origin");
    }

    private static void expect(HttpResponse<String> r, int status, String message) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(message(r)).contains(message);
        assertThat(r.body()).doesNotContain("Exception", "\tat ");
    }
}
