package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.Worker;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The workers page, from the workers' heartbeats, and the queue page's throughput chart, from the kept history. */
class WorkersPageTest extends DashboardTestBase {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final long MINUTE = 60_000;

    @Test
    void theWorkersPageShowsWhichProcessWorksWhichQueueAndDropsAClosedWorker() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        client.queue("emails").enqueue("held");
        client.shardedQueue("orders", 2).enqueue("o");
        long pid = ProcessHandle.current().pid();
        Worker emails = client.worker("emails", job -> release.await(10, TimeUnit.SECONDS)).concurrency(2)
                .maintenanceInterval(Duration.ofMillis(50)).start();
        Worker orders = client.worker(client.shardedQueue("orders", 2), job -> { }).concurrency(3)
                .maintenanceInterval(Duration.ofMillis(50)).idlePoll(Duration.ofMillis(100)).start();
        try {
            until(WAIT, () -> {
                String body = get("/workers").body();
                // a worker beats when its jobs in hand change, so wait for the beat after "o" finished
                return body.contains("2 workers on 2 queues") && row(body, "emails").get(5).equals("1")
                        && row(body, "orders").get(5).equals("0");
            });
            HttpResponse<String> all = get("/workers");
            assertThat(all.statusCode()).isEqualTo(200);
            // Queue, host, pid, worker, concurrency, jobs in hand, last heartbeat, started
            List<String> e = row(all.body(), "emails");
            assertThat(e.get(2)).isEqualTo(Long.toString(pid));
            assertThat(e.get(1)).isNotEmpty();
            assertThat(e.subList(3, 6)).containsExactly(emails.toString(), "2", "1");
            assertThat(e.get(6)).matches("[0-9]\\.[0-9] s ago");
            assertThat(e.get(7)).endsWith(" UTC");
            assertThat(row(all.body(), "orders").subList(3, 6)).containsExactly(orders.toString(), "3", "0");
            assertThat(all.body()).contains("<a href=\"/workers\">Workers</a>");

            HttpResponse<String> one = get("/workers?queue=emails");
            assertThat(one.body()).contains("1 worker on 1 queue").doesNotContain(orders.toString());
            assertThat(get("/queue?name=emails").body()).as("the queue page links its workers")
                    .contains("<a href=\"/workers?queue=emails\">Workers</a>");
        } finally {
            release.countDown();
            emails.close();
            orders.close();
        }
        assertThat(get("/workers?queue=emails").body()).contains("No worker is running on this queue.");
        assertThat(get("/workers").body()).contains("No worker is running on any queue.", "0 workers on 2 queues");
        HttpResponse<String> unknown = get("/workers?queue=nowhere");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(message(unknown)).isEqualTo("no queue named 'nowhere' on this server");
        assertThat(get("/workers?queue=bad%7Bname").statusCode()).isEqualTo(400);
        assertThat(get(readOnly, "/workers").statusCode()).isEqualTo(200);
    }

    @Test
    void theQueuePageChartsTheLastHourFromTheKeptHistory() {
        client.queue("emails").enqueue("a");
        HttpResponse<String> empty = get("/queue?name=emails");
        assertThat(empty.body()).contains("0</b> completed", "No throughput history for this hour yet")
                .doesNotContain("<svg");
        assertThat(get("/").body()).as("no sparkline without history").doesNotContain("<svg class=\"spark\"");

        until(Duration.ofSeconds(10), () -> serverMillis() % MINUTE < MINUTE - 5000);
        long now = serverMillis();
        long m = now - now % MINUTE;
        String key = "emq:{emails}:throughput";
        long[][] samples = {{m - 3 * MINUTE, 10, 0}, {m - 2 * MINUTE, 14, 1}, {m - MINUTE, 20, 1}, {m, 21, 3}};
        for (long[] s : samples) {
            REDIS.raw().call("ZADD", key, Long.toString(s[0]), s[0] + ":" + s[1] + ":" + s[2]);
        }
        REDIS.raw().call("ZADD", key, Long.toString(m - 200 * MINUTE), (m - 200 * MINUTE) + ":0:0");   // out of the hour

        HttpResponse<String> r = get("/queue?name=emails");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("<svg class=\"chart\"", "<b>11</b> completed, <b>3</b> failed")
                .contains("<title>" + hhmm(m - 3 * MINUTE) + " UTC: 4 completed, 1 failed</title>")
                .contains("<title>" + hhmm(m - 2 * MINUTE) + " UTC: 6 completed, 0 failed</title>")
                .contains("<title>" + hhmm(m - MINUTE) + " UTC: 1 completed, 2 failed</title>")
                .contains(">" + hhmm(m - 60 * MINUTE) + "</text>", ">" + hhmm(m) + " UTC</text>")
                .doesNotContain("<script", "style=");
        // 3 minutes with completions, 2 with failures: one bar each
        assertThat(r.body().split("<rect class=\"c\"", -1)).hasSize(4);
        assertThat(r.body().split("<rect class=\"f\"", -1)).hasSize(3);
        assertThat(r.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(csp ->
                assertThat(csp).startsWith("default-src 'self'"));

        // the overview draws the same hour as a sparkline in the queue's row
        String overview = get("/").body();
        String row = overview.substring(overview.indexOf(">emails</a>"));
        row = row.substring(0, row.indexOf("</tr>"));
        assertThat(row).contains("<svg class=\"spark\"", "11 completed and 3 failed in the last 60 minutes", "11 / 3")
                .contains("<title>" + hhmm(m - MINUTE) + " UTC: 1 completed, 2 failed</title>");
        assertThat(row.split("<rect class=\"c\"", -1)).hasSize(4);
        assertThat(row.split("<rect class=\"f\"", -1)).hasSize(3);
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

    private static String hhmm(long ms) {
        return DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC).format(Instant.ofEpochMilli(ms));
    }
}
