package io.echomq.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One request as the pages read it: the method, the path, the query and form parameters, a
 * header, a cookie.
 *
 * <p>Duties: hold what the server in front read (the JDK's in {@link JdkExchange}, a servlet
 * container's in {@link DashboardServlet}), so that no page depends on either; decode {@code application/x-www-form-urlencoded} text (the query, a form body) once,
 * refusing a body over {@value #MAX_BODY} bytes, a parameter given twice and text that is not
 * UTF-8 with a 4xx; hand out a required parameter or a 400 that names it. Kept apart so that no
 * page parses by hand, and each refusal reads the same.
 */
final class Request {
    /** Largest form body read: every form of the dashboard is a few short fields. */
    static final int MAX_BODY = 16 * 1024;

    private final String method;
    private final String scheme;
    private final String mount;
    private final String path;
    private final String rawQuery;
    private final Function<String, List<String>> headers;
    private final Map<String, String> query;
    private final Map<String, String> form;
    private final String peer;

    private Request(String method, String scheme, String mount, String path, String rawQuery,
                    Function<String, List<String>> headers, Map<String, String> query, Map<String, String> form,
                    String peer) {
        this.method = method;
        this.scheme = scheme;
        this.mount = mount;
        this.path = path;
        this.rawQuery = rawQuery;
        this.headers = headers;
        this.query = query;
        this.form = form;
        this.peer = peer;
    }

    /**
     * Reads the request: its query, and for a POST its form body.
     *
     * @param method   the HTTP method
     * @param scheme   {@code http} or {@code https}, as the client sees the server
     * @param mount    the path the dashboard is served under, without a trailing slash: "" at the
     *                 root, {@code /echomq} when mounted there
     * @param path     the decoded path below the mount, starting with {@code /}
     * @param rawQuery the query as sent (still URL-encoded), or null
     * @param headers  every value of a header by its name (any case); an empty list when absent
     * @param body     the body, read only for a POST
     * @param peer     who sent it, as the server in front knows them: the remote address, after the user name
     *                 when the container authenticated one ({@code alice from 10.0.0.7}); null when unknown
     * @throws HttpError 400 for a malformed query or form, 413 for a body over {@value #MAX_BODY} bytes
     * @throws IOException if the body cannot be read
     */
    static Request read(String method, String scheme, String mount, String path, String rawQuery,
                        Function<String, List<String>> headers, InputStream body, String peer) throws IOException {
        Map<String, String> query = decode(rawQuery);
        Map<String, String> form = Map.of();
        if ("POST".equals(method)) {
            try (InputStream in = body) {
                byte[] bytes = in.readNBytes(MAX_BODY + 1);
                if (bytes.length > MAX_BODY) {
                    throw new HttpError(413, "the form is over " + MAX_BODY + " bytes");
                }
                form = decode(new String(bytes, StandardCharsets.UTF_8));
            }
        }
        return new Request(method, scheme, mount, path, rawQuery, headers, query, form, peer);
    }

    String method() {
        return method;
    }

    /**
     * @return who acts, as the audit trail names them: {@code dashboard from <address>}, or
     *     {@code dashboard <user> from <address>} when the container authenticated a user; the address is the
     *     connection's peer (a proxy in front shows as itself: no forwarded header is trusted)
     */
    String who() {
        String who = "dashboard " + (peer == null || peer.isBlank() ? "from an unknown address" : peer);
        who = who.replaceAll("\\p{Cntrl}", "_");
        return who.length() > io.echomq.audit.AuditTrail.MAX_WHO
                ? who.substring(0, io.echomq.audit.AuditTrail.MAX_WHO) : who;
    }

    /** @return {@code http} or {@code https} */
    String scheme() {
        return scheme;
    }

    /** @return the path the dashboard is served under: "" at the root, else {@code /echomq} or the like */
    String mount() {
        return mount;
    }

    /** @return the path below the mount, starting with {@code /} */
    String path() {
        return path;
    }

    /** @return the query as sent, or null */
    String rawQuery() {
        return rawQuery;
    }

    /** @return the query parameter, or null */
    String query(String name) {
        return query.get(name);
    }

    /** @return the form field of a POST, or null */
    String form(String name) {
        return form.get(name);
    }

    /** @return the form field, else the query parameter, or null */
    String param(String name) {
        String v = form.get(name);
        return v != null ? v : query.get(name);
    }

    /** @return the names of every parameter, the form's fields then the query's, each once */
    java.util.Set<String> names() {
        java.util.Set<String> all = new java.util.LinkedHashSet<>(form.keySet());
        all.addAll(query.keySet());
        return all;
    }

    /**
     * @return the parameter (form field or query), not blank
     * @throws HttpError 400 naming it when it is missing or blank
     */
    String required(String name) {
        String v = param(name);
        if (v == null || v.isBlank()) {
            throw HttpError.badRequest("missing parameter '" + name + "'");
        }
        return v;
    }

    /**
     * @return the query parameter {@code limit}: {@code dflt} when absent or empty, else a whole
     *     number in 1..{@code max}
     * @throws HttpError 400 saying what is accepted, for anything else
     */
    int limit(int dflt, int max) {
        String text = query("limit");
        if (text == null || text.isEmpty()) {
            return dflt;
        }
        try {
            int n = Integer.parseInt(text);
            if (n >= 1 && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the message below says what is accepted
        }
        throw HttpError.badRequest("limit must be a whole number in 1.." + max + ", was '" + text + "'");
    }

    /** @return the first value of the header, or null */
    String header(String name) {
        List<String> values = headers.apply(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** @return the value of the named cookie, or null */
    String cookie(String name) {
        for (String line : headers.apply("Cookie")) {
            for (String part : line.split(";")) {
                int eq = part.indexOf('=');
                if (eq > 0 && part.substring(0, eq).strip().equals(name)) {
                    return part.substring(eq + 1).strip();
                }
            }
        }
        return null;
    }

    private static Map<String, String> decode(String text) {
        if (text == null || text.isEmpty()) {
            return Map.of();
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String pair : text.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = unescape(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "" : unescape(pair.substring(eq + 1));
            if (out.put(name, value) != null) {
                throw HttpError.badRequest("parameter '" + name + "' is given twice");
            }
        }
        return Collections.unmodifiableMap(out);
    }

    private static String unescape(String s) {
        try {
            String v = URLDecoder.decode(s, StandardCharsets.UTF_8);
            if (v.indexOf('\uFFFD') >= 0 && !s.toUpperCase(java.util.Locale.ROOT).contains("%EF%BF%BD") && !s.contains("\uFFFD")) {
                throw HttpError.badRequest("a parameter is not UTF-8");
            }
            return v;
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest("a parameter is not URL-encoded: " + e.getMessage());
        }
    }
}
