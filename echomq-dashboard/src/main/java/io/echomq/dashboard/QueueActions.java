package io.echomq.dashboard;

import static io.echomq.dashboard.Html.esc;
import static io.echomq.dashboard.Html.url;

import io.echomq.audit.AuditAction;
import io.echomq.audit.AuditTarget;
import io.echomq.audit.AuditTrail;
import io.echomq.queue.CancelOutcome;
import io.echomq.queue.JobInfo;
import io.echomq.queue.JobState;
import io.echomq.queue.JobSummary;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.QueueStats;
import io.echomq.queue.RemoveOutcome;
import java.util.List;
import java.util.Locale;

/**
 * The operator's actions: remove (and force-remove) a job, cancel it, redrive one dead job, a
 * selection ({@link SelectionRedrive}) or all of them, pause and resume a queue.
 *
 * <ol>
 *   <li>The buttons the pages show, each a link to a confirmation page; none in read-only mode.</li>
 *   <li>The confirmation page ({@code GET /confirm}): what will happen, and the one form that
 *       does it, carrying the CSRF value. It names the queue, and what the action touches as read
 *       now: a job's id and state (ids repeat across queues), or a queue's counts; "redrive all"
 *       the number of dead jobs and the first {@value #FIRST_IDS} ids.</li>
 *   <li>The action ({@code POST /action}, after {@link Guard#checkAction}): one call of the public
 *       queue API, and a page that shows its typed outcome ({@code REMOVED}, {@code LOCKED},
 *       {@code MISSING}, …) in the words of the {@code emq} command, never a bare "ok".</li>
 * </ol>
 */
final class QueueActions {
    /** Dead jobs per redrive call of "redrive all". */
    static final int REDRIVE_BATCH = 1000;
    /** "Redrive all" stops after this long and says how many are left, so a request never runs for minutes. */
    static final long REDRIVE_ALL_BUDGET_MS = 5_000;
    /** Dead ids a "redrive all" confirmation names. */
    static final int FIRST_IDS = 5;

    /** The actions, by the name a form posts. */
    enum Action {
        REMOVE("remove", "Remove", true),
        FORCE_REMOVE("force-remove", "Remove even while a worker holds it", true),
        CANCEL("cancel", "Cancel", true),
        REDRIVE("redrive", "Redrive", true),
        REDRIVE_ALL("redrive-all", "Redrive every dead job", false),
        PAUSE("pause", "Pause", false),
        RESUME("resume", "Resume", false);

        final String wire;
        final String label;
        final boolean needsId;

        Action(String wire, String label, boolean needsId) {
            this.wire = wire;
            this.label = label;
            this.needsId = needsId;
        }

        static Action parse(String wire) {
            for (Action a : values()) {
                if (a.wire.equals(wire)) {
                    return a;
                }
            }
            throw HttpError.badRequest("unknown action '" + wire + "'; expected one of remove, force-remove, cancel, "
                    + "redrive, redrive-selected, redrive-all, pause, resume");
        }
    }

    private final QueueIndex index;
    private final SelectionRedrive selection;
    private final ActionAudit audit;

    QueueActions(QueueIndex index, ActionAudit audit) {
        this.index = index;
        this.audit = audit;
        this.selection = new SelectionRedrive(index, audit);
    }


    /** @return the pause or resume button of a queue; "" when read-only */
    static String queueButtons(Html.Frame f, String queue, QueueStats s) {
        if (f.readOnly()) {
            return "";
        }
        return "<p class=\"actions\">" + button(queue, s.paused() ? Action.RESUME : Action.PAUSE, null) + "</p>";
    }

    /** @return the redrive-all button; "" when read-only */
    static String redriveAllButton(Html.Frame f, String queue, long dead) {
        return f.readOnly() ? "" : "<p class=\"actions\">" + button(queue, Action.REDRIVE_ALL, null)
                + " <span class=\"note\">" + Html.count(dead) + " dead</span></p>";
    }

    /** @return the buttons that fit a job's state; "" when read-only */
    static String jobButtons(Html.Frame f, String queue, JobInfo j) {
        if (f.readOnly()) {
            return "";
        }
        StringBuilder b = new StringBuilder("<p class=\"actions\">");
        if ("dead".equals(j.state())) {
            b.append(button(queue, Action.REDRIVE, j.id())).append(' ');
        }
        if (List.of("pending", "delayed", "active").contains(j.state())) {
            b.append(button(queue, Action.CANCEL, j.id())).append(' ');
        }
        b.append(button(queue, Action.REMOVE, j.id()));
        return b.append("</p>").toString();
    }

