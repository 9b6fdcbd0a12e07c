package io.echomq.dashboard;

import static io.echomq.dashboard.Html.esc;
import static io.echomq.dashboard.Html.url;

import io.echomq.audit.AuditAction;
import io.echomq.audit.AuditTarget;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.LockInfo;
import io.echomq.lock.ReleaseOutcome;
import java.time.Duration;
import java.util.Optional;

/**
 * The operator's guarded takeover of a lock of the lock client's namespace, from the lock's page.
 *
 * <ol>
 *   <li>The button on a held lock's page: a link to the confirmation that carries the holder's
 *       token by its first {@value LocksPage#TOKEN_SHOWN} characters and the last fence, as the
 *       page showed them; none in read-only mode.</li>
 *   <li>The confirmation ({@code GET /confirm?action=takeover}): reads the lock again and, while
 *       its holder and last fence are still the ones seen, names the resource, the holder's label,
 *       token prefix, fence, ttl left and last renewal, says plainly that an old holder that still
 *       runs is stopped only by the fence, and shows the one form that does it, with the CSRF value,
 *       the new lease's ttl and whether to free the lock at once or hold it for that ttl. A lock
 *       that changed since is said so, with no form.</li>
 *   <li>The action ({@code POST /action}, after the router's token, CSRF, origin and read-only
 *       checks): one {@link LockClient#takeover}, which decides in one script, against the holder
 *       prefix and fence the confirmation showed; then, with {@code then=free}, a release of the new
 *       lease. It answers {@code TAKEN}, {@code TAKEN_AND_FREED} or {@code REFUSED}, with the new
 *       fence; never the new lease's whole token.</li>
 * </ol>
 *
 * <p>The new lease is the dashboard's lock client's, with no watchdog: held, it ends by its ttl.
 */
final class LockTakeover {
    /** The action's name in a form. */
    static final String WIRE = "takeover";
    /** The new lease's ttl the confirmation proposes, in milliseconds. */
    static final long DEFAULT_TTL_MS = 30_000;

    private final LockClient locks;
    private final ActionAudit audit;

    /** @param locks the client whose namespace the dashboard shows, or null when it has none */
    LockTakeover(LockClient locks, ActionAudit audit) {
        this.locks = locks;
        this.audit = audit;
    }

    /** @return the takeover button of a held lock; "" when read-only or not held */
    static String button(Html.Frame f, LockInfo l) {
        if (f.readOnly() || !l.isHeld() || l.holderToken().orElse("").length() < LockClient.MIN_TAKEOVER_PREFIX) {
            return "";
        }
        String href = "/confirm?action=" + WIRE + "&resource=" + url(l.resource()) + "&holder="
                + url(prefix(l.holderToken().orElseThrow())) + "&fence=" + l.lastFence();
        return "<p class=\"actions\"><a class=\"button takeover\" href=\"" + esc(href) + "\">Take over…</a> "
                + "<span class=\"note\">for a holder that is stuck: the lock moves to this dashboard with a higher "
                + "fence</span></p>";
    }

    /** @return the first {@value LocksPage#TOKEN_SHOWN} characters of a token, the part pages show */
    static String prefix(String token) {
        return token.length() > LocksPage.TOKEN_SHOWN ? token.substring(0, LocksPage.TOKEN_SHOWN) : token;
    }

    /** {@code GET /confirm?action=takeover}: the lock as read now, and the form that takes it over. */
    Answer confirm(Request r, Html.Frame f) {
        Seen seen = seen(r);
        LockInfo now = inspect(seen.resource());
        String back = "/lock?resource=" + url(seen.resource());
        StringBuilder b = new StringBuilder();
        String changed = changed(now, seen);
        if (changed != null) {
            b.append("<p class=\"confirm\">").append(esc("Lock " + seen.resource() + " changed since its page was read: "
                    + changed + ". Nothing can be taken over from the holder seen.")).append("</p><p><a href=\"")
                    .append(esc(back)).append("\">Back to the lock, as it is now</a></p>");
            return Answer.html(Html.page(f, "Confirm: take over · " + seen.resource(), b.toString()));
        }
        b.append("<p class=\"confirm\">").append(esc("Take lock " + seen.resource() + " over from its holder "
                + LockPage.describe(now) + ". In one step on the server, and only while the holder's token still "
                + "starts with " + seen.holder() + (seen.fence() > 0 ? " and the last fence is still " + seen.fence()
                : "") + ", the lock goes to this dashboard with a fence above every earlier one.")).append("</p>");
        b.append("<p class=\"confirm warn\"><strong>The old holder is not stopped.</strong> ").append(esc("If it still "
                + "runs, only the fence stops it: its renew and release answer NOT_OWNER and its fenced writes are "
                + "refused once a write with a higher fence is stored, but its writes that carry no fence are NOT "
                + "refused, and it is not told.")).append("</p>");
        b.append("<form method=\"post\" action=\"/action\">").append(Html.csrfField(f)).append(hidden("action", WIRE))
                .append(hidden("resource", seen.resource())).append(hidden("holder", seen.holder()))
                .append(hidden("fence", Long.toString(seen.fence())))
                .append("<p><label>New lease's ttl (ms) <input name=\"ttl_ms\" type=\"number\" min=\"1\" max=\"")
                .append(LockClient.MAX_TTL.toMillis()).append("\" value=\"").append(DEFAULT_TTL_MS).append("\"></label></p>")
                .append("<p><label><input type=\"radio\" name=\"then\" value=\"free\" checked> then free it at once "
                        + "(the next acquirer gets a higher fence)</label><br><label><input type=\"radio\" name=\"then\" "
                        + "value=\"hold\"> hold it for that ttl (nobody acquires it meanwhile)</label></p>")
                .append("<button class=\"danger\">Yes, take it over</button> <a href=\"").append(esc(back))
                .append("\">No, go back</a></form>");
        return Answer.html(Html.page(f, "Confirm: take over · " + seen.resource(), b.toString()));
    }

