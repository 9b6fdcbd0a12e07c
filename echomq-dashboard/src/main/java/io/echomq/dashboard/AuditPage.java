package io.echomq.dashboard;

import static io.echomq.dashboard.Html.esc;
import static io.echomq.dashboard.Html.url;

import io.echomq.audit.AuditEntry;
import io.echomq.audit.AuditTarget;
import io.echomq.audit.AuditTrail;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * The audit trail as the operator reads it: who did what to which queue or lock, and when.
 *
 * <p>Duties: the page {@code GET /audit} (every record, or one queue's with {@code ?queue=} or one
 * lock's with {@code ?lock=}, newest first, {@value #DEFAULT_LIMIT} unless {@code ?limit=} asks for up
 * to {@value AuditTrail#MAX_READ}); and the short section of a queue's or a lock's page, its last
 * {@value #SECTION} records with a link to the rest. Each says, when empty, what records there
 * would be.
 */
final class AuditPage {
    /** Records the page shows unless asked. */
    static final int DEFAULT_LIMIT = 100;
    /** Records a queue's or a lock's section shows. */
    static final int SECTION = 5;
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS 'UTC'")
            .withZone(ZoneOffset.UTC);

    private final AuditTrail trail;

    AuditPage(AuditTrail trail) {
        this.trail = trail;
    }

    /** {@code GET /audit}. */
    Answer answer(Request r, Html.Frame f) {
        int limit = r.limit(DEFAULT_LIMIT, AuditTrail.MAX_READ);
        AuditTarget only = target(r);
        List<AuditEntry> entries = only == null ? trail.recent(limit) : trail.recent(only, limit);
        StringBuilder b = new StringBuilder();
        b.append("<p>Operator actions on this server, newest first: pauses, resumes, redrives, purges, deletions, "
                + "cancels, removals, rate limit and cap changes, and lock takeovers, as <code>emq</code> and this "
                + "dashboard record them, with who acted. The server keeps about ")
                .append(Html.count(AuditTrail.MAX_ENTRIES)).append(" records, the oldest dropped first.");
        if (only != null) {
            b.append(" Only ").append(esc(only.toString())).append(" · <a href=\"/audit\">every record</a>");
        }
        b.append("</p>");
        if (entries.isEmpty()) {
            b.append("<p class=\"empty\">").append(only == null ? "No operator action was recorded on this server."
                    : "No operator action was recorded on " + esc(only.toString()) + ".").append("</p>");
        } else {
            b.append(table(entries, only == null));
        }
        return Answer.html(Html.page(f, only == null ? "Audit trail" : "Audit trail · " + only, b.toString()));
    }

    /** @return the last few records of one queue or lock, as a page section with a link to the rest */
    String section(AuditTarget target) {
        List<AuditEntry> entries = trail.recent(target, SECTION);
        String all = "/audit?" + target.kind().field() + "=" + url(target.name());
        StringBuilder b = new StringBuilder("<section class=\"audit\"><h2>Operator actions</h2>");
        if (entries.isEmpty()) {
            b.append("<p class=\"empty\">No operator action was recorded on this ").append(target.kind().field())
                    .append(": pauses, redrives, purges, cancels, limit changes and takeovers made with emq or this "
                            + "dashboard are listed here.</p>");
        } else {
            b.append(table(entries, false)).append("<p><a href=\"").append(esc(all)).append("\">All of its records"
                    + "</a></p>");
        }
        return b.append("</section>").toString();
    }

    private static String table(List<AuditEntry> entries, boolean withTarget) {
        StringBuilder b = new StringBuilder("<table class=\"audit\"><thead><tr><th>When</th><th>Action</th>")
                .append(withTarget ? "<th>On</th>" : "").append("<th>Who</th><th>Detail</th></tr></thead><tbody>");
        for (AuditEntry e : entries) {
            b.append("<tr><td>").append(esc(TIME.format(e.at()))).append("</td><td><code>").append(esc(e.action()))
                    .append("</code></td>");
            if (withTarget) {
                String href = e.target().kind() == AuditTarget.Kind.QUEUE ? "/queue?name=" + url(e.target().name())
                        : "/lock?resource=" + url(e.target().name());
                b.append("<td>").append(esc(e.target().kind().field())).append(" <a href=\"").append(esc(href))
                        .append("\">").append(esc(e.target().name())).append("</a></td>");
            }
            b.append("<td>").append(esc(e.who())).append("</td><td>").append(esc(e.detail())).append("</td></tr>");
        }
        return b.append("</tbody></table>").toString();
    }

    /** @return the queue or lock asked for, or null for every record */
    private static AuditTarget target(Request r) {
        String queue = r.query("queue");
        String lock = r.query("lock");
        if (queue != null && lock != null) {
            throw HttpError.badRequest("give queue or lock, not both");
        }
        try {
            return queue != null ? AuditTarget.queue(queue) : lock != null ? AuditTarget.lock(lock) : null;
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest(e.getMessage());
        }
    }
}