    private static String button(String queue, Action a, String id) {
        String href = "/confirm?queue=" + url(queue) + "&action=" + a.wire + (id == null ? "" : "&id=" + url(id));
        return "<a class=\"button " + a.wire + "\" href=\"" + esc(href) + "\">" + esc(a.label) + "…</a>";
    }

    /** {@code GET /confirm}: what the action will do, and the form that does it. */
    Answer confirm(Request r, Html.Frame f) {
        if (SelectionRedrive.WIRE.equals(r.param("action"))) {
            return selection.confirm(r, f);
        }
        String queue = r.required("queue");
        Action a = Action.parse(r.required("action"));
        String id = a.needsId ? r.required("id") : null;
        QueueOperations q = index.open(queue);
        String job = id == null ? null : "job " + id + " of queue " + queue + " (" + stateNow(q, id) + ")";
        String what = switch (a) {
            case REMOVE -> "Remove " + job + " wherever it is, with its lock and idempotency key. If a worker "
                    + "holds it, nothing changes and the answer is LOCKED.";
            case FORCE_REMOVE -> "Remove " + job + " even while a worker holds it; that worker's complete or fail "
                    + "is then refused.";
            case CANCEL -> "Cancel " + job + ": pending or delayed, it will not run; running, its attempt ends "
                    + "and its worker is told.";
            case REDRIVE -> "Move dead " + job + " back to pending with a fresh budget of attempts.";
            case REDRIVE_ALL -> redriveAllText(q);
            case PAUSE -> "Pause claims on queue " + queue + " for every worker (" + counts(q.stats())
                    + "); running jobs go on and settle.";
            case RESUME -> "Resume claims on queue " + queue + " (" + counts(q.stats()) + ") and wake its idle workers.";
        };
        String body = "<p class=\"confirm\">" + esc(what) + "</p><form method=\"post\" action=\"/action\">"
                + Html.csrfField(f) + hidden("queue", queue) + hidden("action", a.wire)
                + (id == null ? "" : hidden("id", id))
                + "<button class=\"danger\">Yes, " + esc(a.label.toLowerCase(Locale.ROOT)) + "</button> "
                + "<a href=\"" + esc(back(queue, id)) + "\">No, go back</a></form>";
        return Answer.html(Html.page(f, "Confirm: " + a.label.toLowerCase(Locale.ROOT)
                + (id == null ? " · " + queue : " · job " + id + " of " + queue), body));
    }

