package io.echomq.dashboard;

import static io.echomq.dashboard.Html.esc;
import static io.echomq.dashboard.Html.url;

import io.echomq.audit.AuditAction;
import io.echomq.audit.AuditTarget;
import io.echomq.audit.AuditTrail;
import io.echomq.queue.JobInfo;
import io.echomq.queue.QueueOperations;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * "Redrive selected" on a queue's dead jobs: the checkboxes, the confirmation, and one typed
 * outcome per job.
 *
 * <ol>
 *   <li>The dead list's checkboxes, each a field {@code pick<n>} whose value is a job id (a form
 *       may not give one parameter twice), tied to one form after the table; none in read-only
 *       mode.</li>
 *   <li>Reads the selection: 1..{@value #MAX_SELECTION} ids, a repeated id once; a 400 that says
 *       so for none or more, before anything is read or changed.</li>
 *   <li>The confirmation page lists the ids; its form posts them with the CSRF value.</li>
 *   <li>The action first reads every job ({@link QueueOperations#inspect}), so that a bad id is a
 *       400 before any job moved; then redrives each dead one by itself, and answers per job
 *       {@code REDRIVEN}, {@code NOT_DEAD} (with the state it is in) or {@code MISSING}, never a
 *       bare "ok". The core's {@code redrive(ids)} answers only a count, so each job is its own
 *       call: at most {@value #MAX_SELECTION} reads and as many redrives.</li>
 * </ol>
 *
 * <p>The router's checks (token, CSRF, origin, read-only) run before either page, as for every
 * action.
 */
final class SelectionRedrive {
    /** The action's name in a form. */
    static final String WIRE = "redrive-selected";
    /** Most jobs one selection may name. */
    static final int MAX_SELECTION = 100;
    /** The start of each checkbox's field name. */
    static final String PICK = "pick";
    private static final String FORM = "redrive-selection";

    private final QueueIndex index;
    private final ActionAudit audit;

    SelectionRedrive(QueueIndex index, ActionAudit audit) {
        this.index = index;
        this.audit = audit;
    }

    /** @return the header cell of the checkbox column; "" when read-only */
    static String headerCell(Html.Frame f) {
        return f.readOnly() ? "" : "<th><span class=\"note\">Select</span></th>";
    }

    /** @return the row's checkbox cell for the {@code n}th job of the page; "" when read-only */
    static String checkboxCell(Html.Frame f, int n, String id) {
        return f.readOnly() ? "" : "<td><input type=\"checkbox\" form=\"" + FORM + "\" name=\"" + PICK + n
                + "\" value=\"" + esc(id) + "\" aria-label=\"" + esc("Select job " + id) + "\"></td>";
    }

    /** @return the form the checkboxes belong to, with its button; "" when read-only */
    static String form(Html.Frame f, String queue) {
        return f.readOnly() ? "" : "<form id=\"" + FORM + "\" class=\"actions\" method=\"get\" action=\"/confirm\">"
                + "<input type=\"hidden\" name=\"queue\" value=\"" + esc(queue) + "\"><input type=\"hidden\" "
                + "name=\"action\" value=\"" + WIRE + "\"><button class=\"redrive-selected\">Redrive selected…</button>"
                + " <span class=\"note\">up to " + MAX_SELECTION + " jobs at a time</span></form>";
    }

    /**
     * @return the selected ids in the order given, each once
     * @throws HttpError 400 for none, or more than {@value #MAX_SELECTION}
     */
    static List<String> selection(Request r) {
        Set<String> ids = new LinkedHashSet<>();
        int fields = 0;
        for (String name : r.names()) {
            if (name.startsWith(PICK) && name.length() > PICK.length()
                    && name.substring(PICK.length()).chars().allMatch(Character::isDigit)) {
                fields++;
                if (fields > MAX_SELECTION) {
                    throw HttpError.badRequest("select at most " + MAX_SELECTION + " jobs at a time");
                }
                String id = r.param(name);
                if (id == null || id.isBlank()) {
                    throw HttpError.badRequest("parameter '" + name + "' names no job");
                }
                ids.add(id);
            }
        }
        if (ids.isEmpty()) {
            throw HttpError.badRequest("select at least one dead job (no " + PICK + "<n> parameter was given)");
        }
        return new ArrayList<>(ids);
    }

    /** {@code GET /confirm?action=redrive-selected}: the selected ids, and the form that redrives them. */
    Answer confirm(Request r, Html.Frame f) {
        String queue = r.required("queue");
        List<String> ids = selection(r);
        index.open(queue);
        StringBuilder b = new StringBuilder("<p class=\"confirm\">").append(esc("Move " + ids.size()
                + (ids.size() == 1 ? " selected job" : " selected jobs") + " of " + queue + " back to pending with a "
                + "fresh budget of attempts. A job that is no longer dead is left as it is."))
                .append("</p><ul class=\"selection\">");
        for (String id : ids) {
            b.append("<li><code>").append(esc(id)).append("</code></li>");
        }
        b.append("</ul><form method=\"post\" action=\"/action\">").append(Html.csrfField(f)).append(hidden("queue", queue))
                .append(hidden("action", WIRE));
        for (int i = 0; i < ids.size(); i++) {
            b.append(hidden(PICK + i, ids.get(i)));
        }
        b.append("<button class=\"danger\">Yes, redrive ").append(ids.size() == 1 ? "it" : "them").append("</button> <a href=\"")
                .append(esc(deadList(queue))).append("\">No, go back</a></form>");
        return Answer.html(Html.page(f, "Confirm: redrive selected", b.toString()));
    }

    /** {@code POST /action} with {@code action=redrive-selected}: redrives each job and shows each outcome. */
    Answer perform(Request r, Html.Frame f) {
        String queue = r.required("queue");
        List<String> ids = selection(r);
        QueueOperations q = index.open(queue);
        Map<String, Optional<JobInfo>> before = new LinkedHashMap<>();
        for (String id : ids) {
            before.put(id, JobDetailPage.find(q, id));
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        List<String> redriven = new ArrayList<>();
        StringBuilder rows = new StringBuilder();
        for (Map.Entry<String, Optional<JobInfo>> e : before.entrySet()) {
            String id = e.getKey();
            String outcome;
            String detail;
            if (e.getValue().isEmpty()) {
                outcome = "MISSING";
                detail = "No such job; nothing changed.";
            } else if (!"dead".equals(e.getValue().get().state())) {
                outcome = "NOT_DEAD";
                detail = "It is " + e.getValue().get().state() + ", not dead; nothing changed.";
            } else if (q.redrive(List.of(id)) == 1) {
                outcome = "REDRIVEN";
                detail = "Pending again, with a fresh budget of attempts.";
            } else {
                outcome = "NOT_DEAD";
                detail = "It left the dead set just before (redriven or removed); nothing changed.";
            }
            counts.merge(outcome, 1, Integer::sum);
            if (outcome.equals("REDRIVEN")) {
                redriven.add(id);
            }
            rows.append("<tr><td><a href=\"").append(esc("/job?queue=" + url(queue) + "&id=" + url(id))).append("\">")
                    .append(esc(id)).append("</a></td><td><code class=\"outcome\">").append(outcome)
                    .append("</code></td><td>").append(esc(detail)).append("</td></tr>");
        }
        StringBuilder summary = new StringBuilder();
        counts.forEach((k, v) -> summary.append(summary.length() == 0 ? "" : " · ").append(k).append(' ').append(v));
        String body = "<p class=\"outcome\">" + esc(summary.toString()) + "</p><table class=\"outcomes\"><thead><tr>"
                + "<th>Job</th><th>Outcome</th><th>What happened</th></tr></thead><tbody>" + rows + "</tbody></table>"
                + "<p><a href=\"" + esc(deadList(queue)) + "\">Back to the dead jobs</a></p>"
                + (redriven.isEmpty() ? "" : audit.record(r, AuditTarget.queue(queue), AuditAction.REDRIVEN,
                        AuditTrail.jobsDetail(redriven.size(), redriven)));
        return Answer.html(Html.page(f, "Redrive selected " + queue, body));
    }

    private static String hidden(String name, String value) {
        return "<input type=\"hidden\" name=\"" + name + "\" value=\"" + esc(value) + "\">";
    }

    private static String deadList(String queue) {
        return "/queue?name=" + url(queue) + "&state=dead";
    }
}
