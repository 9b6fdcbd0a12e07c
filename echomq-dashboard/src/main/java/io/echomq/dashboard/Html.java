package io.echomq.dashboard;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.OptionalLong;

/**
 * The HTML every page is made of.
 *
 * <ol>
 *   <li>Escapes text for an element or an attribute ({@link #esc}) and a parameter for a URL
 *       ({@link #url}): every value read from Redis passes through one of them.</li>
 *   <li>Wraps a page's body in the shared frame ({@link #page}): title, the stylesheet from the
 *       jar, the header with the server (its password never shown) and the mode.</li>
 *   <li>Formats what many pages show: counts, server times, a hidden CSRF field.</li>
 * </ol>
 *
 * <p>Pages are written on the server, so the browser runs no script and the CSP can forbid every
 * inline one.
 */
final class Html {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS 'UTC'")
            .withZone(ZoneOffset.UTC);

    private Html() {
    }

    /** What the frame of every page shows. */
    record Frame(String server, boolean readOnly, String csrf) {
    }

    /** @return {@code s} with {@code & < > " '} escaped; "" for null */
    static String esc(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** @return {@code s} encoded as a URL query value */
    static String url(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** @return the count with thousands separators: {@code 1,000,000} */
    static String count(long n) {
        return String.format(java.util.Locale.ROOT, "%,d", n);
    }

    /** @return server epoch ms as {@code 2026-12-01 21:52:54.000 UTC}, or "—" */
    static String time(OptionalLong ms) {
        return ms.isPresent() ? TIME.format(Instant.ofEpochMilli(ms.getAsLong())) : "—";
    }

    /** @return server epoch ms (as stored text) as a time, or "—" when absent or not a number */
    static String time(String ms) {
        try {
            return ms == null ? "—" : time(OptionalLong.of(Long.parseLong(ms)));
        } catch (NumberFormatException e) {
            return esc(ms);
        }
    }

    /** @return the hidden form field that carries the CSRF value */
    static String csrfField(Frame f) {
        return "<input type=\"hidden\" name=\"csrf\" value=\"" + esc(f.csrf()) + "\">";
    }

    /** @return the whole document: frame, title and {@code body} (already escaped HTML) */
    static String page(Frame f, String title, String body) {
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                + "<title>" + esc(title) + " · EchoMQ</title>"
                + "<link rel=\"stylesheet\" href=\"/static/dashboard.css\"></head><body>"
                + "<header><a class=\"brand\" href=\"/\">EchoMQ</a><span class=\"server\">" + esc(f.server())
                + "</span>" + (f.readOnly() ? "<span class=\"badge ro\">read-only</span>" : "")
                + "<nav><a href=\"/\">Queues</a> <a href=\"/workers\">Workers</a> <a href=\"/locks\">Locks</a> <a href=\"/audit\">Audit</a> <a href=\"/safety\">Why it is safe</a></nav>"
                + "</header><main><h1>" + esc(title) + "</h1>" + body + "</main></body></html>\n";
    }

    /** @return an error page: the status and the message, nothing else */
    static String error(Frame f, int status, String message) {
        return page(f, status == 404 ? "Not found" : "Refused (" + status + ")",
                "<p class=\"error\">" + esc(message) + "</p><p><a href=\"/\">Back to the queues</a></p>");
    }
}
