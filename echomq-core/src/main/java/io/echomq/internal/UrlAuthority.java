package io.echomq.internal;

import io.echomq.RedisUrl;
import io.lettuce.core.RedisURI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * The pieces every Redis URL form shares: the check of one {@code [user[:password]@]host[:port]} and the decoding of
 * a percent-encoded part. {@code RedisUrls} and {@code SentinelUrls} parse their forms with these.
 */
final class UrlAuthority {
    private UrlAuthority() {
    }

    /**
     * The authority of a multi-host URL, {@code [user[:password]@]host[:port][,host[:port]…]}, split at its
     * last {@code @}: the decoded credentials (null when absent) and the hosts.
     */
    record Credentials(String user, String password, String hosts) {
        /** @return {@code authority} split into its decoded credentials and its hosts */
        static Credentials of(String authority) {
            int at = authority.lastIndexOf('@');
            if (at < 0) {
                return new Credentials(null, null, authority);
            }
            String info = authority.substring(0, at);
            int colon = info.indexOf(':');
            String hosts = authority.substring(at + 1);
            return colon >= 0
                    ? new Credentials(decode(info.substring(0, colon)), decode(info.substring(colon + 1)), hosts)
                    : new Credentials(null, decode(info), hosts);
        }

        /** Sets these credentials on {@code uri}, a user only when one is given; nothing without a password. */
        void applyTo(RedisURI uri) {
            if (password == null) {
                return;
            }
            if (user != null && !user.isEmpty()) {
                uri.setAuthentication(user, password.toCharArray());
            } else {
                uri.setAuthentication(password.toCharArray());
            }
        }
    }

    /**
     * @return why {@code hostPort}, one {@code host[:port]} of a multi-host URL, is malformed (the reason alone,
     *     without the URL around it), or null when it is well formed
     */
    static String hostProblem(String hostPort) {
        try {
            check("redis://" + hostPort);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage().replaceFirst("^.*': ", "").replaceFirst("; expected.*$", "");
        }
    }

    /** @return {@code s} percent-decoded as UTF-8 */
    static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /** Checks {@code [user[:password]@]host[:port]} by hand: Lettuce accepts some malformed ones. */
    static void check(String url) {
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
        return new IllegalArgumentException("Malformed Redis URL '" + RedisUrl.redact(url) + "': " + why
                + "; expected redis://[user:password@]host[:port][/db]");
    }

}
