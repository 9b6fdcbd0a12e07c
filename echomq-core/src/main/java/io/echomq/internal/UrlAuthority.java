package io.echomq.internal;

import io.echomq.RedisUrl;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * The pieces every Redis URL form shares: the check of one {@code [user[:password]@]host[:port]} and the decoding of
 * a percent-encoded part. {@code RedisUrls} and {@code SentinelUrls} parse their forms with these.
 */
final class UrlAuthority {
    private UrlAuthority() {
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
