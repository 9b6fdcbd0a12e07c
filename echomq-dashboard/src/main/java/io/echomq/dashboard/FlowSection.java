package io.echomq.dashboard;

import static io.echomq.dashboard.Html.count;
import static io.echomq.dashboard.Html.esc;

import io.echomq.queue.FlowControl;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.QueueStats;
import io.echomq.queue.RateLimit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A queue's flow control on its page: the rate limit and the concurrency cap as every claim reads
 * them ({@link FlowControl}), and whether they throttle the queue now.
 *
 * <p>Throttled now means that a claim made now would start no job although jobs are pending: a
 * back-off hold is running, the rate limit's window is full ({@link FlowControl#startedInWindow}
 * equals its {@code max}), or as many jobs are active as the cap allows. A sharded queue shows
 * partition 0's settings and counts, as {@link FlowControl} reads them, and says so. Reads a few
 * commands per view; nothing is written.
 */
final class FlowSection {
    private FlowSection() {
    }

    /** @return the section's HTML: one line of settings and one of state */
    static String render(QueueOperations q, QueueStats s) {
        FlowControl flow = q.flowControl();
        Optional<RateLimit> rate = flow.rateLimit();
        OptionalInt cap = flow.concurrencyCap();
        Duration hold = flow.holdRemaining();
        StringBuilder b = new StringBuilder("<p class=\"flow\">Flow control");
        if (q.isSharded()) {
            b.append(" (partition 0's; each partition enforces its own)");
        }
        b.append(": ");
        if (rate.isEmpty() && cap.isEmpty()) {
            b.append("no rate limit, no cap <span class=\"note\">set them with emq queue limit and emq queue cap"
                    + "</span>");
        }
        List<String> throttles = new ArrayList<>();
        long started = 0;
        if (rate.isPresent()) {
            started = flow.startedInWindow();
            b.append("rate limit ").append(count(rate.get().max())).append(" jobs per ")
                    .append(esc(window(rate.get().windowMillis()))).append(" (").append(count(started))
                    .append(" started in the current window)");
            if (started >= rate.get().max()) {
                throttles.add("its rate limit's window is full");
            }
        }
        if (cap.isPresent()) {
            b.append(rate.isPresent() ? " · " : "").append("cap ").append(count(cap.getAsInt()))
                    .append(" active at once (").append(count(s.active())).append(" active)");
            if (s.active() >= cap.getAsInt()) {
                throttles.add("it runs as many jobs as its cap allows");
            }
        }
        if (!hold.isZero()) {
            throttles.add(0, "a handler's back-off hold stops every claim for " + hold.toMillis() + " ms more");
        }
        b.append("</p><p class=\"flow-state\">");
        if (throttles.isEmpty()) {
            b.append("Not throttled now: a claim made now takes pending jobs.");
        } else {
            b.append("<span class=\"badge warn\">throttled now</span> ")
                    .append(esc(String.join("; ", throttles) + (s.pending() == 0 ? " (no job is pending either)."
                            : ": " + count(s.pending()) + " pending jobs wait.")));
        }
        return b.append("</p>").toString();
    }

    private static String window(long ms) {
        if (ms % 3_600_000 == 0) {
            return ms / 3_600_000 + " h";
        }
        if (ms % 60_000 == 0) {
            return ms / 60_000 + " min";
        }
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }
}
