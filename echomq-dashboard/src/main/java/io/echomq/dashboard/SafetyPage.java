package io.echomq.dashboard;

import static io.echomq.dashboard.Html.esc;

import java.util.UUID;

/**
 * "Why it is safe": the lock acts of the course ({@link SafetyActs}), run on the connected server
 * at the press of a button and drawn from the replies ({@link SafetyFigures}).
 *
 * <ol>
 *   <li>{@code GET /safety}: what each act does, with its "run" form when the dashboard may act
 *       (it carries the CSRF value; none in read-only mode, or without a server URL to run on).
 *       The form is the confirmation: the page says which keys a run writes and deletes.</li>
 *   <li>{@code POST /safety}, after {@link Guard#checkAction}: runs one act in a scratch prefix of
 *       its own ({@code emq:figures:<random>:}), deletes that prefix's keys whatever happens, and
 *       answers the page with the figure of that run's replies.</li>
 * </ol>
 */
final class SafetyPage {
    /** The scratch keys' prefix; each run adds a random part of its own. */
    static final String PREFIX = "emq:figures:";

    private final String redisUrl;
    private final String fixedPrefix;

    /**
     * @param redisUrl    the server the acts run on, or null when the dashboard was given none
     * @param fixedPrefix the prefix every run writes under instead of a random one (tests), or null
     */
    SafetyPage(String redisUrl, String fixedPrefix) {
        this.redisUrl = redisUrl;
        this.fixedPrefix = fixedPrefix;
    }

    /** {@code GET /safety}. */
    Answer show(Html.Frame f) {
        return Answer.html(page(f, "", ""));
    }

    /** {@code POST /safety}: runs the act the form names. */
    Answer run(Request r, Html.Frame f) {
        if (redisUrl == null) {
            throw HttpError.notFound("this dashboard was started without a server URL to run the acts on");
        }
        String act = r.required("act");
        if (!act.equals("race") && !act.equals("crash-gap")) {
            throw HttpError.badRequest("unknown act '" + act + "'; expected race or crash-gap");
        }
        String prefix = fixedPrefix != null ? fixedPrefix : PREFIX + UUID.randomUUID().toString().substring(0, 8) + ":";
        try (SafetyActs acts = SafetyActs.open(redisUrl, prefix)) {
            try {
                return act.equals("race") ? Answer.html(page(f, SafetyFigures.race(acts.race()), ""))
                        : Answer.html(page(f, "", SafetyFigures.crashGap(acts.crashGap())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new HttpError(503, "the run was interrupted");
            } finally {
                acts.deleteKeys();
            }
        }
    }

    private String page(Html.Frame f, String race, String gap) {
        StringBuilder b = new StringBuilder("<p>Each act runs on the connected server, with the same commands as "
                + "<code>emq demo</code>, and its figure is drawn only from the replies the server gave: run it "
                + "again and the winner may change.");
        b.append(redisUrl == null ? " This dashboard was started without a server URL to run them on." : "")
                .append(" A run writes keys under <code>").append(PREFIX)
                .append("&lt;run&gt;:</code> and deletes them before it answers.</p>");
        b.append("<section id=\"act-race\"><h2>The race</h2><p class=\"note\">Four workers, each on its own "
                + "connection, send <code>SET resource:lock &lt;token&gt; NX PX ").append(SafetyActs.HOLD.toMillis())
                .append("</code> at once. <code>NX</code> reads and writes in one step: one finds the key absent.</p>")
                .append(form(f, "race", "Run the race")).append(race).append("</section>");
        b.append("<section id=\"act-crash-gap\"><h2>The crash gap</h2><p class=\"note\">Process A sends "
                + "<code>SETNX</code> and crashes before its <code>EXPIRE</code>; B reads the <code>TTL</code> and "
                + "tries <code>SETNX</code>. Beside it, C acquires with the one command <code>SET … NX PX</code>.</p>")
                .append(form(f, "crash-gap", "Run the crash gap")).append(gap).append("</section>");
        return Html.page(f, "Why it is safe", b.toString());
    }

    private String form(Html.Frame f, String act, String label) {
        if (f.readOnly() || redisUrl == null) {
            return f.readOnly() ? "<p class=\"note\">Read-only: runs are turned off.</p>" : "";
        }
        return "<form class=\"run\" method=\"post\" action=\"/safety\">" + Html.csrfField(f)
                + "<input type=\"hidden\" name=\"act\" value=\"" + esc(act) + "\"><button>" + esc(label)
                + "</button></form>";
    }
}
