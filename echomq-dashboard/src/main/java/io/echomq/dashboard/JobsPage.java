package io.echomq.dashboard;

import static io.echomq.dashboard.Html.count;
import static io.echomq.dashboard.Html.esc;
import static io.echomq.dashboard.Html.url;

import io.echomq.queue.JobErrors;
import io.echomq.queue.JobPage;
import io.echomq.queue.JobState;
import io.echomq.queue.JobSummary;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.QueueStats;
import io.echomq.queue.ThroughputHistory;
import java.util.Map;

/**
 * A queue's jobs in one state, a page at a time, with the search by id and the queue's actions.
 *
 * <p>Duties: check the page's parameters (state, limit 1..{@value #MAX_LIMIT}, cursor) with a
 * 400 that says what is wrong; read one page with {@link QueueOperations#list} (one script, a
 * bounded range whatever the queue's length) and link the next by its cursor; send a search by
 * id to the job's page, or say that there is no such job; show the queue's flow control
 * ({@link FlowSection}) and say why an empty list is empty when a setting makes it so
 * ({@link EmptyReason}).
 */
final class JobsPage {
    /** Most jobs on one page. */
    static final int MAX_LIMIT = 500;
    /** Jobs on a page when the request names no limit. */
    static final int DEFAULT_LIMIT = 50;

    private final QueueIndex index;
    private final AuditPage audit;

    JobsPage(QueueIndex index, AuditPage audit) {
        this.index = index;
        this.audit = audit;
    }

    /** @return the page, or the job page's path when the request searches an id that exists */
    Answer answer(Request r, Html.Frame f) {
        String name = r.required("name");
        QueueOperations q = index.open(name);
        String search = r.query("id");
        if (search != null && !search.isBlank()) {
            String id = search.strip();
            if (JobDetailPage.find(q, id).isPresent()) {
                return Answer.redirect("/job?queue=" + url(name) + "&id=" + url(id));
            }
            throw HttpError.notFound("no job '" + id + "' in queue '" + name + "' (" + JobDetailPage.NOT_KEPT + ")");
        }
        JobState state = state(r.query("state"));
        int limit = r.limit(DEFAULT_LIMIT, MAX_LIMIT);
        String after = r.query("after");
        JobPage page;
        try {
            page = q.list(state, limit, after == null || after.isEmpty() ? null : after);
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest("cannot list: " + e.getMessage());
        }
        return Answer.html(render(f, q, state, limit, after, page));
    }

    static JobState state(String text) {
        if (text == null || text.isEmpty()) {
            return JobState.PENDING;
        }
        try {
            return JobState.parse(text);
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest(e.getMessage());
        }
    }


