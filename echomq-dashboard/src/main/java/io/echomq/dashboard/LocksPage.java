package io.echomq.dashboard;

import static io.echomq.dashboard.Html.esc;

import io.echomq.lock.LockClient;
import io.echomq.lock.LockDirectory;
import io.echomq.lock.LockInfo;
import java.util.Comparator;
import java.util.List;

/**
 * The held locks of the lock client's namespace, under a prefix, with ttl left and fence.
 *
 * <p>Duties: check the prefix and the limit (1..{@value LockDirectory#MAX_LOCKS}) with a 400
 * that says what is wrong; walk with {@link LockDirectory#held} (SCAN with a bounded COUNT,
 * stopping at the limit) and say when the walk stopped before the end; show a holder's token
 * only by its first {@value #TOKEN_SHOWN} characters, since the whole token can release the
 * lock.
 */
final class LocksPage {
    /** Locks shown when the request names no limit. */
    static final int DEFAULT_LIMIT = 200;
    /** Characters of a holder's token shown. */
    static final int TOKEN_SHOWN = 8;

    private final LockClient locks;

    /** @param locks the client whose namespace to show, or null when the dashboard has none */
    LocksPage(LockClient locks) {
        this.locks = locks;
    }

    Answer answer(Request r, Html.Frame f) {
        if (locks == null) {
            throw HttpError.notFound("this dashboard was started without a lock client: no locks to show");
        }
        String prefix = r.query("prefix") == null ? "" : r.query("prefix");
        int limit = r.limit(DEFAULT_LIMIT, LockDirectory.MAX_LOCKS);
        LockDirectory.Found found;
        try {
            found = LockDirectory.of(locks).held(prefix, limit);
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest(e.getMessage());
        }
        List<LockInfo> held = found.locks().stream().sorted(Comparator.comparing(LockInfo::resource)).toList();
        StringBuilder b = new StringBuilder();
        b.append("<form class=\"search\" method=\"get\" action=\"/locks\"><input name=\"prefix\" value=\"")
                .append(esc(prefix)).append("\" placeholder=\"Resource prefix\" aria-label=\"Resource prefix\">"
                        + "<button>Show</button></form>");
        if (held.isEmpty()) {
            b.append("<p class=\"empty\">No lock is held").append(prefix.isEmpty() ? "" : " under this prefix")
                    .append(".</p>");
        } else {
            b.append("<table class=\"locks\"><thead><tr><th>Resource</th><th>Holder token</th>"
                    + "<th class=\"n\">Ttl left</th><th class=\"n\">Fence</th></tr></thead><tbody>");
            for (LockInfo l : held) {
                String token = l.holderToken().orElse("");
                b.append("<tr><td><a href=\"").append(esc("/lock?resource=" + Html.url(l.resource()))).append("\">")
                        .append(esc(l.resource())).append("</a></td><td><code>")
                        .append(esc(token.length() > TOKEN_SHOWN ? token.substring(0, TOKEN_SHOWN) + "…" : token))
                        .append("</code></td><td class=\"n\">").append(ttl(l.ttlMillis()))
                        .append("</td><td class=\"n\">").append(l.lastFence()).append("</td></tr>");
            }
            b.append("</tbody></table>");
        }
        b.append("<p class=\"note\">").append(Html.count(held.size())).append(held.size() == 1 ? " lock" : " locks")
                .append(" held, found by a SCAN of the keyspace");
        if (!found.complete()) {
            b.append(" that stopped at ").append(Html.count(limit)).append(" lock keys: more may be held; narrow "
                    + "the prefix or raise <code>limit</code> (up to ").append(LockDirectory.MAX_LOCKS).append(')');
        }
        b.append(". A ttl with no expiry is a lock that will never be freed by itself.</p>");
        return Answer.html(Html.page(f, "Locks", b.toString()));
    }


    private static String ttl(long ms) {
        if (ms == -1) {
            return "<span class=\"bad\">no expiry</span>";
        }
        return ms < 10_000 ? ms + " ms" : String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
    }
}
