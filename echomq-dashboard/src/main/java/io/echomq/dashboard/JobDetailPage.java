package io.echomq.dashboard;

import static io.echomq.dashboard.Html.esc;
import static io.echomq.dashboard.Html.url;

import io.echomq.queue.JobInfo;
import io.echomq.queue.JobPage;
import io.echomq.queue.JobState;
import io.echomq.queue.JobSummary;
import io.echomq.queue.QueueOperations;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One job: what it carries, how its tries went, and the actions that fit its state.
 *
 * <p>Duties: read the job's hash ({@link QueueOperations#inspect}); show the payload and the
 * last error through {@link Payloads} (cut, binary as hex); find an active job's lease deadline
 * in the active listing, reading at most {@value #DEADLINE_PAGES} pages of
 * {@value #DEADLINE_PAGE} (the active set is as large as the workers' concurrency, so this is
 * almost always one page), and say so when it was not found within them; show the job's
 * timeline through {@link TimelineSection}.
 */
final class JobDetailPage {
    static final int DEADLINE_PAGE = 1000;
    static final int DEADLINE_PAGES = 5;
    /**
     * Why a job's hash may be gone, said wherever a job id finds none: a completed job's hash is
     * deleted at completion unless the queue's retention keeps it (the client's default).
     */
    static final String NOT_KEPT = "it may have been removed, or it completed: a completed job keeps no hash "
            + "unless the queue's retention asks (docs/queue.md, \"Retention\")";
    /** Most characters of the last error shown. */
    static final int ERROR_CHARS = 16_384;

    private final QueueIndex index;

    JobDetailPage(QueueIndex index) {
        this.index = index;
    }

    /**
     * @return the job, or empty when there is none
     * @throws HttpError 400 when the id is no job id
     */
    static Optional<JobInfo> find(QueueOperations q, String id) {
        try {
            return q.inspect(id);
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest("not a job id: " + e.getMessage());
        }
    }

    Answer answer(Request r, Html.Frame f) {
        String name = r.required("queue");
        String id = r.required("id");
        int window = TimelineSection.window(r);
        QueueOperations q = index.open(name);
        JobInfo job = find(q, id).orElseThrow(() -> HttpError.notFound("no job '" + id + "' in queue '" + name
                + "' (" + NOT_KEPT + ")"));
        return Answer.html(render(f, q, job, window));
    }

    private String render(Html.Frame f, QueueOperations q, JobInfo j, int window) {
        String name = q.name();
        StringBuilder b = new StringBuilder();
        b.append("<p><a href=\"").append(esc("/queue?name=" + url(name))).append("\">Queue ").append(esc(name))
                .append("</a></p>");
        b.append(QueueActions.jobButtons(f, name, j));
        b.append("<dl class=\"facts\">");
        fact(b, "State", "<span class=\"state " + esc(j.state()) + "\">" + esc(j.state()) + "</span>");
        fact(b, "Attempts granted (fence)", Long.toString(j.attempts()));
        fact(b, "Spent / max", number(j::spent) + " / " + number(j::maxAttempts));
        fact(b, "Priority", esc(orDash(j.field("priority"), "0")));
        fact(b, "Enqueued", Html.time(j.field("created_at")));
        fact(b, "Last claimed", Html.time(j.field("claimed_at")));
        if ("active".equals(j.state())) {
            WhoRuns who = WhoRuns.read(index, name);
            fact(b, "Worker", who.workerFact(j.id()));
            fact(b, "Running for", who.runningFor(claimedAt(j)));
            fact(b, "Lease deadline", leaseDeadline(q, j.id()));
            fact(b, "Worker's lock", "<a href=\"" + esc("/lock?queue=" + url(name) + "&job=" + url(j.id()))
                    + "\">the job's lease</a>");
        }
        fact(b, "Finished", Html.time(j.field("finished_at")));
        if (j.field("progress") != null) {
            fact(b, "Progress", esc(j.field("progress")));
        }
        if (j.deadReason().isPresent()) {
            fact(b, "Dead because", esc(j.deadReason().get()));
        }
        b.append("</dl>");
        b.append(TimelineSection.render(q, j, window, "/job?queue=" + url(name) + "&id=" + url(j.id())));
        Payloads.Preview p = Payloads.of(j.payload());
        b.append("<h2>Payload <span class=\"note\">").append(Html.count(p.total())).append(" bytes")
                .append(p.binary() ? ", binary, shown as hex" : "")
                .append(p.cut() ? ", only the start shown" : "").append("</span></h2><pre class=\"payload\">")
                .append(esc(p.text())).append("</pre>");
        if (j.lastError().isPresent()) {
            String e = j.lastError().get();
            boolean cut = e.length() > ERROR_CHARS;
            b.append("<h2>Last error").append(cut ? " <span class=\"note\">only the start shown</span>" : "")
                    .append("</h2><pre class=\"error\">").append(esc(cut ? e.substring(0, ERROR_CHARS) : e))
                    .append("</pre>");
        }
        b.append(ErrorsPanel.attempts(j.attemptErrors()));
        return Html.page(f, "Job " + j.id(), b.toString());
    }

    /** @return the lease deadline of an active job, from a bounded walk of the active listing */
    private static String leaseDeadline(QueueOperations q, String id) {
        String cursor = null;
        for (int i = 0; i < DEADLINE_PAGES; i++) {
            JobPage page = q.list(JobState.ACTIVE, DEADLINE_PAGE, cursor);
            for (JobSummary s : page.jobs()) {
                if (s.id().equals(id)) {
                    OptionalLong deadline = s.score();
                    return Html.time(deadline);
                }
            }
            if (page.next().isEmpty()) {
                return "— (no longer active)";
            }
            cursor = page.next().get();
        }
        return "— (not among the first " + Html.count((long) DEADLINE_PAGE * DEADLINE_PAGES) + " active jobs)";
    }

    /** @return the job's last claim, server epoch ms, when it holds one as a number */
    private static OptionalLong claimedAt(JobInfo j) {
        try {
            String v = j.field("claimed_at");
            return v == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(v.strip()));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    private static String number(java.util.function.LongSupplier read) {
        try {
            return Long.toString(read.getAsLong());
        } catch (NumberFormatException e) {
            return "(not a number)";
        }
    }

    private static String orDash(String v, String absent) {
        return v == null ? absent : v;
    }

    private static void fact(StringBuilder b, String term, String html) {
        b.append("<dt>").append(esc(term)).append("</dt><dd>").append(html).append("</dd>");
    }
}