    private String render(Html.Frame f, QueueOperations q, JobState state, int limit, String after, JobPage page) {
        String name = q.name();
        String base = "/queue?name=" + url(name);
        QueueStats s = q.stats();
        StringBuilder b = new StringBuilder();
        b.append("<p><a href=\"/\">All queues</a>");
        if (q.isSharded()) {
            b.append(" · sharded into ").append(q.partitions()).append(" partitions, listed one after the other");
        }
        b.append(s.paused() ? " · <span class=\"badge warn\">paused</span>" : " · running")
                .append(" · <a href=\"").append(esc("/schedules?queue=" + url(name))).append("\">Schedules</a>")
                .append(" · <a href=\"").append(esc("/workers?queue=" + url(name))).append("\">Workers</a></p>");
        b.append(QueueActions.queueButtons(f, name, s));
        b.append(FlowSection.render(q, s));
        ThroughputHistory.Window hour = index.throughput(name);
        b.append(ThroughputChart.render(hour));
        b.append(ErrorsPanel.render(index.topErrors(name), hour));
        b.append(audit.section(io.echomq.audit.AuditTarget.queue(name)));
        b.append("<nav class=\"tabs\">");
        for (JobState t : JobState.values()) {
            long n = switch (t) {
                case PENDING -> s.pending();
                case ACTIVE -> s.active();
                case DELAYED -> s.delayed();
                case DEAD -> s.dead();
                case DONE -> s.completed();
                case CANCELLED -> q.cancelledRecorded();
            };
            b.append("<a class=\"tab").append(t == state ? " on" : "").append("\" href=\"")
                    .append(esc(base + "&state=" + t.wireName())).append("\">").append(t.wireName()).append(" <span>")
                    .append(count(n)).append("</span></a>");
        }
        b.append("</nav><form class=\"search\" method=\"get\" action=\"/queue\"><input type=\"hidden\" name=\"name\" value=\"")
                .append(esc(name)).append("\"><input name=\"id\" placeholder=\"Job id\" aria-label=\"Job id\">"
                        + "<button>Find</button></form>");
        if (state == JobState.DEAD && s.dead() > 0) {
            b.append(QueueActions.redriveAllButton(f, name, s.dead()));
        }
        if (page.jobs().isEmpty()) {
            b.append("<p class=\"empty\">No ").append(state.wireName()).append(" jobs")
                    .append(after == null ? "" : " after this point").append(".")
                    .append(after == null ? EmptyReason.of(q, s, state).map(x -> " " + esc(x)).orElse("") : "")
                    .append("</p>");
        } else if (state == JobState.ACTIVE) {
            b.append(WhoRuns.read(index, name).activeTable(page.jobs()));
        } else {
            boolean pick = state == JobState.DEAD;
            Map<String, String> errors = pick
                    ? JobErrors.lastErrors(q, page.jobs().stream().map(JobSummary::id).toList()) : Map.of();
            b.append("<table class=\"jobs\"><thead><tr>").append(pick ? SelectionRedrive.headerCell(f) : "")
                    .append("<th>Id</th><th class=\"n\">Attempts</th><th class=\"n\">Priority</th><th>")
                    .append(esc(whereHeading(state))).append("</th><th>Claimed</th><th>Finished</th>")
                    .append(pick ? "<th>Error</th>" : "").append("</tr></thead><tbody>");
            int n = 0;
            for (JobSummary j : page.jobs()) {
                b.append("<tr>").append(pick ? SelectionRedrive.checkboxCell(f, n++, j.id()) : "").append("<td><a href=\"")
                        .append(esc("/job?queue=" + url(name) + "&id=" + url(j.id()))).append("\">")
                        .append(esc(j.id())).append("</a></td><td class=\"n\">").append(j.attempts())
                        .append("</td><td class=\"n\">").append(j.priority()).append("</td><td>").append(where(j))
                        .append("</td><td>").append(Html.time(j.claimedAt())).append("</td><td>")
                        .append(Html.time(j.finishedAt())).append("</td>")
                        .append(pick ? ErrorsPanel.cell(errors.get(j.id())) : "").append("</tr>");
            }
            b.append("</tbody></table>").append(pick ? SelectionRedrive.form(f, name) : "");
        }
        b.append("<p class=\"pager\">");
        if (after != null) {
            b.append("<a href=\"").append(esc(base + "&state=" + state.wireName() + "&limit=" + limit))
                    .append("\">First page</a> ");
        }
        if (page.next().isPresent()) {
            b.append("<a rel=\"next\" href=\"").append(esc(base + "&state=" + state.wireName() + "&limit=" + limit
                    + "&after=" + url(page.next().get()))).append("\">Next ").append(limit).append(" →</a>");
        }
        b.append("</p><p class=\"note\">").append(esc(order(state))).append(" Each page is read in one step; "
                + "a job that stays in its state across pages is listed exactly once.</p>");
        return Html.page(f, name + " · " + state.wireName(), b.toString());
    }

    private static String whereHeading(JobState state) {
        return switch (state) {
            case PENDING -> "Waits in";
            case ACTIVE -> "Lease deadline";
            case DELAYED -> "Due";
            case DEAD -> "Died";
            case DONE -> "Completed";
            case CANCELLED -> "Cancelled";
        };
    }

    private static String where(JobSummary j) {
        if (j.state() == JobState.PENDING) {
            // the ZSET score (seq - priority * 2^42) is claim order, not a number to read; the priority
            // has its own column, so say which structure the job waits in
            return j.score().isPresent() ? "priority order" : "wait list";
        }
        return Html.time(j.score());
    }

    private static String order(JobState state) {
        return switch (state) {
            case PENDING -> "In claim order: highest priority first, oldest first within a priority.";
            case ACTIVE -> "By running time, longest first, within each page (pages follow the lease deadline). The "
                    + "worker is the one whose last heartbeat lists the job: a job claimed since its worker's last beat "
                    + "(at most one maintenance interval, 2 s by default) shows none yet.";
            case DELAYED -> "By due time, earliest first.";
            case DEAD -> "By time of death, oldest first.";
            case CANCELLED -> "By time of the cancel, oldest first: the last 10,000 cancellations the queue records. "
                    + "A cancelled job's hash is kept as the queue's retention says; one no longer kept shows its id "
                    + "and cancel time only.";
            case DONE -> "By time of completion, oldest first: the completed jobs the queue's retention keeps "
                    + "(the tab counts every completion).";
        };
    }
}