    /** {@code POST /action}: runs the action and shows its typed outcome. */
    Answer perform(Request r, Html.Frame f) {
        if (SelectionRedrive.WIRE.equals(r.param("action"))) {
            return selection.perform(r, f);
        }
        String queue = r.required("queue");
        Action a = Action.parse(r.required("action"));
        String id = a.needsId ? r.required("id") : null;
        QueueOperations q = index.open(queue);
        String outcome;
        String detail;
        AuditAction done = null;   // what to record, when the action changed something
        String doneDetail = null;
        try {
            switch (a) {
                case REMOVE, FORCE_REMOVE -> {
                    RemoveOutcome o = q.remove(id, a == Action.FORCE_REMOVE);
                    outcome = o.name();
                    if (o == RemoveOutcome.REMOVED) {
                        done = AuditAction.REMOVED;
                        doneDetail = "job " + id + (a == Action.FORCE_REMOVE ? " (forced)" : "");
                    }
                    detail = switch (o) {
                        case REMOVED -> "The job, its lock and its idempotency key are gone.";
                        case LOCKED -> "A worker holds the job; nothing changed. Remove it with force to take it anyway.";
                        case MISSING -> "No such job; nothing changed.";
                    };
                }
                case CANCEL -> {
                    CancelOutcome o = q.cancel(id);
                    outcome = o.name();
                    if (o == CancelOutcome.CANCELLED || o == CancelOutcome.SIGNALLED) {
                        done = AuditAction.CANCELLED;
                        doneDetail = "job " + id + " (" + o + ")";
                    }
                    detail = switch (o) {
                        case CANCELLED -> "The job left its set and will not run.";
                        case SIGNALLED -> "The job was running: its attempt is ended and its worker is told.";
                        case ALREADY_FINISHED -> "The job is done, dead or cancelled already; nothing changed.";
                        case NOT_FOUND -> "No such job in any of the queue's sets; nothing changed.";
                    };
                }
                case REDRIVE -> {
                    boolean moved = q.redrive(List.of(id)) == 1;
                    outcome = moved ? "REDRIVEN" : "NOT_DEAD";
                    if (moved) {
                        done = AuditAction.REDRIVEN;
                        doneDetail = AuditTrail.jobsDetail(1, List.of(id));
                    }
                    detail = moved ? "The job is pending again, with a fresh budget of attempts."
                            : "The job is not in the dead set (redriven or removed already); nothing changed.";
                }
                case REDRIVE_ALL -> {
                    List<String> first = q.list(JobState.DEAD, FIRST_IDS, null).jobs().stream().map(JobSummary::id)
                            .toList();
                    long total = 0;
                    long deadline = System.nanoTime() + REDRIVE_ALL_BUDGET_MS * 1_000_000;
                    long moved;
                    do {
                        moved = q.redrive(REDRIVE_BATCH);
                        total += moved;
                    } while (moved > 0 && System.nanoTime() < deadline);
                    long left = q.stats().dead();
                    outcome = "REDRIVEN " + Html.count(total);
                    if (total > 0) {
                        done = AuditAction.REDRIVEN;
                        doneDetail = AuditTrail.jobsDetail(total, first);
                    }
                    detail = left == 0 ? "No dead job is left."
                            : Html.count(left) + " dead jobs are left (stopped after " + REDRIVE_ALL_BUDGET_MS / 1000
                                    + " s, or they cannot be redriven: a dead entry without a job hash stays dead).";
                }
                case PAUSE -> {
                    boolean changed = q.pause();
                    outcome = changed ? "PAUSED" : "ALREADY_PAUSED";
                    done = changed ? AuditAction.PAUSED : null;
                    detail = "No job of the queue is claimed until it is resumed.";
                }
                case RESUME -> {
                    boolean changed = q.resume();
                    outcome = changed ? "RESUMED" : "NOT_PAUSED";
                    done = changed ? AuditAction.RESUMED : null;
                    detail = "Claims go on; idle workers were woken.";
                }
                default -> throw new IllegalStateException(a.name());
            }
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest(e.getMessage());
        }
        String body = "<p class=\"outcome\">" + esc(outcome) + "</p><p>" + esc(detail) + "</p><p><a href=\""
                + esc(back(queue, a == Action.REMOVE || a == Action.FORCE_REMOVE ? null : id)) + "\">Back</a>"
                + (a == Action.REMOVE && outcome.equals("LOCKED")
                        ? " · <a class=\"button\" href=\"" + esc("/confirm?queue=" + url(queue) + "&action="
                                + Action.FORCE_REMOVE.wire + "&id=" + url(id)) + "\">" + esc(Action.FORCE_REMOVE.label)
                                + "…</a>" : "")
                + "</p>" + (done == null ? "" : audit.record(r, AuditTarget.queue(queue), done, doneDetail));
        return Answer.html(Html.page(f, a.label + (id == null ? " " + queue : " job " + id + " of " + queue), body));
    }

    /** @return what "redrive all" will move: the count now and the first ids, oldest death first */
    private static String redriveAllText(QueueOperations q) {
        long dead = q.stats().dead();
        if (dead == 0) {
            return "Queue " + q.name() + " has no dead job now: redriving all moves nothing.";
        }
        List<String> first = q.list(JobState.DEAD, FIRST_IDS, null).jobs().stream().map(JobSummary::id).toList();
        return "Move all " + Html.count(dead) + (dead == 1 ? " dead job" : " dead jobs") + " of queue " + q.name()
                + " back to pending with a fresh budget of attempts; the oldest " + (first.size() == 1 ? "is " : "are ")
                + String.join(", ", first) + (dead > first.size() ? ", …" : "") + ". Jobs that die while it runs "
                + "may be moved too.";
    }

    private static String counts(QueueStats s) {
        return Html.count(s.pending()) + " pending, " + Html.count(s.active()) + " active, " + Html.count(s.delayed())
                + " delayed";
    }

    /** @return the job's state as read now, for the confirmation; "not found now" when it is not kept */
    private static String stateNow(QueueOperations q, String id) {
        return JobDetailPage.find(q, id).map(j -> j.state() + " now").orElse("not found now");
    }

    private static String hidden(String name, String value) {
        return "<input type=\"hidden\" name=\"" + name + "\" value=\"" + esc(value) + "\">";
    }

    private static String back(String queue, String id) {
        return id == null ? "/queue?name=" + url(queue) : "/job?queue=" + url(queue) + "&id=" + url(id);
    }
}
