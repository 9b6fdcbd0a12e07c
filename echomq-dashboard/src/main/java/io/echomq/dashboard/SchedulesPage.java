package io.echomq.dashboard;

import static io.echomq.dashboard.Html.count;
import static io.echomq.dashboard.Html.esc;
import static io.echomq.dashboard.Html.url;

import io.echomq.queue.Schedule;
import io.echomq.queue.ScheduleInfo;
import io.echomq.queue.Schedules;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;

/**
 * A queue's recurring schedules, earliest next fire time first.
 *
 * <p>Duties: check the queue (400 for a bad name, 404 for an unknown queue) and the limit
 * (1..{@value #MAX_LIMIT}) with a 400 that says what is wrong; read at most that many schedules
 * with {@link Schedules#list(int)} (one bounded {@code ZRANGE} and one hash per schedule) and how
 * many are stored with {@link Schedules#count()} ({@code ZCARD}), and say when some are not shown:
 * past the limit, or stored in a form this process cannot read (a cron schedule without the
 * {@code echomq-cron} module); show each one's spec, zone, next fire time and how far off it is,
 * missed-fire policy and the start of its payload. Read-only: schedules are changed with
 * {@code emq schedule} or the Java API.
 */
final class SchedulesPage {
    /** Schedules shown when the request names no limit. */
    static final int DEFAULT_LIMIT = 100;
    /** Most schedules on one page. */
    static final int MAX_LIMIT = 500;
    /** Characters of a payload shown in the table. */
    static final int PAYLOAD_CHARS = 80;

    private final QueueIndex index;

    SchedulesPage(QueueIndex index) {
        this.index = index;
    }

    Answer answer(Request r, Html.Frame f) {
        String name = r.required("queue");
        int limit = r.limit(DEFAULT_LIMIT, MAX_LIMIT);
        Schedules schedules = index.schedules(name);
        long stored = schedules.count();
        List<ScheduleInfo> shown = schedules.list(limit);
        return Answer.html(render(f, name, stored, limit, shown, Instant.now()));
    }


    private static String render(Html.Frame f, String name, long stored, int limit, List<ScheduleInfo> shown,
                                 Instant now) {
        StringBuilder b = new StringBuilder();
        b.append("<p><a href=\"/\">All queues</a> · <a href=\"").append(esc("/queue?name=" + url(name)))
                .append("\">Queue ").append(esc(name)).append("</a></p>");
        if (shown.isEmpty() && stored == 0) {
            b.append("<p class=\"empty\">No schedule on this queue. Add one with <code>emq schedule add ")
                    .append(esc(name)).append(" &lt;id&gt; &lt;payload&gt; --every 5m</code> or "
                            + "<code>Schedules.upsert</code> from Java.</p>");
            return Html.page(f, name + " · schedules", b.toString());
        }
        if (!shown.isEmpty()) {
            b.append("<table class=\"schedules\"><thead><tr><th>Id</th><th>Spec</th><th>Zone</th><th>Next fire</th>"
                    + "<th>In</th><th>Missed fires</th><th>Payload</th></tr></thead><tbody>");
            for (ScheduleInfo i : shown) {
                Schedule s = i.schedule();
                b.append("<tr><td>").append(esc(s.id())).append("</td><td><code>").append(esc(s.spec().text()))
                        .append("</code></td><td>").append(esc(s.spec().zone().getId())).append("</td><td>")
                        .append(i.nextFire().map(t -> Html.time(OptionalLong.of(t.toEpochMilli()))).orElse("never"))
                        .append("</td><td>").append(i.nextFire().map(t -> until(now, t)).orElse("—"))
                        .append("</td><td>").append(esc(s.missed().text())).append("</td><td><code>")
                        .append(esc(payload(s.payload()))).append("</code></td></tr>");
            }
            b.append("</tbody></table>");
        }
        long read = Math.min(stored, limit);
        b.append("<p class=\"note\">").append(count(stored)).append(stored == 1 ? " schedule" : " schedules")
                .append(" stored, earliest next fire first.");
        if (stored > limit) {
            b.append(" Showing the first ").append(count(limit)).append(" (<code>&amp;limit=</code> up to ")
                    .append(MAX_LIMIT).append(").");
        }
        if (shown.size() < read) {
            b.append(" <span class=\"bad\">").append(count(read - shown.size()))
                    .append(" cannot be read by this dashboard</span>: a cron schedule needs the echomq-cron module "
                            + "on its class path (the emq jar has it), or the schedule changed while it was read.");
        }
        b.append(" A worker of the queue, or <code>emq scheduler</code>, fires each one at its time; "
                + "times are the server's, in UTC.</p>");
        return Html.page(f, name + " · schedules", b.toString());
    }

    /** @return how far {@code t} is from {@code now}, coarsely: "in 4 min", "in 1 h 14 min", "due 12 s ago" */
    static String until(Instant now, Instant t) {
        Duration d = Duration.between(now, t);
        boolean past = d.isNegative();
        long s = Math.abs(d.toSeconds());
        String span = s < 60 ? s + " s"
                : s < 3600 ? s / 60 + " min"
                : s < 172_800 ? s / 3600 + " h" + (s % 3600 / 60 == 0 ? "" : " " + s % 3600 / 60 + " min")
                : s / 86_400 + " d";
        return past ? "due " + span + " ago" : "in " + span;
    }

    /** @return the start of a payload as one line: text, or hex for binary */
    private static String payload(byte[] bytes) {
        Payloads.Preview p = Payloads.of(bytes);
        String one = (p.binary() ? "hex " : "") + p.text().replaceAll("\\s+", " ").strip();
        return one.length() > PAYLOAD_CHARS || p.cut() ? one.substring(0, Math.min(one.length(), PAYLOAD_CHARS)) + "…"
                : one;
    }
}
