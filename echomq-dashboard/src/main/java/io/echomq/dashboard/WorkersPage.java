package io.echomq.dashboard;

import static io.echomq.dashboard.Html.count;
import static io.echomq.dashboard.Html.esc;
import static io.echomq.dashboard.Html.url;

import io.echomq.queue.WorkerInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * Which processes work which queue: every queue's live workers, or one queue's
 * ({@code /workers?queue=emails}).
 *
 * <p>Duties: check a named queue (400 for a bad name, 404 for an unknown one); read each queue's
 * live workers from their heartbeats ({@link io.echomq.queue.WorkerDirectory}: a bounded range of
 * the queue's set and one hash per worker), over the queues of the kept walk (while the first walk
 * runs, say so instead), at most
 * {@value OverviewPage#MAX_QUEUES} of them; show each worker's host, pid, name, concurrency, jobs
 * in hand with their ids (links to the job pages; at most 100 listed, the rest counted), whether
 * its last claim found the queue paused, how long ago it last beat (by the server's clock) and when
 * it started. A worker beats when its jobs in hand, their ids or its paused state change (at most
 * once per maintenance interval) and at least every five maintenance intervals (10 s at most); one
 * that stopped without closing drops out when its record expires, three such periods after its
 * last beat.
 */
final class WorkersPage {
    private final QueueIndex index;

    WorkersPage(QueueIndex index) {
        this.index = index;
    }

    /** One worker of one queue. */
    private record Line(String queue, WorkerInfo worker) {
    }

    Answer answer(Request r, Html.Frame f) {
        String queue = r.query("queue");
        List<String> names = new ArrayList<>();
        if (queue != null) {
            index.open(queue);
            names.add(queue);
        } else {
            java.util.Optional<QueueIndex.Walk> walk = index.walk();
            if (walk.isEmpty()) {
                return Answer.html(Html.page(f, "Workers", OverviewPage.firstWalkRunning(index.runningMillis())));
            }
            for (String name : walk.get().names()) {
                if (names.size() == OverviewPage.MAX_QUEUES) {
                    break;
                }
                names.add(name);
            }
        }
        List<Line> lines = new ArrayList<>();
        for (String name : names) {
            for (WorkerInfo w : index.workers(name)) {
                lines.add(new Line(name, w));
            }
        }
        return Answer.html(render(f, queue, names.size(), lines));
    }

    private static String render(Html.Frame f, String queue, int queues, List<Line> lines) {
        StringBuilder b = new StringBuilder("<p><a href=\"/\">All queues</a>");
        if (queue != null) {
            b.append(" · <a href=\"").append(esc("/queue?name=" + url(queue))).append("\">Queue ").append(esc(queue))
                    .append("</a> · <a href=\"/workers\">Every queue's workers</a>");
        }
        b.append("</p>");
        if (lines.isEmpty()) {
            b.append("<p class=\"empty\">No worker is running ").append(queue == null ? "on any queue" : "on this queue")
                    .append(". A running worker records a heartbeat when its jobs in hand change and at least every "
                            + "10 s (with the default maintenance interval); one that stops without closing drops out "
                            + "within 30 s.</p>");
        } else {
            b.append("<table class=\"workers\"><thead><tr><th>Queue</th><th>Host</th><th class=\"n\">PID</th>"
                    + "<th>Worker</th><th class=\"n\">Concurrency</th><th class=\"n\">Jobs in hand</th>"
                    + "<th>Last heartbeat</th><th>Started</th><th>Id</th><th>Jobs</th></tr></thead><tbody>");
            for (Line l : lines) {
                WorkerInfo w = l.worker();
                b.append("<tr><td><a href=\"").append(esc("/queue?name=" + url(l.queue()))).append("\">")
                        .append(esc(l.queue())).append("</a></td><td>").append(esc(w.host()))
                        .append("</td><td class=\"n\">").append(w.pid()).append("</td><td>").append(esc(w.name()))
                        .append(w.paused() ? " <span class=\"badge warn\" title=\"its last claim found the queue "
                                + "paused: it claims nothing until a resume\">paused</span>" : "")
                        .append("</td><td class=\"n\">").append(count(w.concurrency())).append("</td><td class=\"n")
                        .append(w.inHand() == 0 ? " zero" : "").append("\">").append(count(w.inHand()))
                        .append("</td><td>").append(ago(w.sinceBeat())).append("</td><td>")
                        .append(Html.time(OptionalLong.of(w.startedAt().toEpochMilli())))
                        .append("</td><td class=\"worker-id\">").append(esc(w.id()))
                        .append("</td><td class=\"held\">").append(jobs(l.queue(), w)).append("</td></tr>");
            }
            b.append("</tbody></table>");
        }
        b.append("<p class=\"note\">").append(count(lines.size())).append(lines.size() == 1 ? " worker" : " workers")
                .append(" on ").append(count(queues)).append(queues == 1 ? " queue" : " queues")
                .append(", read now from the heartbeats the workers keep in Redis (a sharded queue's on its partition 0). "
                        + "Jobs in hand, their ids and the paused badge are as of the last heartbeat: a worker beats when "
                        + "they change (at most once per maintenance interval, 2 s by default), and else every 10 s. "
                        + "The id (host, pid and a count) tells apart workers of one name.</p>");
        return Html.page(f, queue == null ? "Workers" : queue + " · workers", b.toString());
    }

    /** @return links to the jobs a worker listed at its last beat, and how many it holds past those listed */
    private static String jobs(String queue, WorkerInfo w) {
        if (w.jobIds().isEmpty()) {
            return w.inHand() == 0 ? "—" : "(not listed yet)";
        }
        StringBuilder b = new StringBuilder();
        for (String id : w.jobIds()) {
            b.append(b.isEmpty() ? "" : " ").append("<a href=\"").append(esc("/job?queue=" + url(queue) + "&id=" + url(id)))
                    .append("\">").append(esc(id)).append("</a>");
        }
        int more = w.inHand() - w.jobIds().size();
        return more > 0 ? b.append(" +").append(count(more)).append(" more").toString() : b.toString();
    }

    /** @return how long ago, coarsely: "0.4 s ago", "12 s ago", "3 min ago" */
    static String ago(Duration d) {
        long ms = d.toMillis();
        if (ms < 10_000) {
            return String.format(Locale.ROOT, "%.1f s ago", ms / 1000.0);
        }
        return ms < 120_000 ? ms / 1000 + " s ago" : ms / 60_000 + " min ago";
    }
}
