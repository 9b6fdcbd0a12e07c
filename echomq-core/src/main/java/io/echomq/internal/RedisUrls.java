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
            throw new IllegalArgumentException("Malformed Redis URL '" + redact(trimmed) + "': " + e.getMessage(), e);
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

    /** @return the URL with any user-info (user and password) replaced by {@code ***} */
    public static String redact(String url) {
        int scheme = url.indexOf("://");
        int at = url.lastIndexOf('@');
        if (scheme < 0 || at < scheme) {
            return url;
        }
        return url.substring(0, scheme + 3) + "***" + url.substring(at);
    }
}
