package io.echomq.internal;

import io.echomq.RedisUrl;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Refuses a single-server URL ({@code redis://}, {@code rediss://}) that names a node of a Redis Cluster.
 *
 * <p>Duties:
 * <ul>
 *   <li>ask the server, once at connect, whether it runs in cluster mode ({@code INFO server}, field
 *       {@code redis_mode}, or Valkey's {@code server_mode}; the minimal ACL user may run {@code INFO});</li>
 *   <li>if it does, refuse with an {@link IllegalArgumentException} whose message names the
 *       {@code redis-cluster://} URL to use instead;</li>
 *   <li>read a connect that failed as that refusal when the server refused the handshake's {@code SELECT} of a
 *       database other than 0, as a cluster node does, whether the failure says so or not.</li>
 * </ul>
 * Why refuse rather than connect as a cluster: a {@code redis://} URL names one server (and a database,
 * which a cluster does not have). On a cluster node such a connection works for the keys whose slot that node
 * owns and fails with a raw {@code MOVED} for all others, so the same command succeeds for one name and fails
 * for the next. Widening it to the whole cluster behind the caller's back would change which servers the
 * client talks to; the fix is one word in the URL, and the message gives it. Checked at connect, so every name
 * gets the same answer, and a raw {@code MOVED} never reaches a user.
 *
 * <p>When the answer cannot be read (a user denied {@code INFO}, a timeout), nothing is refused: the check
 * only ever turns a certain cluster node into a clear error.
 */
final class ClusterNodeGuard {
    private ClusterNodeGuard() {
    }

    /**
     * @param commands the new connection's commands
     * @param uri the single-server URI it was opened with
     * @param redacted that URI as the user gave it, without credentials
     * @param timeoutMs how long to wait for {@code INFO server}
     * @throws IllegalArgumentException if the server is a cluster node
     */
    static void refuseClusterNode(RedisClusterAsyncCommands<String, String> commands, RedisURI uri, String redacted,
                                  long timeoutMs) {
        String info;
        try {
            info = commands.info("server").get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (Exception unknown) {
            return;   // cannot tell: let the first command speak for itself
        }
        if (info != null && isClusterMode(info)) {
            throw refusal(uri, redacted);
        }
    }

    /**
     * A connect that failed because the server is a cluster node: the handshake's {@code SELECT} of a database
     * other than 0 is refused there ("SELECT is not allowed in cluster mode").
     *
     * @return the refusal to throw instead of {@code failure}, or {@code null} when {@code failure} is another one
     */
    static IllegalArgumentException refusalFor(Throwable failure, RedisURI uri, String redacted) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (String.valueOf(t.getMessage()).contains("not allowed in cluster mode")) {
                return refusal(uri, redacted);
            }
        }
        return null;
    }

    /**
     * A connect to a database other than 0 that failed without saying why: asks the server over a connection that
     * selects no database whether it is a cluster node. The handshake's refused {@code SELECT} does not always
     * reach the caller as such: the client may close the channel first and report only that it could not connect.
     *
     * @param client the client whose connect failed; still open
     * @param timeoutMs how long to wait for the connection and for {@code INFO server}
     * @return the refusal to throw, or {@code null} when the URL names database 0, the server is not a cluster
     *     node, or it cannot be asked
     */
    static IllegalArgumentException askWithoutSelect(RedisClient client, RedisURI uri, String redacted,
                                                     long timeoutMs) {
        if (uri.getDatabase() == 0) {
            return null;   // no SELECT in the handshake: the failure was not the cluster's refusal
        }
        RedisURI noSelect = RedisURI.builder(uri).withDatabase(0).build();
        noSelect.setLibraryName("");
        noSelect.setLibraryVersion("");
        noSelect.setTimeout(Duration.ofMillis(timeoutMs));
        try (StatefulRedisConnection<String, String> c = client.connect(noSelect)) {
            refuseClusterNode(c.async(), uri, redacted, timeoutMs);
            return null;
        } catch (IllegalArgumentException clusterNode) {
            return clusterNode;
        } catch (RuntimeException unreachable) {
            return null;   // cannot tell: the connect's own failure stands
        }
    }

    private static IllegalArgumentException refusal(RedisURI uri, String redacted) {
        return new IllegalArgumentException("Redis URL '" + redacted + "' names a node of a Redis Cluster; use "
                + clusterUrl(uri) + " instead (with the same user and password, if any; list more nodes after "
                + "commas, so that one node being down does not hide the others)");
    }

    /**
     * @return whether {@code INFO server} text says the server runs as a cluster node: Redis writes
     *     {@code redis_mode:cluster}, Valkey 8 {@code server_mode:cluster}
     */
    static boolean isClusterMode(String infoServer) {
        for (String line : infoServer.split("\r?\n")) {
            for (String field : MODE_FIELDS) {
                if (line.startsWith(field)) {
                    return line.substring(field.length()).trim().equals("cluster");
                }
            }
        }
        return false;
    }

    /** The fields that name the server's mode, by product. */
    private static final String[] MODE_FIELDS = {"redis_mode:", "server_mode:"};

    /** @return the cluster form of {@code uri}: same host, port and TLS; the message asks for the same credentials */
    static String clusterUrl(RedisURI uri) {
        if (uri.getSocket() != null) {
            return RedisUrl.CLUSTER + "HOST:PORT of any node (a cluster is reached over TCP)";
        }
        String host = uri.getHost();
        if (host != null && host.indexOf(':') >= 0 && !host.startsWith("[")) {
            host = "[" + host + "]";
        }
        return (uri.isSsl() ? RedisUrl.CLUSTER_TLS : RedisUrl.CLUSTER) + host + ":" + uri.getPort();
    }
}
