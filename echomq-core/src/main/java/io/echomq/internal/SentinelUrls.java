package io.echomq.internal;

import io.echomq.RedisUrl;
import io.lettuce.core.RedisURI;
import java.util.Locale;

/**
 * Parses a Sentinel URL into the Lettuce {@link RedisURI} that finds the master through its sentinels:
 * {@code redis-sentinel://[user:password@]host[:port][,host[:port]…][/db][?[sentinelUsername=…&]sentinelPassword=…]#master}
 * ({@code rediss-sentinel://} for TLS to the sentinels and the data nodes).
 *
 * <ul>
 *   <li>The hosts are the sentinels; a port defaults to 26379.</li>
 *   <li>The user and password are the data nodes' (the master's and its replicas'); the sentinels' own password,
 *       when they have one, is the {@value RedisUrl#SENTINEL_PASSWORD} parameter, percent-encoded, and the ACL user
 *       it belongs to, when not the sentinels' default user, the {@value RedisUrl#SENTINEL_USERNAME} parameter.</li>
 *   <li>The master's name, after {@code #}, is required: without it no sentinel can say which master is meant.</li>
 * </ul>
 * Lettuce itself asks the sentinels where the master is on every connect and reconnect; nothing here talks to a
 * server. Errors say what is wrong and never echo a password.
 */
public final class SentinelUrls {
    /** The form every error message quotes. */
    static final String EXPECTED = "redis-sentinel://[user:password@]host[:port][,host[:port]...][/db]"
            + "[?[sentinelUsername=...&]sentinelPassword=...]#master";

    private SentinelUrls() {
    }

    /**
     * @param url a {@code redis-sentinel://} or {@code rediss-sentinel://} URL
     * @return the Lettuce URI naming the sentinels (with their password, if given), the master's name, the database,
     *     the data nodes' credentials and TLS
     * @throws IllegalArgumentException if the URL is null, blank, not a Sentinel URL, has no master name, a bad host,
     *     port or database, a query parameter other than {@value RedisUrl#SENTINEL_PASSWORD} and
     *     {@value RedisUrl#SENTINEL_USERNAME}, or a username without a password
     */
    public static RedisURI parse(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("Redis URL must not be empty; expected " + EXPECTED);
        }
        String trimmed = url.trim();
        if (!RedisUrl.isSentinel(trimmed)) {
            throw malformed(trimmed, "the scheme must be redis-sentinel:// or rediss-sentinel://");
        }
        boolean tls = trimmed.toLowerCase(Locale.ROOT).startsWith(RedisUrl.SENTINEL_TLS);
        String rest = trimmed.substring(tls ? RedisUrl.SENTINEL_TLS.length() : RedisUrl.SENTINEL.length());
        int hash = rest.indexOf('#');
        String master = hash < 0 ? "" : UrlAuthority.decode(rest.substring(hash + 1));
        if (master.isBlank()) {
            throw malformed(trimmed, "no master name: end the URL with #<master>, the name the sentinels monitor it by");
        }
        String beforeHash = hash < 0 ? rest : rest.substring(0, hash);
        int question = beforeHash.indexOf('?');
        String[] sentinelAuth = question < 0 ? new String[2] : sentinelAuth(trimmed, beforeHash.substring(question + 1));
        String sentinelUsername = sentinelAuth[0];
        String sentinelPassword = sentinelAuth[1];
        String authorityAndPath = question < 0 ? beforeHash : beforeHash.substring(0, question);
        int slash = authorityAndPath.indexOf('/');
        String authority = slash < 0 ? authorityAndPath : authorityAndPath.substring(0, slash);
        String path = slash < 0 ? "" : authorityAndPath.substring(slash);
        if (!(path.isEmpty() || path.equals("/") || path.matches("/\\d{1,9}"))) {
            throw malformed(trimmed, "the path must be the database number ('" + path + "')");
        }
        UrlAuthority.Credentials credentials = UrlAuthority.Credentials.of(authority);
        authority = credentials.hosts();
        if (authority.isEmpty()) {
            throw malformed(trimmed, "no sentinel host");
        }
        for (String hostPort : authority.split(",", -1)) {
            if (hostPort.isBlank()) {
                throw malformed(trimmed, "an empty sentinel host between commas");
            }
            String problem = UrlAuthority.hostProblem(hostPort);
            if (problem != null) {
                throw malformed(trimmed, "bad sentinel '" + hostPort + "': " + problem);
            }
        }
        // Lettuce's own parser places the sentinels (default port 26379), the database and TLS. The master's name,
        // decoded already (a blank in it is no URI character), and the credentials, which Lettuce would give the
        // data nodes only, are set below where each belongs.
        String bare = (tls ? RedisUrl.SENTINEL_TLS : RedisUrl.SENTINEL) + authority
                + (path.length() > 1 ? path : "") + "#master";
        RedisURI uri;
        try {
            uri = RedisURI.create(bare);
        } catch (RuntimeException e) {
            throw malformed(trimmed, RedisUrl.redactIn(String.valueOf(e.getMessage()), trimmed));
        }
        uri.setSentinelMasterId(master);
        credentials.applyTo(uri);
        if (sentinelUsername != null) {
            uri.getSentinels().forEach(s -> s.setAuthentication(sentinelUsername, sentinelPassword.toCharArray()));
        } else if (sentinelPassword != null) {
            uri.getSentinels().forEach(s -> s.setAuthentication(sentinelPassword.toCharArray()));
        }
        return uri;
    }

    /**
     * @return the decoded {@value RedisUrl#SENTINEL_USERNAME} and {@value RedisUrl#SENTINEL_PASSWORD}, each null when
     *     absent or empty: the two parameters a Sentinel URL takes
     */
    private static String[] sentinelAuth(String url, String query) {
        String[] found = new String[2];
        for (String parameter : query.split("&", -1)) {
            int eq = parameter.indexOf('=');
            String name = eq < 0 ? parameter : parameter.substring(0, eq);
            int at = name.equals(RedisUrl.SENTINEL_USERNAME) ? 0 : name.equals(RedisUrl.SENTINEL_PASSWORD) ? 1 : -1;
            if (at < 0 || eq < 0) {
                throw malformed(url, "unknown query parameter '" + name + "'; a Sentinel URL takes only "
                        + RedisUrl.SENTINEL_USERNAME + "=... and " + RedisUrl.SENTINEL_PASSWORD + "=...");
            }
            String value = UrlAuthority.decode(parameter.substring(eq + 1));
            found[at] = value.isEmpty() ? null : value;
        }
        if (found[0] != null && found[1] == null) {
            throw malformed(url, RedisUrl.SENTINEL_USERNAME + " needs " + RedisUrl.SENTINEL_PASSWORD
                    + ", the password of that user on the sentinels");
        }
        return found;
    }

    private static IllegalArgumentException malformed(String url, String why) {
        return new IllegalArgumentException("Malformed Redis Sentinel URL '" + RedisUrl.redact(url) + "': " + why
                + "; expected " + EXPECTED);
    }
}
