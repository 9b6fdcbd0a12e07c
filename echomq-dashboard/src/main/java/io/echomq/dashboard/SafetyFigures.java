package io.echomq.dashboard;

import static io.echomq.dashboard.Html.esc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The figures of the lock acts, drawn from a run's replies: the dashboard's "Why it is safe" page
 * and {@code emq demo --html} show the same HTML.
 *
 * <ol>
 *   <li>One lane per worker (or per acquire): an inline SVG of its path whose colour and label are
 *       its reply, focusable ({@code tabindex="0"}) and named for assistive technology by its
 *       readout.</li>
 *   <li>Hover or keyboard focus lights a lane's path and shows its readout, by CSS alone
 *       ({@code :hover}, {@code :focus}, {@code :has}): the page runs no script, so the CSP
 *       keeps forbidding every one.</li>
 *   <li>Under the figure, the static verdicts in words, computed from the same replies; they are
 *       the figure's text alternative ({@code aria-describedby}).</li>
 * </ol>
 */
public final class SafetyFigures {
    private SafetyFigures() {
    }

    /**
     * @param run a race's replies
     * @return the race's figure and verdicts, HTML with every value escaped
     * @throws NullPointerException if run is null
     */
    public static String race(RaceRun run) {
        StringBuilder lanes = new StringBuilder();
        for (RaceRun.Reply r : run.replies()) {
            String cls = r.acquired() ? "ok" : "nil";
            String svg = "<svg class=\"lane-svg\" viewBox=\"0 0 560 44\" width=\"560\" height=\"44\" aria-hidden=\"true\">"
                    + "<circle class=\"who\" cx=\"22\" cy=\"22\" r=\"17\"/><text class=\"who\" x=\"22\" y=\"27\">"
                    + esc(r.worker()) + "</text>"
                    + "<path class=\"path " + cls + "\" d=\"M42 22 H300\"/>"
                    + "<text class=\"cmd\" x=\"52\" y=\"15\">SET … " + esc(r.shortToken()) + "… NX PX</text>"
                    + "<rect class=\"slot " + cls + "\" x=\"300\" y=\"6\" width=\"150\" height=\"32\" rx=\"4\"/>"
                    + "<text class=\"slot\" x=\"375\" y=\"27\">" + (r.acquired() ? "absent → written" : "present") + "</text>"
                    + "<text class=\"reply " + cls + "\" x=\"466\" y=\"28\">" + esc(r.shown()) + "</text></svg>";
            lanes.append(lane("race-" + r.worker(), cls, run.readout(r), svg));
        }
        return figure("race", "Four workers issue SET " + run.key() + " &lt;token&gt; NX PX " + run.holdMillis()
                        + " at once. Hover or focus a worker to light its path and read its result.",
                lanes.toString(), "Hover or focus a worker (Tab) to read its own reply.", run.verdicts());
    }

    /**
     * @param run a crash gap's replies
     * @return the crash gap's figure and verdicts, HTML with every value escaped
     * @throws NullPointerException if run is null
     */
    public static String crashGap(CrashGapRun run) {
        String atomicCls = run.atomicHasExpiry() ? "ok" : "nil";
        String atomic = "<svg class=\"lane-svg\" viewBox=\"0 0 560 62\" width=\"560\" height=\"62\" aria-hidden=\"true\">"
                + "<text class=\"title\" x=\"10\" y=\"14\">one command: SET … NX PX</text>"
                + "<path class=\"path " + atomicCls + "\" d=\"M10 50 H540\"/>"
                + step(40, "C: SET NX PX → " + (run.atomicReply() == null ? "nil" : run.atomicReply()), atomicCls)
                + step(330, "PTTL → " + run.atomicPttl(), atomicCls) + "</svg>";
        String splitCls = run.deadlock() ? "nil" : "ok";
        String split = "<svg class=\"lane-svg\" viewBox=\"0 0 560 62\" width=\"560\" height=\"62\" aria-hidden=\"true\">"
                + "<text class=\"title\" x=\"10\" y=\"14\">two commands: SETNX, then EXPIRE</text>"
                + "<path class=\"path " + splitCls + "\" d=\"M10 50 H540\"/>"
                + step(40, "A: SETNX → " + (run.firstSetnx() ? 1 : 0), "ok")
                + "<text class=\"crash\" x=\"170\" y=\"56\">✕</text><text class=\"label\" x=\"150\" y=\"34\">crash: "
                + "no EXPIRE</text>"
                + step(300, "TTL → " + run.ttlAfterCrash(), run.ttlAfterCrash() == -1 ? "nil" : "ok")
                + step(430, "B: SETNX → " + (run.secondSetnx() ? 1 : 0), run.secondSetnx() ? "ok" : "nil") + "</svg>";
        String lanes = lane("gap-atomic", atomicCls, run.atomicReadout(), atomic)
                + lane("gap-split", splitCls, run.setnxReadout(), split);
        return figure("crash-gap", "The atomic acquire beside SETNX then EXPIRE, with a crash in the gap. Hover or "
                        + "focus an acquire to light its timeline and read the outcome.", lanes,
                "Hover or focus an acquire: does the lock end with an expiry, and does a crash deadlock it?",
                run.verdicts());
    }

