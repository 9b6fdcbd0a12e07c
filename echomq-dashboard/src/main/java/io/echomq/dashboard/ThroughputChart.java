package io.echomq.dashboard;

import static io.echomq.dashboard.Html.count;
import static io.echomq.dashboard.Html.esc;

import io.echomq.queue.ThroughputHistory;
import io.echomq.queue.ThroughputMinute;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * A queue's throughput over the last hour as a small bar chart: completed and failed per minute.
 *
 * <p>Duties: draw the minutes of a {@link ThroughputHistory.Window} (the history the workers'
 * maintenance keeps in Redis, so every dashboard shows the same past) as inline SVG written here
 * on the server: no script, no library, nothing loaded, so the page's CSP stays {@code default-src
 * 'self'}; its colours come from the stylesheet's classes. Each bar has a {@code <title>} (the
 * browser's tooltip) with its minute and counts; a minute no worker sampled is left blank, and a
 * window with no known minute says why instead of drawing an empty frame. Also draw the same hour
 * as a sparkline for a row of the overview ({@link #spark}).
 */
final class ThroughputChart {
    /** Minutes the chart spans. */
    static final int MINUTES = 60;

    private static final DateTimeFormatter HH_MM = DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);
    private static final int WIDTH = 720;
    private static final int HEIGHT = 150;
    private static final int LEFT = 44;
    private static final int TOP = 8;
    private static final int BOTTOM = 20;

    private ThroughputChart() {
    }

    /** @return the chart's HTML: a caption with the hour's totals and the SVG, or a note when nothing is known */
    static String render(ThroughputHistory.Window w) {
        long completed = 0;
        long failed = 0;
        long max = 1;
        for (ThroughputMinute m : w.minutes()) {
            completed += m.completed();
            failed += m.failed();
            max = Math.max(max, Math.max(m.completed(), m.failed()));
        }
        StringBuilder b = new StringBuilder("<figure class=\"throughput\"><figcaption>Throughput, last ")
                .append(MINUTES).append(" minutes: <b>").append(count(completed)).append("</b> completed, <b>")
                .append(count(failed)).append("</b> failed <span class=\"legend\"><span class=\"key c\"></span>completed "
                        + "<span class=\"key f\"></span>failed</span></figcaption>");
        if (w.minutes().isEmpty()) {
            return b.append("<p class=\"empty\">No throughput history for this hour yet: a running worker's "
                    + "maintenance samples the counters once a minute, and a minute is shown once the next one is "
                    + "sampled.</p></figure>").toString();
        }
        int plotW = WIDTH - LEFT - 4;
        int plotH = HEIGHT - TOP - BOTTOM;
        double slot = (double) plotW / MINUTES;
        double bar = Math.max(1, slot / 2 - 1);
        b.append("<svg class=\"chart\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
                .append("\" role=\"img\" aria-label=\"completed and failed jobs per minute, last ").append(MINUTES)
                .append(" minutes\">");
        line(b, LEFT, TOP, WIDTH - 4, TOP, "grid");
        line(b, LEFT, TOP + plotH / 2.0, WIDTH - 4, TOP + plotH / 2.0, "grid");
        line(b, LEFT, TOP + plotH, WIDTH - 4, TOP + plotH, "axis");
        text(b, LEFT - 6, TOP + 4, "end", count(max));
        text(b, LEFT - 6, TOP + plotH + 4, "end", "0");
        for (ThroughputMinute m : w.minutes()) {
            long index = Duration.between(w.from(), m.minute()).toMinutes();
            if (index < 0 || index >= MINUTES) {
                continue;
            }
            double x = LEFT + index * slot + 0.5;
            String tip = HH_MM.format(m.minute()) + " UTC: " + count(m.completed()) + " completed, "
                    + count(m.failed()) + " failed";
            rect(b, x, bar, m.completed(), max, plotH, "c", tip);
            rect(b, x + bar + 0.5, bar, m.failed(), max, plotH, "f", tip);
        }
        text(b, LEFT, HEIGHT - 4, "start", HH_MM.format(w.from()));
        text(b, LEFT + plotW / 2.0, HEIGHT - 4, "middle", HH_MM.format(w.from().plus(Duration.ofMinutes(MINUTES / 2))));
        text(b, WIDTH - 4, HEIGHT - 4, "end", HH_MM.format(w.until()) + " UTC");
        return b.append("</svg></figure>").toString();
    }

    /**
     * @return the hour as a sparkline for a table cell (completed per minute, a failed minute marked
     *     under it) with the hour's totals, or a dash when no minute is known
     */
    static String spark(ThroughputHistory.Window w) {
        if (w.minutes().isEmpty()) {
            return "<span class=\"zero\">—</span>";
        }
        long completed = 0;
        long failed = 0;
        long max = 1;
        for (ThroughputMinute m : w.minutes()) {
            completed += m.completed();
            failed += m.failed();
            max = Math.max(max, m.completed());
        }
        StringBuilder b = new StringBuilder("<svg class=\"spark\" viewBox=\"0 0 120 22\" role=\"img\" aria-label=\"")
                .append(count(completed)).append(" completed and ").append(count(failed))
                .append(" failed in the last ").append(MINUTES).append(" minutes\">");
        for (ThroughputMinute m : w.minutes()) {
            long index = Duration.between(w.from(), m.minute()).toMinutes();
            if (index < 0 || index >= MINUTES) {
                continue;
            }
            String tip = HH_MM.format(m.minute()) + " UTC: " + count(m.completed()) + " completed, "
                    + count(m.failed()) + " failed";
            if (m.completed() > 0) {
                double h = Math.max(1, (double) m.completed() / max * 18);
                b.append("<rect class=\"c\" x=\"").append(num(index * 2.0)).append("\" y=\"").append(num(18 - h))
                        .append("\" width=\"1.5\" height=\"").append(num(h)).append("\"><title>").append(esc(tip))
                        .append("</title></rect>");
            }
            if (m.failed() > 0) {
                b.append("<rect class=\"f\" x=\"").append(num(index * 2.0)).append("\" y=\"19\" width=\"1.5\" "
                        + "height=\"3\"><title>").append(esc(tip)).append("</title></rect>");
            }
        }
        return b.append("</svg>").append(count(completed)).append(" / ").append(count(failed)).toString();
    }

    private static void rect(StringBuilder b, double x, double width, long n, long max, int plotH, String cls, String tip) {
        if (n == 0) {
            return;
        }
        double h = Math.max(1, (double) n / max * plotH);
        b.append("<rect class=\"").append(cls).append("\" x=\"").append(num(x)).append("\" y=\"")
                .append(num(TOP + plotH - h)).append("\" width=\"").append(num(width)).append("\" height=\"")
                .append(num(h)).append("\"><title>").append(esc(tip)).append("</title></rect>");
    }

    private static void line(StringBuilder b, double x1, double y1, double x2, double y2, String cls) {
        b.append("<line class=\"").append(cls).append("\" x1=\"").append(num(x1)).append("\" y1=\"").append(num(y1))
                .append("\" x2=\"").append(num(x2)).append("\" y2=\"").append(num(y2)).append("\"/>");
    }

    private static void text(StringBuilder b, double x, double y, String anchor, String s) {
        b.append("<text x=\"").append(num(x)).append("\" y=\"").append(num(y)).append("\" text-anchor=\"")
                .append(anchor).append("\">").append(esc(s)).append("</text>");
    }

    private static String num(double d) {
        return String.format(Locale.ROOT, "%.1f", d);
    }
}
