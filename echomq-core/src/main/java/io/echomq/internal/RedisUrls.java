package io.echomq.internal;

import io.echomq.RedisUrl;
import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Parses and checks Redis URLs, with errors that say what is wrong and never echo a password. The schemes and
 * the redaction rule are the public {@link RedisUrl}'s; this class only parses.
 */
public final class RedisUrls {
    /** Scheme of a Redis Cluster URL: {@code redis-cluster://host:port[,host:port…]}. */
    public static final String CLUSTER = RedisUrl.CLUSTER;
    /** Scheme of a Redis Cluster URL over TLS. */
    public static final String CLUSTER_TLS = RedisUrl.CLUSTER_TLS;

    private RedisUrls() {
    }

    /** @return whether {@code url} names a Redis Cluster ({@code redis-cluster://} or {@code rediss-cluster://}) */
    public static boolean isCluster(String url) {
        return RedisUrl.isCluster(url);
    }

    /** @return whether {@code url} names a master watched by Sentinel ({@code redis-sentinel://} or {@code rediss-sentinel://}) */
    public static boolean isSentinel(String url) {
        return RedisUrl.isSentinel(url);
    }

    /**
     * Parses a URL of any form: a single server ({@link #parse}), a cluster ({@link #parseCluster}) or a master
     * watched by Sentinel ({@link SentinelUrls#parse}).
     *
     * @return one URI for a single server or a Sentinel master; the seed nodes for a cluster
     * @throws IllegalArgumentException if the URL is null, blank or malformed
     */
    public static List<RedisURI> parseAny(String url) {
        if (isSentinel(url)) {
            return List.of(SentinelUrls.parse(url));
        }
        return isCluster(url) ? parseCluster(url) : List.of(parse(url));
    }

    /**
     * Parses {@code redis-cluster://[user:password@]host[:port][,host[:port]…]} (or {@code rediss-cluster://} for
     * TLS) into its seed nodes. The credentials apply to every node; the port defaults to 6379. A cluster has only
     * database 0, so a path other than empty or {@code /0} is refused, and so is a query.
     *
     * @return the seed nodes, in the order given, at least one
     * @throws IllegalArgumentException if the URL is null, blank, not a cluster URL or malformed
     */
    public static List<RedisURI> parseCluster(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("Redis URL must not be empty; expected " + CLUSTER + "host:port[,host:port]");
        }
        String trimmed = url.trim();
        if (!isCluster(trimmed)) {
            throw clusterMalformed(trimmed, "the scheme must be redis-cluster:// or rediss-cluster://");
        }
        boolean tls = trimmed.toLowerCase(Locale.ROOT).startsWith(CLUSTER_TLS);
        String rest = trimmed.substring(tls ? CLUSTER_TLS.length() : CLUSTER.length());
        int end = 0;
        while (end < rest.length() && "/?#".indexOf(rest.charAt(end)) < 0) {
            end++;
        }
        String tail = rest.substring(end);
        if (!(tail.isEmpty() || tail.equals("/") || tail.equals("/0"))) {
            throw clusterMalformed(trimmed, "a cluster has only database 0 and takes no query ('" + tail + "')");
        }
        String authority = rest.substring(0, end);
        UrlAuthority.Credentials credentials = UrlAuthority.Credentials.of(authority);
        authority = credentials.hosts();
        if (authority.isEmpty()) {
            throw clusterMalformed(trimmed, "no host");
        }
        List<RedisURI> seeds = new ArrayList<>();
        for (String hostPort : authority.split(",", -1)) {
            if (hostPort.isBlank()) {
                throw clusterMalformed(trimmed, "an empty host between commas");
            }
            String problem = UrlAuthority.hostProblem(hostPort);
            if (problem != null) {
                throw clusterMalformed(trimmed, "bad node '" + hostPort + "': " + problem);
            }
            String single = "redis://" + hostPort;
            RedisURI node;
            try {
                node = RedisURI.create(single);
            } catch (RuntimeException e) {
                throw clusterMalformed(trimmed, "bad node '" + hostPort + "': " + e.getMessage());
            }
            node.setSsl(tls);
            credentials.applyTo(node);
            seeds.add(node);
        }
        return seeds;
    }

    private static IllegalArgumentException clusterMalformed(String url, String why) {
        return new IllegalArgumentException("Malformed Redis Cluster URL '" + redact(url) + "': " + why
                + "; expected redis-cluster://[user:password@]host[:port][,host[:port]...]");
    }

    /**
     * Parses {@code redis://[user:password@]host[:port][/db]}, {@code rediss://…} (TLS) or
     * {@code redis-socket:///path}: one server. A cluster URL is refused here; see {@link #parseAny}.
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
            UrlAuthority.check(trimmed);
        }
        RedisURI uri;
        try {
            uri = RedisURI.create(trimmed);
        } catch (RuntimeException e) {
            // Lettuce's message quotes the whole URL, password included: hide the user-info there too
            String why = RedisUrl.redactIn(String.valueOf(e.getMessage()), trimmed);
            throw new IllegalArgumentException("Malformed Redis URL '" + redact(trimmed) + "': " + why);
        }
        return uri;
    }

    /** @return {@link RedisUrl#redact}: the URL with its user-info replaced by {@code ***} */
    public static String redact(String url) {
        return RedisUrl.redact(url);
    }
}