    /** {@code POST /action} with {@code action=takeover}: takes the lock over and shows the outcome. */
    Answer perform(Request r, Html.Frame f) {
        Seen seen = seen(r);
        Duration ttl = ttl(r.required("ttl_ms"));
        String then = r.required("then");
        if (!then.equals("free") && !then.equals("hold")) {
            throw HttpError.badRequest("then must be free or hold, was '" + then + "'");
        }
        Optional<Lease> taken;
        try {
            taken = locks().takeover(seen.resource(), seen.holder(), seen.fence(), ttl);
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest(e.getMessage());
        }
        String outcome;
        String detail;
        if (taken.isEmpty()) {
            outcome = "REFUSED";
            detail = "The lock changed since it was read (" + String.valueOf(changed(inspect(seen.resource()), seen))
                    + "); nothing was changed.";
        } else if (then.equals("free")) {
            Lease lease = taken.get();
            ReleaseOutcome released = lease.release();
            outcome = "TAKEN_AND_FREED fence=" + lease.fence();
            detail = "The lock was taken over with fence " + lease.fence() + " and then freed (" + released
                    + "): the next acquirer gets a higher fence still. The old holder's fenced writes are refused once a "
                    + "write with a higher fence is stored; its writes without a fence are not.";
        } else {
            Lease lease = taken.get();
            outcome = "TAKEN fence=" + lease.fence() + " ttl_ms=" + ttl.toMillis();
            detail = "This dashboard holds the lock (token " + prefix(lease.token()) + "…) until its ttl runs out; "
                    + "nothing renews it. The old holder's fenced writes are refused once a write with a higher fence "
                    + "is stored; its writes without a fence are not.";
        }
        String body = "<p class=\"outcome\">" + esc(outcome) + "</p><p>" + esc(detail) + "</p><p><a href=\""
                + esc("/lock?resource=" + url(seen.resource())) + "\">Back to the lock</a></p>"
                + (taken.isEmpty() ? "" : audit.record(r, AuditTarget.lock(seen.resource()), AuditAction.TAKEN_OVER,
                        "from holder " + prefix(seen.holder()) + "… to fence " + taken.get().fence()
                                + (then.equals("free") ? ", then freed" : ", held by the dashboard for " + ttl.toMillis()
                                        + " ms")));
        return Answer.html(Html.page(f, "Take over " + seen.resource(), body));
    }

    /** What the page the operator acted from showed. */
    private record Seen(String resource, String holder, long fence) {
    }

    private static Seen seen(Request r) {
        String resource = r.required("resource");
        String holder = r.required("holder");
        if (holder.length() < LockClient.MIN_TAKEOVER_PREFIX) {
            throw HttpError.badRequest("holder must be at least " + LockClient.MIN_TAKEOVER_PREFIX
                    + " characters of the holder's token");
        }
        String text = r.required("fence");
        long fence;
        try {
            fence = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw HttpError.badRequest("fence must be a whole number, was '" + text + "'");
        }
        if (fence < 0) {
            throw HttpError.badRequest("fence must be 0 (not compared) or a fence, was " + fence);
        }
        return new Seen(resource, holder, fence);
    }

    private static Duration ttl(String text) {
        try {
            long ms = Long.parseLong(text);
            if (ms >= 1 && ms <= LockClient.MAX_TTL.toMillis()) {
                return Duration.ofMillis(ms);
            }
        } catch (NumberFormatException e) {
            // the message below says what is accepted
        }
        throw HttpError.badRequest("ttl_ms must be a whole number in 1.." + LockClient.MAX_TTL.toMillis() + ", was '"
                + text + "'");
    }

    /** @return why the lock as read is not the one seen, or null when it is */
    private static String changed(LockInfo now, Seen seen) {
        if (!now.isHeld()) {
            return "nobody holds it now";
        }
        if (!now.holderToken().orElseThrow().startsWith(seen.holder())) {
            return "another holder holds it now, token " + prefix(now.holderToken().orElseThrow()) + "…";
        }
        if (seen.fence() > 0 && now.lastFence() != seen.fence()) {
            return "its last fence is " + now.lastFence() + " now, not " + seen.fence();
        }
        return null;
    }

    private LockInfo inspect(String resource) {
        try {
            return locks().inspect(resource);
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest("not a lock resource: " + e.getMessage());
        }
    }

    private LockClient locks() {
        if (locks == null) {
            throw HttpError.notFound("this dashboard was started without a lock client: no locks to take over");
        }
        return locks;
    }

    private static String hidden(String name, String value) {
        return "<input type=\"hidden\" name=\"" + name + "\" value=\"" + esc(value) + "\">";
    }
}
