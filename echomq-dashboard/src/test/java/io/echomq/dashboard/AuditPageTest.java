package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.audit.AuditAction;
import io.echomq.audit.AuditEntry;
import io.echomq.audit.AuditTarget;
import io.echomq.audit.AuditTrail;
import io.echomq.lock.Lease;
import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each dashboard action that changed something leaves an audit record naming the session's address, and
 * the Audit page and the queue's and lock's pages show the records, the CLI's among them.
 */
class AuditPageTest extends DashboardTestBase {
    private static List<AuditEntry> records(String queue) {
        return client.auditTrail().recent(AuditTarget.queue(queue), 100);
    }

    @Test
    void actionsThatChangeSomethingAreRecordedWithTheSessionsAddress() {
        Queue q = client.queue("emails");
        List<String> dead = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            q.enqueue(("d" + i).getBytes(), EnqueueOptions.defaults().withMaxAttempts(1));
            Job j = q.claim(Duration.ofSeconds(30)).orElseThrow();
            dead.add(j.id());
            j.fail("no");
        }
        String waiting = q.enqueue("w");
        String removable = q.enqueue("r");

        act("emails", "pause", null);
        act("emails", "pause", null);                       // ALREADY_PAUSED: nothing changed, nothing recorded
        act("emails", "redrive", dead.get(0));
        act("emails", "redrive", dead.get(0));              // NOT_DEAD
        act("emails", "redrive-all", null);
        act("emails", "cancel", waiting);
        act("emails", "remove", removable);
        act("emails", "remove", removable);                 // MISSING
        act("emails", "resume", null);

        List<AuditEntry> r = records("emails");
        assertThat(r).extracting(AuditEntry::action)
                .containsExactly("resumed", "removed", "cancelled", "redriven", "redriven", "paused");
        assertThat(r).extracting(AuditEntry::who).containsOnly("dashboard from 127.0.0.1");
        assertThat(r).extracting(AuditEntry::detail).containsExactly("", "job " + removable,
                "job " + waiting + " (CANCELLED)", "2 jobs, first ids: " + dead.get(1) + ", " + dead.get(2),
                "1 job, first ids: " + dead.get(0), "");
    }

    @Test
    void aTakeoverIsRecordedUnderTheLockWithoutTheWholeToken() {
        Lease held = locks.tryAcquire("orders:1", Duration.ofMinutes(5)).orElseThrow();
        Map<String, String> form = new LinkedHashMap<>();
        form.put("csrf", csrf());
        form.put("action", "takeover");
        form.put("resource", "orders:1");
        form.put("holder", held.token().substring(0, 8));
        form.put("fence", Long.toString(held.fence()));
        form.put("ttl_ms", "30000");
        form.put("then", "free");
        assertThat(post(dashboard, form, "Origin", origin(dashboard)).body()).contains("TAKEN_AND_FREED");

        List<AuditEntry> r = client.auditTrail().recent(AuditTarget.lock("orders:1"), 10);
        assertThat(r).hasSize(1);
        assertThat(r.get(0).action()).isEqualTo("taken-over");
        assertThat(r.get(0).detail()).startsWith("from holder " + held.token().substring(0, 8) + "… to fence ")
                .endsWith(", then freed").doesNotContain(held.token());
        assertThat(get("/lock?resource=orders:1").body()).contains("<h2>Operator actions</h2>", "taken-over",
                "dashboard from 127.0.0.1");
    }

    @Test
    void theAuditPageListsEveryRecordNewestFirstAndFiltersByQueueOrLock() {
        AuditTrail t = client.auditTrail();
        t.record(AuditTarget.queue("payments"), AuditAction.PAUSED, "emq alice@web-1 pid 42", null);
        t.record(AuditTarget.lock("nightly"), AuditAction.TAKEN_OVER, "emq bob@web-2 pid 7", "fence 9");
        t.record(AuditTarget.queue("payments"), AuditAction.PURGED, "emq <script>", "5 jobs");

        String all = get("/audit").body();
        assertThat(all).contains("<a href=\"/audit\">Audit</a>", "<table class=\"audit\">",
                "href=\"/queue?name=payments\"", "href=\"/lock?resource=nightly\"", "emq &lt;script&gt;")
                .doesNotContain("emq <script>");
        assertThat(all.indexOf("purged")).isLessThan(all.indexOf("taken-over"));
        assertThat(all.indexOf("taken-over")).isLessThan(all.indexOf("<code>paused</code>"));

        String one = get("/audit?queue=payments").body();
        assertThat(one).contains("purged", "paused").doesNotContain("taken-over");
        assertThat(get("/audit?lock=nightly").body()).contains("taken-over").doesNotContain("purged");
        assertThat(get("/audit?queue=nobody").body()).contains("No operator action was recorded on queue nobody.");
        assertThat(get("/audit?queue=a&lock=b").statusCode()).isEqualTo(400);
        assertThat(get("/audit?queue=bad%20name").statusCode()).isEqualTo(400);
        assertThat(get("/audit?limit=0").statusCode()).isEqualTo(400);

        client.queue("payments").enqueue("x");
        String page = get("/queue?name=payments").body();
        assertThat(page).contains("<h2>Operator actions</h2>", "purged", "emq alice@web-1 pid 42",
                "href=\"/audit?queue=payments\"");
        assertThat(get(readOnly, "/audit").body()).as("read-only mode reads the trail").contains("purged");
    }

    @Test
    void aTrailThatCannotBeWrittenLeavesTheActionDoneAndSaysSo() {
        client.queue("q").enqueue("a");
        REDIS.raw().call("SET", AuditTrail.KEY, "not a stream");
        HttpResponse<String> r = act("q", "pause", null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("PAUSED", "Done, but no audit record was written:", "WRONGTYPE");
        assertThat(client.queue("q").isPaused()).isTrue();
    }
}
