package io.echomq;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Redis URL forms EchoMQ accepts, and the one rule for showing a URL without its credentials.
 *
 * <p>Duties:
 * <ul>
 *   <li>name the schemes in one place ({@link #SCHEMES}), so help texts and messages agree;</li>
 *   <li>tell a cluster URL from a single-server one ({@link #isCluster}), and a Sentinel URL
 *       ({@link #isSentinel});</li>
 *   <li>hide user and password (and a Sentinel URL's {@value #SENTINEL_PASSWORD} parameter): in a URL
 *       ({@link #redact}), and in any text that quotes one
 *       ({@link #redactIn}, {@link #redactAll}). Every message, log line and help text of the
 *       library, the CLI and the benchmarks goes through these, so a password is never echoed.</li>
 * </ul>
 * Parsing itself stays inside the clients' builders ({@code redisUrl(String)}), which throw
 * {@link IllegalArgumentException} for a malformed URL, with the URL redacted.
 */
public final class RedisUrl {
    /** One server: {@code redis://[user:password@]host[:port][/db]}. */
    public static final String REDIS = "redis://";
    /** One server over TLS: {@code rediss://[user:password@]host[:port][/db]}. */
    public static final String REDIS_TLS = "rediss://";
    /** One server over a Unix socket: {@code redis-socket:///path/to/socket}. */
    public static final String REDIS_SOCKET = "redis-socket://";
    /** A Redis Cluster: {@code redis-cluster://[user:password@]host:port[,host:port…]} (the seed nodes). */
    public static final String CLUSTER = "redis-cluster://";
    /** A Redis Cluster over TLS: {@code rediss-cluster://…}. */
    public static final String CLUSTER_TLS = "rediss-cluster://";
    /**
     * A master watched by Redis Sentinel:
     * {@code redis-sentinel://[user:password@]host[:port][,host[:port]…][/db]#master} names the sentinels (port
     * 26379 by default) and, after {@code #}, the master's name as the sentinels know it; the user and password are
     * the data nodes'. The clients ask the sentinels where the master is, and ask again on every reconnect.
     */
    public static final String SENTINEL = "redis-sentinel://";
    /** A master watched by Redis Sentinel, over TLS to the sentinels and the data nodes: {@code rediss-sentinel://…}. */
    public static final String SENTINEL_TLS = "rediss-sentinel://";
    /**
     * The query parameter of a Sentinel URL that holds the sentinels' own password (their {@code requirepass}),
     * percent-encoded: {@code redis-sentinel://h1,h2,h3?sentinelPassword=s3cret#mymaster}. Redacted like the
     * user-info.
     */
    public static final String SENTINEL_PASSWORD = "sentinelPassword";
    /**
     * The query parameter of a Sentinel URL that names the sentinels' ACL user whose password
     * {@value #SENTINEL_PASSWORD} is, when the sentinels authenticate clients as a user other than their default:
     * {@code redis-sentinel://h1,h2,h3?sentinelUsername=ops&sentinelPassword=s3cret#mymaster}. It needs
     * {@value #SENTINEL_PASSWORD}; without it the password is the default user's.
     */
    public static final String SENTINEL_USERNAME = "sentinelUsername";
    /** Every scheme accepted, single-server forms first. */
    public static final List<String> SCHEMES =
            List.of(REDIS, REDIS_TLS, REDIS_SOCKET, CLUSTER, CLUSTER_TLS, SENTINEL, SENTINEL_TLS);

    private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*:/*");
    /** A Redis URL's scheme followed by user-info up to its '@'; user-info holds no blank, '/', quote or bracket. */
    private static final Pattern URL_WITH_USER_INFO =
            Pattern.compile("(?i)(rediss?(?:-socket|-cluster|-sentinel)?://)[^@\\s/'\"\\[\\]]*@");
    /** The sentinels' password in a Sentinel URL's query, up to the next '&', '#', blank or quote. */
    private static final Pattern SENTINEL_SECRET = Pattern.compile("(?i)([?&]" + SENTINEL_PASSWORD + "=)[^&#\\s'\"]*");

    private RedisUrl() {
    }

    /**
     * @param url a Redis URL, possibly {@code null} or malformed
     * @return whether it names a Redis Cluster ({@value #CLUSTER} or {@value #CLUSTER_TLS}, any case, surrounding
     *     blanks ignored); {@code false} for {@code null}
     */
    public static boolean isCluster(String url) {
        if (url == null) {
            return false;
        }
        String lower = url.trim().toLowerCase(Locale.ROOT);
        return lower.startsWith(CLUSTER) || lower.startsWith(CLUSTER_TLS);
    }

    /**
     * @param url a Redis URL, possibly {@code null} or malformed
     * @return whether it names a master watched by Redis Sentinel ({@value #SENTINEL} or {@value #SENTINEL_TLS}, any
     *     case, surrounding blanks ignored); {@code false} for {@code null}
     */
    public static boolean isSentinel(String url) {
        if (url == null) {
            return false;
        }
        String lower = url.trim().toLowerCase(Locale.ROOT);
        return lower.startsWith(SENTINEL) || lower.startsWith(SENTINEL_TLS);
    }

    /**
     * Hides a URL's credentials. The user-info is everything between the scheme (with its slashes) and the last
     * '@', so malformed URLs such as {@code redis:/:pw@h} or {@code user:pw@h} are hidden too.
     *
     * @param url a URL, possibly malformed; not {@code null}
     * @return {@code url} with its user-info, and the value of any {@value #SENTINEL_PASSWORD} parameter, replaced by
     *     {@code ***}; {@code url} itself when it has neither
     * @throws NullPointerException if {@code url} is {@code null}
     */
    public static String redact(String url) {
        String userInfo = userInfo(url);
        String hidden = url;
        if (!userInfo.isEmpty()) {
            int start = schemeEnd(url);
            hidden = url.substring(0, start) + "***" + url.substring(start + userInfo.length());
        }
        return SENTINEL_SECRET.matcher(hidden).replaceAll("$1***");
    }

    /**
     * Hides one URL's credentials wherever they appear in {@code text}, for example in a driver's message that
     * quotes the URL, or only a part of it, verbatim.
     *
     * @param text the text to clean, possibly {@code null}
     * @param url the URL whose user-info must not appear; not {@code null}
     * @return {@code text} with every occurrence of the user-info of {@code url} (and of its sentinels' password)
     *     replaced by {@code ***}, then passed through {@link #redactAll}; {@code null} for {@code null}
     * @throws NullPointerException if {@code url} is {@code null}
     */
    public static String redactIn(String text, String url) {
        if (text == null) {
            return null;
        }
        String userInfo = userInfo(url);
        String cleaned = userInfo.isEmpty() ? text : text.replace(userInfo, "***");
        Matcher secret = SENTINEL_SECRET.matcher(url);
        while (secret.find()) {
            String value = url.substring(secret.end(1), secret.end());
            if (!value.isEmpty()) {
                cleaned = cleaned.replace(value, "***");
            }
        }
        return redactAll(cleaned);
    }

    /**
     * Hides the credentials of every Redis URL ({@link #SCHEMES}, any case) found in free text, such as an error
     * message that echoes a misplaced argument. A URL is recognised by its scheme; its user-info ends at the
     * first '@' and holds no blank, '/', quote or bracket. A {@value #SENTINEL_PASSWORD} parameter's value is hidden
     * wherever it appears.
     *
     * @param text the text to clean, possibly {@code null}
     * @return the text with each such user-info and sentinel password replaced by {@code ***}; {@code null} for
     *     {@code null}
     */
    public static String redactAll(String text) {
        if (text == null) {
            return null;
        }
        return SENTINEL_SECRET.matcher(URL_WITH_USER_INFO.matcher(text).replaceAll("$1***@")).replaceAll("$1***");
    }

    /** @return the text between the scheme (with its slashes) and the last '@', or "" when there is no '@' */
    private static String userInfo(String url) {
        int at = url.lastIndexOf('@');
        int start = schemeEnd(url);
        return at < start ? "" : url.substring(start, at);
    }

    /** @return the index after a leading {@code scheme:} and any slashes that follow it, else 0 */
    private static int schemeEnd(String url) {
        Matcher m = SCHEME.matcher(url);
        return m.lookingAt() ? m.end() : 0;
    }
}
