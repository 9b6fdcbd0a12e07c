package io.echomq.dashboard;

import static io.echomq.dashboard.Html.count;
import static io.echomq.dashboard.Html.esc;
import static io.echomq.dashboard.Html.url;

import io.echomq.queue.QueueOperations;
import io.echomq.queue.QueueStats;
import io.echomq.queue.ThroughputHistory;
import java.util.ArrayList;
import java.util.List;

/**
 * The first page: every queue of the server with its counts.
 *
 * <p>Duties: take the names from the {@link QueueIndex} (a cached SCAN walk; while the first walk
 * runs, say so instead of showing queues), read each queue's
 * counts in one stats call (a sharded queue's summed over its partitions), and show at most
 * {@value #MAX_QUEUES} queues, saying how many more there are, each with its last hour's throughput
 * as a sparkline. It reads nothing but the stats scripts and the bounded throughput history (at
 * most 61 samples per partition), whose cost does not grow with a queue's length.
 */
final class OverviewPage {
    /** Most queues shown on the page; one stats call each. */
    static final int MAX_QUEUES = 500;

    private final QueueIndex index;

    OverviewPage(QueueIndex index) {
        this.index = index;
    }

    /** One queue's line. */
    record Row(String name, int partitions, QueueStats stats, ThroughputHistory.Window hour) {
    }

    /** @return the rows, in name order, at most {@value #MAX_QUEUES} */
    List<Row> rows(QueueIndex.Walk walk) {
        List<Row> rows = new ArrayList<>();
        for (String name : walk.names()) {
            if (rows.size() == MAX_QUEUES) {
                break;
            }
            QueueOperations q;
            try {
                q = index.open(name);
            } catch (HttpError gone) {
                continue;   // deleted since the walk
            }
            int partitions = q.isSharded() ? q.partitions() : 0;
            rows.add(new Row(name, partitions, q.stats(), index.throughput(name)));
        }
        return rows;
    }

    String render(Html.Frame f) {
        java.util.Optional<QueueIndex.Walk> found = index.walk();
        if (found.isEmpty()) {
            return Html.page(f, "Queues", firstWalkRunning(index.runningMillis()));
        }
        QueueIndex.Walk walk = found.get();
        List<Row> rows = rows(walk);
        StringBuilder b = new StringBuilder();
        b.append("<p class=\"note\">").append(count(walk.names().size())).append(walk.names().size() == 1 ? " queue" : " queues")
                .append(", found by a SCAN of the keyspace ").append(walk.ageMillis() / 1000).append(" s ago (it took ")
                .append(walk.tookMillis()).append(" ms; it is repeated when it is more than ")
                .append(index.maxAgeSeconds()).append(" s old). Counts are read now.</p>");
        if (rows.isEmpty()) {
            b.append("<p class=\"empty\">No queue on this server yet. Enqueue a job, from Java or with "
                    + "<code>emq queue enqueue &lt;queue&gt; &lt;payload&gt; --redis &lt;this server&gt;</code>, "
                    + "and reload.</p>");
            return Html.page(f, "Queues", b.toString());
        }
        b.append("<table class=\"queues\"><thead><tr><th>Queue</th><th class=\"n\">Pending</th><th class=\"n\">Active</th>"
                + "<th class=\"n\">Delayed</th><th class=\"n\">Dead</th><th class=\"n\">Completed</th>"
                + "<th class=\"n\">Failed</th><th class=\"n\">Failed/min</th><th>Last hour</th><th class=\"n\">Overdue leases</th>"
                + "<th>State</th></tr></thead><tbody>");
        for (Row r : rows) {
            QueueStats s = r.stats();
            String link = "/queue?name=" + url(r.name());
            b.append("<tr><td><a href=\"").append(esc(link)).append("\">").append(esc(r.name())).append("</a>");
            if (r.partitions() > 0) {
                b.append(" <span class=\"badge\">").append(r.partitions()).append(" partitions</span>");
            }
            b.append("</td>")
                    .append(cell(s.pending(), link + "&state=pending", ""))
                    .append(cell(s.active(), link + "&state=active", ""))
                    .append(cell(s.delayed(), link + "&state=delayed", ""))
                    .append(cell(s.dead(), link + "&state=dead", s.dead() > 0 ? "bad" : ""))
                    .append(cell(s.completed(), link + "&state=done", ""))
                    .append("<td class=\"n").append(s.failed() == 0 ? " zero" : "").append("\">").append(count(s.failed()))
                    .append("</td><td class=\"n rate").append(ErrorsPanel.failedLastMinute(r.hour()) > 0 ? " bad" : " zero")
                    .append("\">").append(esc(ErrorsPanel.rate(r.hour())))
                    .append("</td><td class=\"hour\">").append(ThroughputChart.spark(r.hour()))
                    .append("</td><td class=\"n").append(s.overdue() > 0 ? " bad" : " zero").append("\">")
                    .append(count(s.overdue())).append("</td><td>").append(s.paused()
                            ? "<span class=\"badge warn\">paused</span>" : "<span class=\"badge ok\">running</span>")
                    .append("</td></tr>");
        }
        b.append("</tbody></table>");
        if (walk.names().size() > rows.size()) {
            b.append("<p class=\"note\">Showing the first ").append(count(rows.size())).append(" by name.</p>");
        }
        b.append("<p class=\"note\">Completed and failed count since the queue was created (each retry is a "
                + "failure); failed/min is the failed attempts of the last whole minute (– when no worker sampled "
                + "it). The last hour shows completed jobs per minute, failed minutes marked under them, then the "
                + "hour's completed / failed. Overdue leases are active jobs past their deadline, which the next reap returns.</p>");
        return Html.page(f, "Queues", b.toString());
    }

    /** @return the note a page shows in place of its queues while the first walk for them runs */
    static String firstWalkRunning(long ms) {
        return "<p class=\"empty\">The first walk of the keyspace for queues is still running (for " + count(ms)
                + " ms so far): it visits every key of the server, so on a large keyspace it takes a second or more. "
                + "No queue is shown until it ends; reload in a moment. A queue's own page (<code>/queue?name=…</code>) "
                + "needs no walk.</p>";
    }

    private static String cell(long n, String href, String cls) {
        // A zero is greyed, so that the counts that matter stand out.
        return "<td class=\"n " + (n == 0 ? "zero" : cls) + "\"><a href=\"" + esc(href) + "\">" + count(n) + "</a></td>";
    }
}
