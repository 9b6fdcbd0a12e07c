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
     * A page with nothing from outside itself: the stylesheet inline, no script, no link.
     *
     * @param title   the page's title
     * @param intro   a paragraph of plain text before the figures
     * @param figures figures from {@link #race} and {@link #crashGap}
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