    /**
     * @param run a PX-without-NX run's replies
     * @return its figure and verdicts, HTML with every value escaped
     * @throws NullPointerException if run is null
     */
    public static String pxWithoutNx(PxOnlyRun run) {
        String c1 = PxOnlyRun.shown(run.firstReply());
        String c2 = PxOnlyRun.shown(run.secondReply());
        String c3 = PxOnlyRun.shown(run.nxReply());
        String lanes = lane("px-c1", replyClass(c1), run.firstReadout(), timeline("C1: SET without NX", replyClass(c1),
                        new String[][] {{"SET … PX → " + c1, replyClass(c1)},
                            {run.overwritten() ? "overwritten by C2" : "token kept", run.overwritten() ? "nil" : "ok"}}))
                + lane("px-c2", replyClass(c2), run.secondReadout(), timeline("C2: SET without NX", replyClass(c2),
                        new String[][] {{"SET … PX → " + c2, replyClass(c2)},
                            {"GET → " + (run.overwritten() ? "C2's token" : "not C2's"), run.overwritten() ? "ok" : "nil"}}))
                + lane("px-c3", replyClass(c3), run.nxReadout(), timeline("C3: SET with NX", replyClass(c3),
                        new String[][] {{"SET … NX PX → " + c3, replyClass(c3)}}));
        return figure("px-only", "Two clients SET the lock with PX but without NX, then a third with NX. Hover or focus "
                + "a client to light its path and read its result.", lanes, "Hover or focus a client (Tab).", run.verdicts());
    }

    /**
     * @param run a blind-DEL run's replies
     * @return its figure and verdicts, HTML with every value escaped
     * @throws NullPointerException if run is null
     */
    public static String blindDelete(BlindDeleteRun run) {
        String blind = lane("blind-del", run.hazard() ? "nil" : "ok", run.blindReadout(), timeline("blind DEL",
                run.hazard() ? "nil" : "ok", new String[][] {{"A, B: SET NX PX → " + (run.firstGrants() ? "OK" : "a nil"),
                    run.firstGrants() ? "ok" : "nil"}, {"A: DEL → " + run.deleted(), run.deleted() == 1 ? "nil" : "ok"},
                    {"B: GET → " + (run.afterDelete() == null ? "nil" : "its token"),
                        run.afterDelete() == null ? "nil" : "ok"}}));
        String token = lane("token-release", run.intact() ? "ok" : "nil", run.tokenReadout(), timeline("token release",
                run.intact() ? "ok" : "nil", new String[][] {{"A, B: SET NX PX → " + (run.secondGrants() ? "OK" : "a nil"),
                    run.secondGrants() ? "ok" : "nil"}, {"A: release → " + run.release(), "ok"},
                    {"B: GET → " + (run.intact() ? "B's token" : run.afterRelease() == null ? "nil" : "other"),
                        run.intact() ? "ok" : "nil"}}));
        return figure("blind-del", "A's lock expired while A paused and B acquired; then A deletes blindly, or "
                + "releases with its token. Hover or focus a release to light its path and read the outcome.",
                blind + token, "Hover or focus a release (Tab).", run.verdicts());
    }

    /**
     * @param run a stale-fenced-write run's replies
     * @return its figure and verdicts, HTML with every value escaped
     * @throws NullPointerException if run is null
     */
    public static String staleFencedWrite(FencedWriteRun run) {
        String b = lane("fenced-b", replyClass("WRITTEN".equals(run.bWrite()) ? "OK" : null), run.bReadout(),
                timeline("B: the current holder", "WRITTEN".equals(run.bWrite()) ? "ok" : "nil", new String[][] {
                    {"acquire → fence", "ok"}, {"write → " + run.bWrite(), "WRITTEN".equals(run.bWrite()) ? "ok" : "nil"},
                    {"kept: " + (FencedWriteRun.B_VALUE.equals(run.keptValue()) ? "B's value" : "not B's"),
                        FencedWriteRun.B_VALUE.equals(run.keptValue()) ? "ok" : "nil"}}));
        String a = lane("fenced-a", "nil", run.aReadout(), timeline("A: the stale holder", "nil", new String[][] {
                    {"acquire → fence", "ok"}, {"pause past its ttl", "nil"},
                    {"write → " + run.aWrite(), "STALE".equals(run.aWrite()) ? "nil" : "ok"},
                    {"renew → " + run.renew(), run.notRevived() ? "nil" : "ok"}}));
        return figure("fenced", "A's lease expired while it paused and B holds the lock with a higher fence; both "
                + "write to a fenced store. Hover or focus a holder to light its path and read the outcome.", b + a,
                "Hover or focus a holder (Tab).", run.verdicts());
    }

