package io.echomq.dashboard;

import static io.echomq.dashboard.Html.esc;
import static io.echomq.dashboard.Html.url;

import io.echomq.queue.JobSummary;
import io.echomq.queue.WorkerDirectory;
import io.echomq.queue.WorkerInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Who runs a queue's active jobs, and for how long, for the job page and the active tab: the
 * queue's live workers' heartbeats joined to each job by its id (a worker lists the ids of the
 * jobs it holds at each beat, so the claim writes nothing about its worker), and the server's
 * clock against each job's last claim.
 *
 * <p>Duties: read the holders and the server's time once per page; render the active tab's table
 * sorted by running time, longest first, with a "Running for" and a "Worker" column; render the
 * job page's "Worker" and "Running for" facts; say why a job has no worker shown (claimed since
 * its worker's last beat, at most one maintenance interval ago, or by a worker that keeps no
 * heartbeat).
 */
final class WhoRuns {
    /** What the worker cell says of a job no live worker listed. */
    static final String NO_WORKER = "— (in no live worker's last heartbeat: claimed since its worker's last beat, "
            + "or by a worker that keeps none)";

    private final String queue;
    private final Map<String, WorkerInfo> holders;
    private final Instant now;

    private WhoRuns(String queue, Map<String, WorkerInfo> holders, Instant now) {
        this.queue = queue;
        this.holders = holders;
        this.now = now;
    }

    /** @return the holders of {@code queue}'s jobs as the live heartbeats list them, and the server's time */
    static WhoRuns read(QueueIndex index, String queue) {
        return new WhoRuns(queue, WorkerDirectory.holders(index.workers(queue)), index.serverTime());
    }

    /** @return the active tab's table: {@code jobs} longest running first, each with its running time and worker */
    String activeTable(List<JobSummary> jobs) {
        StringBuilder b = new StringBuilder("<table class=\"jobs active\"><thead><tr><th>Id</th><th class=\"n\">Attempts</th>"
                + "<th class=\"n\">Priority</th><th class=\"n\">Running for</th><th>Worker</th><th>Claimed</th>"
                + "<th>Lease deadline</th></tr></thead><tbody>");
        for (JobSummary j : longestFirst(jobs)) {
            b.append("<tr><td><a href=\"").append(esc("/job?queue=" + url(queue) + "&id=" + url(j.id()))).append("\">")
                    .append(esc(j.id())).append("</a></td><td class=\"n\">").append(j.attempts())
                    .append("</td><td class=\"n\">").append(j.priority()).append("</td><td class=\"n running-for\">")
                    .append(runningFor(j.claimedAt())).append("</td><td class=\"worker\">").append(worker(j.id(), "—"))
                    .append("</td><td>").append(Html.time(j.claimedAt())).append("</td><td>")
                    .append(Html.time(j.score())).append("</td></tr>");
        }
        return b.append("</tbody></table>").toString();
    }

    /** @return the job page's worker fact: a link to the queue's workers page, or why none is shown */
    String workerFact(String jobId) {
        return worker(jobId, esc(NO_WORKER));
    }

    /** @return how long a job claimed at {@code claimedAt} (server epoch ms) has run, by the server's clock */
    String runningFor(OptionalLong claimedAt) {
        if (claimedAt.isEmpty()) {
            return "—";
        }
        return duration(Duration.ofMillis(Math.max(0, now.toEpochMilli() - claimedAt.getAsLong())));
    }

    /** @return a duration, coarsely: "0.4 s", "42 s", "3 min 5 s", "2 h 10 min" */
    static String duration(Duration d) {
        long ms = d.toMillis();
        if (ms < 10_000) {
            return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
        }
        long s = ms / 1000;
        if (s < 60) {
            return s + " s";
        }
        return s < 3600 ? s / 60 + " min " + s % 60 + " s" : s / 3600 + " h " + s % 3600 / 60 + " min";
    }

    /** @return the jobs by their last claim, oldest first; a job with no claim time last */
    static List<JobSummary> longestFirst(List<JobSummary> jobs) {
        return jobs.stream().sorted(Comparator.comparingLong(j -> j.claimedAt().orElse(Long.MAX_VALUE))).toList();
    }

    private String worker(String jobId, String none) {
        WorkerInfo w = holders.get(jobId);
        if (w == null) {
            return none;
        }
        return "<a href=\"" + esc("/workers?queue=" + url(queue)) + "\" title=\"" + esc("host " + w.host() + ", pid "
                + w.pid()) + "\">" + esc(w.label()) + "</a>";
    }
}
