package io.echomq.dashboard;

import static io.echomq.dashboard.Html.esc;

import java.nio.file.Path;
import java.util.UUID;

/**
 * "Why it is safe": the lock acts of the course ({@link SafetyActs}), run on the connected server
 * at the press of a button and drawn from the replies ({@link SafetyFigures}).
 *
 * <ol>
 *   <li>{@code GET /safety}: what each act does, with its "run" form when the dashboard may act
 *       (it carries the CSRF value; none in read-only mode, or without a server URL to run on).
 *       The form is the confirmation: the page says which keys a run writes and deletes.</li>
 *   <li>{@code POST /safety}, after {@link Guard#checkAction}: runs one act (the race, the crash
 *       gap, the blind DEL, PX without NX, the stale fenced write, the claim lease) in a scratch
 *       prefix of its own ({@code emq:figures:<random>:}; the claim lease on the queue
 *       {@code figures-<random>}), deletes those keys whatever happens, and answers the page with
 *       the figure of that run's replies.</li>
 * </ol>
 */
final class SafetyPage {
    /** The scratch keys' prefix; each run adds a random part of its own. */
    static final String PREFIX = "emq:figures:";

    private final String redisUrl;
    private final Path trustedCertificates;
    private final String fixedPrefix;

    /**
     * @param redisUrl            the server the acts run on (one server or a cluster), or null when
     *                            the dashboard was given none
     * @param trustedCertificates the CA file its TLS connections trust, or null for the JVM's
     * @param fixedPrefix         the prefix every run writes under instead of a random one (tests), or null
     */
    SafetyPage(String redisUrl, Path trustedCertificates, String fixedPrefix) {
        this.redisUrl = redisUrl;
        this.trustedCertificates = trustedCertificates;
        this.fixedPrefix = fixedPrefix;
    }

    /** The acts, in the page's order: the name a form posts, the heading, what it does, its button. */
    private enum Act {
        RACE("race", "The race", "Four workers, each on its own connection, send <code>SET resource:lock &lt;token&gt; NX PX "
                + "30000</code> at once. <code>NX</code> reads and writes in one step: one finds the key absent."),
        CRASH_GAP("crash-gap", "The crash gap", "Process A sends <code>SETNX</code> and crashes before its "
                + "<code>EXPIRE</code>; B reads the <code>TTL</code> and tries <code>SETNX</code>. Beside it, C acquires "
                + "with the one command <code>SET … NX PX</code>."),
        BLIND_DEL("blind-del", "Blind DEL against the token release", "A acquires for 200 ms and pauses until the "
                + "server has expired its lock; B acquires. Then A sends a blind <code>DEL</code>; replayed, A releases "
                + "with its token (<code>release-3</code>: delete only while the key holds A's token)."),
        PX_ONLY("px-only", "PX without NX", "C1 and C2 each send <code>SET … PX 30000</code> without <code>NX</code>; "
                + "then C3 sends it with <code>NX</code>."),
        FENCED("fenced", "The stale fenced write", "A acquires for 200 ms and pauses past it; B acquires with a higher "
                + "fence. Both write to a fenced store (<code>fenced-write-1</code>), then A tries to renew."),
        CLAIM_LEASE("claim-lease", "The claim lease", "1,000 jobs on a scratch queue, four workers with a client each; "
                + "w4, one job at a time, is killed mid-job. The others' reaper returns its expired lease, one of them "
                + "runs the job again, and w4's late complete is refused by the fence. It takes a few seconds.");

        final String wire;
        final String heading;
        final String what;

        Act(String wire, String heading, String what) {
            this.wire = wire;
            this.heading = heading;
            this.what = what;
        }

        static Act parse(String wire) {
            for (Act a : values()) {
                if (a.wire.equals(wire)) {
                    return a;
                }
            }
            throw HttpError.badRequest("unknown act '" + wire + "'; expected race, crash-gap, blind-del, px-only, "
                    + "fenced or claim-lease");
        }
    }

    /** {@code GET /safety}. */
    Answer show(Html.Frame f) {
        return Answer.html(page(f, null, ""));
    }

    /** {@code POST /safety}: runs the act the form names, in a scratch prefix it deletes before answering. */
    Answer run(Request r, Html.Frame f) {
        if (redisUrl == null) {
            throw HttpError.notFound("this dashboard was started without a server URL to run the acts on");
        }
        Act act = Act.parse(r.required("act"));
        String prefix = fixedPrefix != null ? fixedPrefix : PREFIX + UUID.randomUUID().toString().substring(0, 8) + ":";
        try (SafetyActs acts = SafetyActs.open(redisUrl, trustedCertificates, prefix)) {
            try {
                String figure = switch (act) {
                    case RACE -> SafetyFigures.race(acts.race());
                    case CRASH_GAP -> SafetyFigures.crashGap(acts.crashGap());
                    case BLIND_DEL -> SafetyFigures.blindDelete(acts.blindDelete());
                    case PX_ONLY -> SafetyFigures.pxWithoutNx(acts.pxWithoutNx());
                    case FENCED -> SafetyFigures.staleFencedWrite(acts.staleFencedWrite());
                    case CLAIM_LEASE -> claimLease(prefix);
                };
                return Answer.html(page(f, act, figure));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new HttpError(503, "the run was interrupted");
            } finally {
                acts.deleteKeys();
            }
        }
    }

    /** Runs the claim lease on a queue named after the run's prefix, and deletes the queue's keys. */
    private String claimLease(String prefix) throws InterruptedException {
        String queue = "figures-" + prefix.substring(PREFIX.length(), prefix.length() - 1).replace(':', '-');
        try (ClaimLeaseAct act = ClaimLeaseAct.open(redisUrl, trustedCertificates, queue, ActLog.SILENT)) {
            try {
                return SafetyFigures.claimLease(act.run());
            } finally {
                act.deleteKeys();
            }
        }
    }

    private String page(Html.Frame f, Act ran, String figure) {
        StringBuilder b = new StringBuilder("<p>Each act runs on the connected server, with the same commands as "
                + "<code>emq demo</code>, and its figure is drawn only from the replies the server gave: run it "
                + "again and the winner may change.");
        b.append(redisUrl == null ? " This dashboard was started without a server URL to run them on." : "")
                .append(" A run writes keys under <code>").append(PREFIX)
                .append("&lt;run&gt;:</code> (the claim lease: the queue <code>figures-&lt;run&gt;</code>) and deletes "
                        + "them before it answers.</p>");
        for (Act a : Act.values()) {
            b.append("<section id=\"act-").append(a.wire).append("\"><h2>").append(a.heading)
                    .append("</h2><p class=\"note\">").append(a.what).append("</p>")
                    .append(form(f, a.wire, "Run " + (a == Act.RACE || a == Act.CRASH_GAP ? "the " + a.heading
                            .substring("The ".length()) : "“" + a.heading + "”")))
                    .append(a == ran ? figure : "").append("</section>");
        }
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
