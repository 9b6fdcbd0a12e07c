package io.echomq.dashboard;

import static io.echomq.dashboard.Html.esc;
import static io.echomq.dashboard.Html.url;

import io.echomq.lock.LockClient;
import io.echomq.lock.LockInfo;
import io.echomq.queue.JobInfo;
import io.echomq.queue.JobLock;
import io.echomq.queue.QueueOperations;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One lock's own page: a lock of the lock client's namespace ({@code /lock?resource=r}), or a
 * job's worker-side lease ({@code /lock?queue=q&job=id}).
 *
 * <ol>
 *   <li>A namespace lock, read with {@link LockClient#inspect} (one script): held or not, the
 *       holder's label, its token by its first {@value LocksPage#TOKEN_SHOWN} characters only (the
 *       whole token can release the lock), the ttl left, the last grant or renewal (known for a
 *       labelled holder only), the last fence and the server time it dates
 *       (a fence is the server's clock in microseconds at its grant, not a count of grants); the
 *       queue it serves when it is a queue's maintenance lock. Locks write no events, and the page
 *       says so rather than show an empty history. A resource that is neither held nor has a live
 *       fence key is a 404. A held lock has the takeover button ({@link LockTakeover}) unless
 *       the dashboard is read-only.</li>
 *   <li>A job's lease, read with {@link JobLock#read} (its lock subkey, else its score in active):
 *       held or not, the attempt it holds,
 *       the lease left, a link to the job, and the job's timeline from its queue's events stream
 *       ({@link TimelineSection}). An unknown queue or job is a 404.</li>
 *   <li>Bad input (no parameters, both forms at once, an invalid resource or id) is a 400 that
 *       says what is wrong.</li>
 * </ol>
 */
final class LockPage {
    /** The resource of a queue's maintenance lock ({@code QueueKeys.maintenanceResource}). */
    private static final Pattern MAINTENANCE = Pattern.compile("queue:(.+):maintenance");
    /** Fences at or above this are server microseconds (2001 on); below, an old counter. */
    private static final long CLOCK_FENCE = 1_000_000_000_000_000L;

    private final LockClient locks;
    private final QueueIndex index;
    private final AuditPage audit;

    /** @param locks the client whose namespace to show, or null when the dashboard has none */
    LockPage(LockClient locks, QueueIndex index, AuditPage audit) {
        this.locks = locks;
        this.index = index;
        this.audit = audit;
    }

    Answer answer(Request r, Html.Frame f) {
        String resource = r.query("resource");
        String queue = r.query("queue");
        String job = r.query("job");
        if (resource != null && (queue != null || job != null)) {
            throw HttpError.badRequest("name either a lock (resource) or a job's lock (queue and job), not both");
        }
        if (resource != null) {
            return Answer.html(lock(f, resource));
        }
        if (queue == null && job == null) {
            throw HttpError.badRequest("missing parameter 'resource' (a lock) or 'queue' and 'job' (a job's lock)");
        }
        return Answer.html(jobLock(f, r.required("queue"), r.required("job"), TimelineSection.window(r)));
    }

    private String lock(Html.Frame f, String resource) {
        if (locks == null) {
            throw HttpError.notFound("this dashboard was started without a lock client: no locks to show");
        }
        if (resource.isEmpty()) {
            throw HttpError.badRequest("missing parameter 'resource'");
        }
        LockInfo l;
        try {
            l = locks.inspect(resource);
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest("not a lock resource: " + e.getMessage());
        }
        if (!l.isHeld() && l.lastFence() == 0) {
            throw HttpError.notFound("no lock on '" + resource + "' is held, and none was granted within its last ttl "
                    + "(no fence key lives)");
        }
        StringBuilder b = new StringBuilder("<p><a href=\"/locks\">All held locks</a></p><dl class=\"facts\">");
        fact(b, "Resource", "<code>" + esc(resource) + "</code>");
        fact(b, "Held", l.isHeld() ? "<span class=\"state active\">held</span>" : "<span class=\"state\">not held</span>");
        if (l.isHeld()) {
            String token = l.holderToken().orElse("");
            fact(b, "Holder", l.holderLabel().map(x -> "<strong>" + esc(x) + "</strong>").orElse("<span class=\"note\">"
                    + "no label: its client was given none (LockClient.Builder.holderLabel), or it is not an EchoMQ "
                    + "client</span>"));
            fact(b, "Holder token", "<code>" + esc(token.length() > LocksPage.TOKEN_SHOWN
                    ? token.substring(0, LocksPage.TOKEN_SHOWN) + "…" : token) + "</code> <span class=\"note\">the first "
                    + LocksPage.TOKEN_SHOWN + " characters only: the whole token can release the lock</span>");
            fact(b, "Ttl left", l.ttlMillis() == -1 ? "<span class=\"bad\">no expiry</span> <span class=\"note\">"
                    + "it will never be freed by itself</span>" : ms(l.ttlMillis()));
            fact(b, "Last renewal", l.lastRenewalAgo().map(d -> ms(d.toMillis()) + " ago <span class=\"note\">granted "
                    + "or renewed; a holder whose renewals stopped shows it growing toward its lease's ttl</span>")
                    .orElse("<span class=\"note\">unknown: only a labelled holder's value carries its lease's ttl"
                            + (l.ttlMillis() == -1 ? ", and a lock with no expiry has none" : "") + "</span>"));
        }
        fact(b, "Last fence", l.lastFence() == 0 ? "— (no fence key lives)" : Long.toString(l.lastFence()));
        if (l.lastFence() >= CLOCK_FENCE) {
            fact(b, "Last granted", Html.time(OptionalLong.of(l.lastFence() / 1000)) + " <span class=\"note\">about: "
                    + "a fence is the server's clock in µs at its grant, or one above the fence before</span>");
        }
        Matcher m = MAINTENANCE.matcher(resource);
        if (m.matches()) {
            fact(b, "Serves", "the maintenance (reap and promote) of queue <a href=\"" + esc("/queue?name=" + url(m.group(1)))
                    + "\">" + esc(m.group(1)) + "</a>");
        }
        b.append("</dl>").append(LockTakeover.button(f, l)).append("<h2>History</h2><p class=\"empty\">No per-lock history of "
                + "grants is recorded: locks write no events stream. The last fence above dates the last grant; it is "
                + "not a count of grants. A job's own lock (its lease) has its job's timeline: open it from an active "
                + "job's page.</p>").append(audit.section(io.echomq.audit.AuditTarget.lock(resource)));
        return Html.page(f, "Lock " + resource, b.toString());
    }

    private String jobLock(Html.Frame f, String queue, String id, int window) {
        QueueOperations q = index.open(queue);
        JobInfo job = JobDetailPage.find(q, id).orElseThrow(() -> HttpError.notFound("no job '" + id + "' in queue '"
                + queue + "' (" + JobDetailPage.NOT_KEPT + ")"));
        JobLock lock;
        try {
            lock = JobLock.read(q, id);
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest("not a job id: " + e.getMessage());
        }
        String jobHref = "/job?queue=" + url(queue) + "&id=" + url(id);
        StringBuilder b = new StringBuilder("<dl class=\"facts\">");
        fact(b, "Job", "<a href=\"" + esc(jobHref) + "\">" + esc(id) + "</a> of queue " + esc(queue)
                + ", <span class=\"state " + esc(job.state()) + "\">" + esc(job.state()) + "</span>");
        fact(b, "Held", lock.held() ? "<span class=\"state active\">held by the worker of attempt "
                + (lock.attempt() < 0 ? "(not a number)" : Long.toString(lock.attempt())) + "</span>"
                : "<span class=\"state\">not held</span> <span class=\"note\">no lease runs</span>");
        if (lock.held()) {
            fact(b, "Lease left", lock.ttlMillis() == -1 ? "<span class=\"bad\">no expiry</span>" : ms(lock.ttlMillis()));
        }
        b.append("</dl><p class=\"note\">A lease runs while the job's deadline in the queue's active set is ahead "
                + "of the server's clock (and, in the ZSET layout, while its lock subkey exists); its worker must "
                + "present the attempt (the fence) to settle the job.</p>");
        b.append(TimelineSection.render(q, job, window, "/lock?queue=" + url(queue) + "&job=" + url(id)));
        return Html.page(f, "Lock of job " + id, b.toString());
    }

    /**
     * @return the holder in one line, for a confirmation: its label when it has one, its token's
     *     first {@value LocksPage#TOKEN_SHOWN} characters, the last fence, the ttl left and the last renewal
     */
    static String describe(LockInfo l) {
        StringBuilder d = new StringBuilder(l.holderLabel().orElse("(no label)")).append(" (token ")
                .append(LockTakeover.prefix(l.holderToken().orElse(""))).append("…, fence ").append(l.lastFence())
                .append(", ").append(l.ttlMillis() == -1 ? "no expiry" : ms(l.ttlMillis()) + " left");
        l.lastRenewalAgo().ifPresent(a -> d.append(", last renewed ").append(ms(a.toMillis())).append(" ago"));
        return d.append(')').toString();
    }

    private static String ms(long ms) {
        return ms < 10_000 ? ms + " ms" : String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
    }

    private static void fact(StringBuilder b, String term, String html) {
        b.append("<dt>").append(esc(term)).append("</dt><dd>").append(html).append("</dd>");
    }
}
