package io.echomq.dashboard;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Locale;

/**
 * Who may look and who may act.
 *
 * <ol>
 *   <li>The token: every page but the stylesheet needs it, from the session cookie the start URL
 *       ({@code ?token=…}) sets, or from an {@code X-EMQ-Token} header for scripts. Compared in
 *       constant time.</li>
 *   <li>Cross-site requests: a POST also needs the CSRF value that only the dashboard's own pages
 *       carry (form field {@code csrf} or header {@code X-EMQ-CSRF}), and is refused when its
 *       {@code Origin} is another site's or its {@code Sec-Fetch-Site} says cross-site. The cookie
 *       is {@code SameSite=Strict} and {@code HttpOnly} besides.</li>
 *   <li>Read-only mode: every action is refused, whoever asks.</li>
 * </ol>
 *
 * <p>Kept in one place so that no page can forget a check: the router asks the guard before it
 * calls any page.
 */
final class Guard {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String token;
    private final String csrf;
    private final boolean readOnly;
    private final String cookieName;

    /**
     * @param token    the secret that grants access
     * @param readOnly whether every action is refused
     * @param port     the port served, which names the cookie, so that two dashboards on one
     *                 host do not overwrite each other's session
     */
    Guard(String token, boolean readOnly, int port) {
        this(token, readOnly, "emq_dashboard_" + port);
    }

    /**
     * @param token      the secret that grants access
     * @param readOnly   whether every action is refused
     * @param cookieName the session cookie's name
     */
    Guard(String token, boolean readOnly, String cookieName) {
        this.token = token;
        this.csrf = randomToken();
        this.readOnly = readOnly;
        this.cookieName = cookieName;
    }

    /** @return 32 random bytes, URL-safe base64 without padding (43 characters) */
    static String randomToken() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    String cookieName() {
        return cookieName;
    }

    /** @return the value the dashboard's forms carry in {@code csrf} */
    String csrf() {
        return csrf;
    }

    boolean readOnly() {
        return readOnly;
    }

    /** @return whether {@code candidate} is the token (constant time) */
    boolean isToken(String candidate) {
        return candidate != null && MessageDigest.isEqual(candidate.getBytes(StandardCharsets.UTF_8),
                token.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Checks that the request carries the token, in the cookie or the {@code X-EMQ-Token} header.
     *
     * @throws HttpError 401 otherwise
     */
    void checkToken(Request r) {
        if (!isToken(r.cookie(cookieName)) && !isToken(r.header("X-EMQ-Token"))) {
            throw HttpError.unauthorized("this page needs the dashboard's token: open the URL with ?token=… that "
                    + "emq dashboard printed when it started");
        }
    }

    /**
     * Checks an action: not read-only, the token, the CSRF value, and a same-site origin.
     *
     * @throws HttpError 403 in read-only mode, for a missing or wrong CSRF value or a cross-site
     *     request; 401 without the token
     */
    void checkAction(Request r) {
        if (readOnly) {
            throw HttpError.forbidden("the dashboard runs read-only (--read-only): actions are turned off");
        }
        checkToken(r);
        String site = r.header("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            throw HttpError.forbidden("refused a cross-site request (Sec-Fetch-Site: " + site + ")");
        }
        String origin = r.header("Origin");
        String host = r.header("Host");
        if (origin != null && (host == null || !sameHost(origin, r.scheme(), host))) {
            throw HttpError.forbidden("refused a request from another origin (" + origin + ")");
        }
        String given = r.form("csrf") != null ? r.form("csrf") : r.header("X-EMQ-CSRF");
        if (given == null || !MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8),
                csrf.getBytes(StandardCharsets.UTF_8))) {
            throw HttpError.forbidden("the form's CSRF value is missing or stale: reload the page and try again");
        }
    }

    /**
     * @return whether {@code origin} is {@code <scheme>://<host>}: {@code http} on the dashboard's own
     *     server; {@code https} too when mounted in an application that serves (or is told by its
     *     proxy that it serves) HTTPS
     */
    private static boolean sameHost(String origin, String scheme, String host) {
        return origin.toLowerCase(Locale.ROOT).equals(scheme + "://" + host.toLowerCase(Locale.ROOT));
    }

    /**
     * @param mount  the path the dashboard is served under ("" at the root): the cookie is sent to
     *               the dashboard's pages only, not to the rest of an application it is mounted in
     * @param secure whether the page was served over HTTPS, so that the cookie never travels in clear
     * @return the Set-Cookie value of a session that holds the token
     */
    String sessionCookie(String mount, boolean secure) {
        return cookieName + "=" + token + "; Path=" + (mount.isEmpty() ? "/" : mount) + "; HttpOnly; SameSite=Strict"
                + (secure ? "; Secure" : "");
    }
}
