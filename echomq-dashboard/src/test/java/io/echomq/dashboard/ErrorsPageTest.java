package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Queue;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Errors where the operator looks: the dead tab's error column, the top errors, the failure rate per minute. */
class ErrorsPageTest extends DashboardTestBase {
    private static final long MINUTE = 60_000;

    private static String dead(Queue q, String error) {
        String id = q.enqueue("p".getBytes(), EnqueueOptions.defaults().withMaxAttempts(1)).id();
        q.claim(Duration.ofSeconds(30)).orElseThrow().fail(error);
        return id;
    }

    @Test
    void theDeadTabShowsEachJobsErrorWithTheWholeTextAsItsTooltip() {
        Queue q = client.queue("emails");
        String a = dead(q, "java.io.IOException: disk <full>\n\tat A.b(A.java:1)");
        String b = dead(q, "");

        HttpResponse<String> r = get("/queue?name=emails&state=dead");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("<th>Error</th>")
                .contains("<td class=\"err\" title=\"java.io.IOException: disk &lt;full&gt;\n\tat A.b(A.java:1)\">"
                        + "java.io.IOException: disk &lt;full&gt;</td>");
        assertThat(row(r.body(), "").get(row(r.body(), "").size() - 1))
                .isEqualTo("java.io.IOException: disk &lt;full&gt;");
        assertThat(r.body()).contains("id=" + b + "\">" + b + "</a>");
        assertThat(a).isNotEqualTo(b);
        // the other tabs have no error column
        assertThat(get("/queue?name=emails&state=pending").body()).doesNotContain("<th>Error</th>");
    }

    @Test
    void theQueuePageListsTheTopErrorsWithCountsAndFirstAndLastSeen() {
        Queue q = client.queue("emails");
        dead(q, "java.io.IOException: disk full\n\tat A.b");
        dead(q, "java.io.IOException: disk full\n\tat A.c");
        dead(q, "java.lang.NullPointerException");

        String body = get("/queue?name=emails").body();

        assertThat(body).contains("<h2>Top errors</h2>", "<table class=\"top-errors\">");
        List<String> top = row(body.substring(body.indexOf("top-errors")), "2");
        assertThat(top.get(1)).endsWith("Z");
        assertThat(top.get(2)).endsWith("Z");
        assertThat(top.get(3)).isEqualTo("java.io.IOException: disk full");
        assertThat(row(body.substring(body.indexOf("top-errors")), "1").get(3)).isEqualTo("java.lang.NullPointerException");
        client.queue("calm").enqueue("x");
        assertThat(get("/queue?name=calm").body()).contains("No failure counted for this queue.")
                .contains("Failure rate: <b>–</b>");
    }

    @Test
    void theFailureRatePerMinuteStandsBesideTheTotals() {
        client.queue("emails").enqueue("a");
        until(Duration.ofSeconds(10), () -> serverMillis() % MINUTE < MINUTE - 5000);
        long now = serverMillis();
        long m = now - now % MINUTE;
        String key = "emq:{emails}:throughput";
        REDIS.raw().call("ZADD", key, Long.toString(m - 2 * MINUTE), (m - 2 * MINUTE) + ":5:1");
        REDIS.raw().call("ZADD", key, Long.toString(m - MINUTE), (m - MINUTE) + ":9:2");
        REDIS.raw().call("ZADD", key, Long.toString(m), m + ":12:9");

        assertThat(get("/queue?name=emails").body()).contains("Failure rate: <b>7/min</b> in the last whole minute");
        // Queue, pending, active, delayed, dead, completed, failed, failed/min, ...
        assertThat(row(get("/").body(), "emails").subList(0, 8)).containsExactly("emails", "1", "0", "0", "0", "0",
                "0", "7/min");
    }

    @Test
    void aJobsPageShowsEachKeptAttemptsErrorTheLatestFirst() {
        Queue q = client.queue("emails");
        String id = q.enqueue("p".getBytes(), EnqueueOptions.defaults().withMaxAttempts(2)).id();
        q.claim(Duration.ofSeconds(30)).orElseThrow().fail("first <try>");
        REDIS.raw().call("ZADD", "emq:{emails}:due", "0", id);   // due now
        q.promote(10);
        q.claim(Duration.ofSeconds(30)).orElseThrow().fail("second try");

        String body = get("/job?queue=emails&id=" + id).body();

        assertThat(body).contains("<h2>Each attempt's error");
        assertThat(body.indexOf("second try</pre>")).isLessThan(body.indexOf("first &lt;try&gt;</pre>"));
        assertThat(row(body.substring(body.indexOf("attempt-errors")), "2").get(2)).isEqualTo("second try");
        String fresh = q.enqueue("fresh");
        assertThat(get("/job?queue=emails&id=" + fresh).body()).doesNotContain("Each attempt's error");
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

    private static long serverMillis() {
        List<?> t = (List<?>) REDIS.raw().call("TIME");
        return Long.parseLong(text(t.get(0))) * 1000 + Long.parseLong(text(t.get(1))) / 1000;
    }

    private static String text(Object v) {
        return v instanceof byte[] b ? new String(b) : String.valueOf(v);
    }
}
