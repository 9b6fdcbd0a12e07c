package io.echomq.dashboard;

import static io.echomq.dashboard.Html.esc;

import io.echomq.lock.LockClient;
import io.echomq.lock.LockDirectory;
import io.echomq.lock.LockInfo;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;

/**
 * The held locks of the lock client's namespace, under a prefix, with ttl left and fence, a page at
 * a time.
 *
 * <p>Duties: check the prefix, the page size ({@code limit}, 1..{@value LockDirectory#MAX_LOCKS})
 * and the cursor with a 400 that says what is wrong; read one page with {@link LockDirectory#page}
 * ({@code SCAN} calls from the cursor until the page has its lock keys, the walk ends, or the time
 * budget is spent), never the whole keyspace per view; link the next page by the walk's cursor;
 * say what was scanned, and claim a total only when the page is a whole walk (the first page, and
 * the walk ended on it); show a holder's token only by its first {@value #TOKEN_SHOWN} characters,
 * since the whole token can release the lock, and its label when its client gave one.
 */
final class LocksPage {
    /** Lock keys a page stops at when the request names no {@code limit}. */
    static final int DEFAULT_LIMIT = 50;
    /** How long a page may scan, unless the dashboard was built with another budget. */
    static final Duration BUDGET = Duration.ofMillis(100);
    /** Characters of a holder's token shown. */
    static final int TOKEN_SHOWN = 8;

    private final LockClient locks;
    private final Duration budget;

    /**
     * @param locks  the client whose namespace to show, or null when the dashboard has none
     * @param budget how long one page may send {@code SCAN} calls
     */
    LocksPage(LockClient locks, Duration budget) {
        this.locks = locks;
        this.budget = budget;
    }

    Answer answer(Request r, Html.Frame f) {
        if (locks == null) {
            throw HttpError.notFound("this dashboard was started without a lock client: no locks to show");
        }
        String prefix = r.query("prefix") == null ? "" : r.query("prefix");
        String cursor = r.query("cursor") == null ? "" : r.query("cursor");
        int limit = r.limit(DEFAULT_LIMIT, LockDirectory.MAX_LOCKS);
        LockDirectory directory = LockDirectory.of(locks);
        LockDirectory.Page page;
        try {
            page = directory.page(prefix, cursor, limit, budget);
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest(e.getMessage());
        }
        List<LockInfo> held = page.locks().stream().sorted(Comparator.comparing(LockInfo::resource)).toList();
        StringBuilder b = new StringBuilder();
        b.append("<form class=\"search\" method=\"get\" action=\"/locks\"><input name=\"prefix\" value=\"")
                .append(esc(prefix)).append("\" placeholder=\"Resource prefix\" aria-label=\"Resource prefix\">"
                        + "<button>Show</button></form>");
        boolean whole = cursor.isEmpty() && page.next() == null;
        if (held.isEmpty()) {
            b.append("<p class=\"empty\">").append(whole ? "No lock is held" : "No held lock on this page")
                    .append(prefix.isEmpty() ? "" : " under this prefix").append(".</p>");
        } else {
            b.append("<table class=\"locks\"><thead><tr><th>Resource</th><th>Holder token</th>"
                    + "<th class=\"n\">Ttl left</th><th class=\"n\">Fence</th><th>Holder</th></tr></thead><tbody>");
            for (LockInfo l : held) {
                String token = l.holderToken().orElse("");
                b.append("<tr><td><a href=\"").append(esc("/lock?resource=" + Html.url(l.resource()))).append("\">")
                        .append(esc(l.resource())).append("</a></td><td><code>")
                        .append(esc(token.length() > TOKEN_SHOWN ? token.substring(0, TOKEN_SHOWN) + "…" : token))
                        .append("</code></td><td class=\"n\">").append(ttl(l.ttlMillis()))
                        .append("</td><td class=\"n\">").append(l.lastFence()).append("</td><td>")
                        .append(esc(l.holderLabel().orElse(""))).append("</td></tr>");
            }
            b.append("</tbody></table>");
        }
        b.append("<p class=\"note\">").append(Html.count(held.size())).append(held.size() == 1 ? " lock" : " locks")
                .append(" held");
        if (whole) {
            b.append(": every held lock").append(prefix.isEmpty() ? "" : " under this prefix").append(", found by a ")
                    .append("whole SCAN of the keyspace");
        } else {
            b.append(" on this page, found by ").append(Html.count(page.scanCalls()))
                    .append(page.scanCalls() == 1 ? " SCAN call" : " SCAN calls").append(" that visited about ")
                    .append(Html.count(page.keysVisited())).append(" keys");
            OptionalLong keys = page.budgetSpent() || page.next() != null ? directory.keyCount() : OptionalLong.empty();
            if (keys.isPresent()) {
                b.append(" of about ").append(Html.count(keys.getAsLong())).append(" on the server");
            }
            if (page.budgetSpent()) {
                b.append("; the page's time budget of ").append(budget.toMillis()).append(" ms ran out before it found ")
                        .append(Html.count(limit)).append(limit == 1 ? " lock key" : " lock keys");
            }
            b.append(page.next() == null ? ". The walk has ended: this is its last page" : ". More may be held");
        }
        b.append(".</p>");
        if (page.next() != null || !cursor.isEmpty()) {
            b.append("<p class=\"pager\">");
            if (!cursor.isEmpty()) {
                b.append("<a href=\"").append(esc(link(prefix, "", limit))).append("\">First page</a> ");
            }
            if (page.next() != null) {
                b.append("<a rel=\"next\" href=\"").append(esc(link(prefix, page.next(), limit)))
                        .append("\">Next page →</a>");
            }
            b.append("</p>");
        }
        b.append("<p class=\"note\">A page holds the held locks whose keys its SCAN calls named: at least ")
                .append(Html.count(limit)).append(" lock keys, unless the walk ended or the time budget ran out, and "
                        + "sometimes more, since every key of a SCAN reply is shown. A lock taken or released during the "
                        + "walk may or may not be shown. A ttl with no expiry is a lock that will never be freed by "
                        + "itself.</p>");
        return Answer.html(Html.page(f, "Locks", b.toString()));
    }

    private static String link(String prefix, String cursor, int limit) {
        StringBuilder q = new StringBuilder("/locks");
        char sep = '?';
        if (!prefix.isEmpty()) {
            q.append(sep).append("prefix=").append(Html.url(prefix));
            sep = '&';
        }
        if (limit != DEFAULT_LIMIT) {
            q.append(sep).append("limit=").append(limit);
            sep = '&';
        }
        if (!cursor.isEmpty()) {
            q.append(sep).append("cursor=").append(Html.url(cursor));
        }
        return q.toString();
    }

    private static String ttl(long ms) {
        if (ms == -1) {
            return "<span class=\"bad\">no expiry</span>";
        }
        return ms < 10_000 ? ms + " ms" : String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
    }
}
