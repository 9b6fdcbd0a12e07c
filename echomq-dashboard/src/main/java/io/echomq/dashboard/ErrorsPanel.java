package io.echomq.dashboard;

import static io.echomq.dashboard.Html.count;
import static io.echomq.dashboard.Html.esc;

import io.echomq.queue.AttemptError;
import io.echomq.queue.ErrorGroup;
import io.echomq.queue.ThroughputHistory;
import io.echomq.queue.ThroughputMinute;
import java.util.List;

/**
 * Where the operator looks for errors: the failure rate per minute beside the totals, a queue's
 * top errors, and the error of each job on the dead tab.
 *
 * <p>Duties: read the failure rate from the throughput history the workers keep (the failed count
 * of the last whole minute, which has a sample after it: the same history the chart draws, so no
 * further read); draw the top errors ({@link io.echomq.queue.ErrorGroups}: the failures grouped
 * by their first line, with counts and first and last seen) as a table, or say that none was
 * counted; draw one dead job's error as its first line, the whole text in the cell's tooltip
 * (cut at {@value #TOOLTIP_CHARS} characters) and on the job's page; draw a job's kept attempts'
 * errors on its page, the latest first.
 */
final class ErrorsPanel {
    /** Top errors a queue page shows. */
    static final int SHOWN = 10;
    /** Most characters of an error a tooltip holds. */
    static final int TOOLTIP_CHARS = 2000;
    private static final long MINUTE_MS = 60_000;

    private ErrorsPanel() {
    }

    /**
     * @return the failed attempts of the last whole minute, or -1 when the history does not know that
     *     minute (no worker sampled it)
     */
    static long failedLastMinute(ThroughputHistory.Window w) {
        List<ThroughputMinute> minutes = w.minutes();
        if (minutes.isEmpty()) {
            return -1;
        }
        ThroughputMinute last = minutes.get(minutes.size() - 1);
        return last.minute().toEpochMilli() + MINUTE_MS == w.until().toEpochMilli() ? last.failed() : -1;
    }

    /** @return the failure rate as a cell's text: {@code 3/min}, or {@code –} when the minute is unknown */
    static String rate(ThroughputHistory.Window w) {
        long n = failedLastMinute(w);
        return n < 0 ? "–" : count(n) + "/min";
    }

    /** @return the queue page's errors section: the failure rate and the top errors table */
    static String render(List<ErrorGroup> top, ThroughputHistory.Window w) {
        StringBuilder b = new StringBuilder("<section class=\"errors\"><h2>Top errors</h2><p class=\"rate\">"
                + "Failure rate: <b>").append(esc(rate(w))).append("</b> in the last whole minute (each failed attempt, "
                        + "retries included).</p>");
        if (top.isEmpty()) {
            return b.append("<p class=\"empty\">No failure counted for this queue.</p></section>").toString();
        }
        b.append("<table class=\"top-errors\"><thead><tr><th class=\"n\">Count</th><th>First seen</th>"
                + "<th>Last seen</th><th>Error (first line)</th></tr></thead><tbody>");
        for (ErrorGroup g : top) {
            b.append("<tr><td class=\"n\">").append(count(g.count())).append("</td><td>").append(esc(g.firstSeen().toString()))
                    .append("</td><td>").append(esc(g.lastSeen().toString())).append("</td><td class=\"err\">")
                    .append(esc(g.fingerprint())).append("</td></tr>");
        }
        return b.append("</tbody></table><p class=\"note\">Failures grouped by the first line of their error, the "
                + "most frequent first: the queue keeps the 100 most recently seen groups. The same list: "
                + "<code>emq queue errors &lt;queue&gt;</code>.</p></section>").toString();
    }

    /** @return the dead tab's error cell: the first line, the whole error (cut) as its tooltip; empty when none */
    static String cell(String error) {
        if (error == null || error.isBlank()) {
            return "<td class=\"err\"></td>";
        }
        String text = error.strip();
        String first = text.lines().findFirst().orElse("");
        String tip = text.length() > TOOLTIP_CHARS ? text.substring(0, TOOLTIP_CHARS) + "…" : text;
        return "<td class=\"err\" title=\"" + esc(tip) + "\">" + esc(first) + "</td>";
    }

    /** @return the job page's section of each kept attempt's error, the latest first; empty when none is kept */
    static String attempts(List<AttemptError> errors) {
        if (errors.isEmpty()) {
            return "";
        }
        StringBuilder b = new StringBuilder("<h2>Each attempt's error <span class=\"note\">the last ")
                .append(errors.size()).append(" failed attempts, each cut after 2048 bytes</span></h2>"
                        + "<table class=\"attempt-errors\"><thead><tr><th class=\"n\">Attempt</th><th>Failed at</th>"
                        + "<th>Error</th></tr></thead><tbody>");
        for (int i = errors.size() - 1; i >= 0; i--) {
            AttemptError e = errors.get(i);
            b.append("<tr><td class=\"n\">").append(e.attempt()).append("</td><td>").append(esc(e.at().toString()))
                    .append("</td><td><pre class=\"error\">").append(esc(e.error())).append("</pre></td></tr>");
        }
        return b.append("</tbody></table>").toString();
    }
}
