package io.echomq.dashboard;

import static io.echomq.dashboard.Html.esc;

import io.echomq.queue.JobInfo;
import io.echomq.queue.JobTimeline;
import io.echomq.queue.QueueEvent;
import io.echomq.queue.QueueOperations;
import java.util.OptionalLong;

/**
 * A job's timeline on its page: its events from the queue's events stream, with server times.
 *
 * <p>Duties: check the {@code window} parameter (1..{@value JobTimeline#MAX_WINDOW}, default
 * {@value JobTimeline#DEFAULT_WINDOW}) with a 400 that says what is accepted; read the job's
 * events with {@link JobTimeline#read} (the last {@code window} entries of the stream, never an
 * unbounded read); and say plainly what the page cannot show: the queue writes no events, the
 * window did not reach the stream's start (with a link that reads further back), or the stream's
 * cap trimmed entries from before its oldest one. Kept apart from {@link JobDetailPage} so that
 * the job's facts and its history each stay one short class.
 */
final class TimelineSection {
    /** Characters of an event's detail (a reason, an error, a result) shown. */
    static final int DETAIL_CHARS = 300;

    private TimelineSection() {
    }

    /**
     * @return the query parameter {@code window}, or the default when absent or empty
     * @throws HttpError 400 when it is not a whole number in 1..{@value JobTimeline#MAX_WINDOW}
     */
    static int window(Request r) {
        String text = r.query("window");
        if (text == null || text.isEmpty()) {
            return JobTimeline.DEFAULT_WINDOW;
        }
        try {
            int n = Integer.parseInt(text);
            if (n >= 1 && n <= JobTimeline.MAX_WINDOW) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the message below says what is accepted
        }
        throw HttpError.badRequest("window must be a whole number in 1.." + JobTimeline.MAX_WINDOW + ", was '" + text
                + "'");
    }

    /**
     * @param pageHref the job page's path and query without {@code window}, for the "read further back" link
     * @return the section's HTML
     */
    static String render(QueueOperations q, JobInfo j, int window, String pageHref) {
        JobTimeline.Read read;
        try {
            read = JobTimeline.read(q, j.id(), window);
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest(e.getMessage());
        }
        StringBuilder b = new StringBuilder("<h2 id=\"timeline\">Timeline <span class=\"note\">from the queue's "
                + "events stream, server times</span></h2>");
        if (!read.eventsOn()) {
            b.append("<p class=\"empty\">This queue writes no events now (its <code>events_max</code> is 0), so no "
                    + "timeline is recorded").append(read.events().isEmpty() ? "." : "; the events below are older.")
                    .append("</p>");
        }
        if (read.events().isEmpty()) {
            if (read.eventsOn()) {
                b.append("<p class=\"empty\">No event of this job among the last ").append(Html.count(read.window()))
                        .append(" entries of the stream.</p>");
            }
        } else {
            b.append("<table class=\"timeline\"><thead><tr><th>Time</th><th>Event</th><th class=\"n\">Attempt</th>"
                    + "<th>Detail</th></tr></thead><tbody>");
            for (QueueEvent e : read.events()) {
                b.append("<tr><td>").append(Html.time(streamMillis(e.streamId()))).append("</td><td><span class=\"event ")
                        .append(esc(e.event())).append("\">").append(esc(e.event())).append("</span></td><td class=\"n\">")
                        .append(e.attempt()).append("</td><td>").append(esc(detail(e))).append("</td></tr>");
            }
            b.append("</tbody></table>");
        }
        b.append("<p class=\"note\">").append(esc(coverage(read, j))).append(' ');
        if (!read.reachedStart() && read.window() < JobTimeline.MAX_WINDOW) {
            b.append("<a href=\"").append(esc(pageHref + "&window=" + JobTimeline.MAX_WINDOW)).append("#timeline\">Read the last ")
                    .append(Html.count(JobTimeline.MAX_WINDOW)).append(" entries</a>. ");
        }
        b.append("An <code>enqueued</code> event is written only when the queue's <code>events_enqueued</code> is "
                + "on; a redrive, a promotion and a purge write none.</p>");
        return b.toString();
    }

    /** @return what part of the stream the read saw, and what it could not */
    private static String coverage(JobTimeline.Read read, JobInfo j) {
        OptionalLong oldest = read.oldestRead() == null ? OptionalLong.empty() : streamMillis(read.oldestRead());
        String back = oldest.isPresent() ? " (back to " + Html.time(oldest) + ")" : "";
        if (!read.reachedStart()) {
            return "Read the last " + Html.count(read.window()) + " entries of the stream" + back
                    + ", which holds more: older events of this job may lie before them.";
        }
        String all = "Read every entry the stream keeps: " + Html.count(read.scanned()) + back + ".";
        // A claimed job's history starts with the active event of attempt 1: when that is not
        // kept and the stream starts after the job was created, the cap trimmed its first events.
        boolean firstKept = read.events().stream().anyMatch(e -> e.event().equals("active") && e.attempt() == 1);
        long created = parse(j.field("created_at"));
        if (j.attempts() > 0 && !firstKept && oldest.isPresent() && created >= 0 && created < oldest.getAsLong()) {
            return all + " The stream no longer keeps this job's first events: its cap trimmed them.";
        }
        return all;
    }

    private static String detail(QueueEvent e) {
        StringBuilder d = new StringBuilder();
        for (String field : new String[] {"reason", "delay_ms", "progress", "result", "error"}) {
            String v = e.fields().get(field);
            if (v != null && !(field.equals("error") && v.equals(e.reason()))) {
                d.append(d.length() == 0 ? "" : " · ").append(field.equals("delay_ms") ? "retry in " + v + " ms" : v);
            }
        }
        String s = d.toString().replace('\n', ' ');
        return s.length() > DETAIL_CHARS ? s.substring(0, DETAIL_CHARS) + "…" : s;
    }

    /** @return the server's ms of a stream id {@code <ms>-<seq>} */
    private static OptionalLong streamMillis(String id) {
        long ms = parse(id.substring(0, Math.max(0, id.indexOf('-'))));
        return ms < 0 ? OptionalLong.empty() : OptionalLong.of(ms);
    }

    private static long parse(String s) {
        try {
            return s == null ? -1 : Long.parseLong(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
