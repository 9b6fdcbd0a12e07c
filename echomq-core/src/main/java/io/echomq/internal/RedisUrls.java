package io.echomq.internal;

import io.lettuce.core.RedisURI;
import java.util.Locale;

/** Parses and checks Redis URLs, with errors that say what is wrong and never echo a password. */
public final class RedisUrls {
    private RedisUrls() {
    }

    /**
     * Parses {@code redis://[user:password@]host[:port][/db]}, {@code rediss://…} (TLS) or
     * {@code redis-socket:///path}.
     *
     * @throws IllegalArgumentException if the URL is null, blank or malformed
     */
    public static RedisURI parse(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("Redis URL must not be empty; expected redis://host[:port][/db]");
        }
        String trimmed = url.trim();
        String lower = trimmed.toLowerCase(Locale.ROOT);
        if (!(lower.startsWith("redis://") || lower.startsWith("rediss://") || lower.startsWith("redis-socket://"))) {
            throw new IllegalArgumentException("Malformed Redis URL '" + redact(trimmed)
                    + "': the scheme must be redis://, rediss:// or redis-socket://");
        }
        if (!lower.startsWith("redis-socket://")) {
            checkAuthority(trimmed);
        }
        RedisURI uri;
        try {
            uri = RedisURI.create(trimmed);
        } catch (RuntimeException e) {
            // Lettuce's message quotes the whole URL, password included: hide the user-info there too
            String why = String.valueOf(e.getMessage());
            String userInfo = userInfo(trimmed);
            if (!userInfo.isEmpty()) {
                why = why.replace(userInfo, "***");
            }
            throw new IllegalArgumentException("Malformed Redis URL '" + redact(trimmed) + "': " + why);
        }
        return uri;
    }

    /** Checks {@code [user[:password]@]host[:port]} by hand: Lettuce accepts some malformed ones. */
    private static void checkAuthority(String url) {
        int start = url.indexOf("://") + 3;
        int end = start;
        while (end < url.length() && "/?#".indexOf(url.charAt(end)) < 0) {
            end++;
        }
        String authority = url.substring(start, end);
        int at = authority.lastIndexOf('@');
        String hostPort = at >= 0 ? authority.substring(at + 1) : authority;
        String host = hostPort;
        String port = null;
        if (hostPort.startsWith("[")) {
            int close = hostPort.indexOf(']');
            if (close < 0) {
                throw malformed(url, "unclosed '[' in an IPv6 host");
            }
            host = hostPort.substring(1, close);
            String rest = hostPort.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    throw malformed(url, "unexpected text after the IPv6 host");
                }
                port = rest.substring(1);
            }
        } else {
            int colon = hostPort.lastIndexOf(':');
            if (colon >= 0) {
                host = hostPort.substring(0, colon);
                port = hostPort.substring(colon + 1);
            }
        }
        if (host.isBlank()) {
            throw malformed(url, "no host");
        }
        if (port != null) {
            if (!port.matches("\\d{1,5}")) {
                throw malformed(url, "port '" + port + "' is not a number in 1..65535");
            }
            int p = Integer.parseInt(port);
            if (p < 1 || p > 65535) {
                throw malformed(url, "port " + p + " is outside 1..65535");
            }
        }
    }

    private static IllegalArgumentException malformed(String url, String why) {
        return new IllegalArgumentException("Malformed Redis URL '" + redact(url) + "': " + why
                + "; expected redis://[user:password@]host[:port][/db]");
    }

    /**
     * @return the URL with any user-info (user and password: everything between the scheme and the
     *     last '@') replaced by {@code ***}; also for malformed URLs such as {@code redis:/:pw@h} or
     *     {@code user:pw@h}, which must never be echoed either
     */
    public static String redact(String url) {
        String userInfo = userInfo(url);
        if (userInfo.isEmpty()) {
            return url;
        }
        int start = schemeEnd(url);
        return url.substring(0, start) + "***" + url.substring(start + userInfo.length());
    }

    /** @return the text between the scheme (with its slashes) and the last '@', or "" when there is no '@' */
    private static String userInfo(String url) {
        int at = url.lastIndexOf('@');
        int start = schemeEnd(url);
        return at < start ? "" : url.substring(start, at);
    }

    /** @return the index after a leading {@code scheme:} and any slashes that follow it, else 0 */
    private static int schemeEnd(String url) {
        java.util.regex.Matcher m = SCHEME.matcher(url);
        return m.lookingAt() ? m.end() : 0;
    }

    private static final java.util.regex.Pattern SCHEME = java.util.regex.Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*:/*");
}