    /**
     * @param run a claim lease run's record
     * @return its figure and verdicts, HTML with every value escaped
     * @throws NullPointerException if run is null
     */
    public static String claimLease(ClaimLeaseRun run) {
        StringBuilder lanes = new StringBuilder();
        for (String w : new String[] {"w1", "w2", "w3", "w4"}) {
            long done = run.completedBy().getOrDefault(w, 0L);
            String[][] steps;
            String cls;
            if (run.failure() != null) {
                steps = new String[][] {{"stopped early", "nil"}};
                cls = "nil";
            } else if (w.equals("w4")) {
                steps = new String[][] {{"job " + run.staleJob() + " → attempt " + run.staleAttempt(), "ok"},
                    {"killed · PTTL " + run.killedPttl(), "nil"},
                    {"stale complete → " + run.staleOutcome(), run.staleRefused() ? "nil" : "ok"}};
                cls = "nil";
            } else {
                steps = w.equals(run.rerunBy()) ? new String[][] {{"completed " + done, "ok"},
                    {"job " + run.staleJob() + " → attempt " + run.rerunAttempt(), "ok"}}
                    : new String[][] {{"completed " + done, "ok"}};
                cls = "ok";
            }
            String title = w.equals("w4") ? "w4: one job at a time, killed mid-job" : w + ": concurrency 4";
            lanes.append(lane("lease-" + w, cls, run.readout(w), timeline(title, cls, steps)));
        }
        return figure("claim-lease", Html.count(run.jobs()) + " jobs, four workers with a client each; w4 is killed "
                + "mid-job. Hover or focus a worker to light its path and read what it did.", lanes.toString(),
                "Hover or focus a worker (Tab).", run.verdicts());
    }

    /**
     * A page with nothing from outside itself: the stylesheet inline, no script, no link.
     *
     * @param title   the page's title
     * @param intro   a paragraph of plain text before the figures
     * @param figures figures from {@link #race}, {@link #crashGap}, {@link #blindDelete},
     *                {@link #pxWithoutNx}, {@link #staleFencedWrite} and {@link #claimLease}
     * @return the whole document
     * @throws UncheckedIOException if the stylesheet cannot be read from the jar
     */
    public static String standalonePage(String title, String intro, String figures) {
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                + "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
                + "<title>" + esc(title) + "</title><style>" + stylesheet() + "</style></head><body><main><h1>"
                + esc(title) + "</h1><p>" + esc(intro) + "</p>" + figures + "</main></body></html>\n";
    }

    private static String lane(String id, String cls, String readout, String svg) {
        return "<div class=\"lane " + cls + "\" id=\"" + id + "\" tabindex=\"0\" role=\"group\" aria-label=\""
                + esc(readout) + "\">" + svg + "<output class=\"ro\">" + esc(readout) + "</output></div>";
    }

    private static String replyClass(String reply) {
        return "OK".equals(reply) ? "ok" : "nil";
    }

    /** A lane's drawing: its title, a line, and one labelled dot per step ({label, ok or nil}). */
    private static String timeline(String title, String cls, String[][] steps) {
        StringBuilder b = new StringBuilder("<svg class=\"lane-svg\" viewBox=\"0 0 720 62\" width=\"720\" height=\"62\" "
                + "aria-hidden=\"true\"><text class=\"title\" x=\"10\" y=\"14\">" + esc(title) + "</text><path class=\"path "
                + cls + "\" d=\"M10 50 H700\"/>");
        for (int i = 0; i < steps.length; i++) {
            b.append(step(40 + i * 165, steps[i][0], steps[i][1]));
        }
        return b.append("</svg>").toString();
    }

    private static String step(int x, String text, String cls) {
        return "<circle class=\"step " + cls + "\" cx=\"" + (x + 6) + "\" cy=\"50\" r=\"6\"/><text class=\"label\" x=\""
                + x + "\" y=\"34\">" + esc(text) + "</text>";
    }

    private static String figure(String id, String caption, String lanes, String idle, String verdicts) {
        return "<figure class=\"fig\" id=\"" + id + "\" aria-describedby=\"" + id + "-verdicts\"><figcaption>" + caption
                + "</figcaption><div class=\"lanes\">" + lanes + "</div><p class=\"readout idle\">readout · "
                + esc(idle) + "</p></figure><p class=\"verdicts\" id=\"" + id + "-verdicts\"><b>Static verdicts</b> — "
                + esc(verdicts) + "</p>";
    }

    private static String stylesheet() {
        try (InputStream in = SafetyFigures.class.getResourceAsStream("static/dashboard.css")) {
            if (in == null) {
                throw new IllegalStateException("dashboard.css is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
