package io.echomq.internal;

import io.echomq.RedisCommandException;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * What the engine's server is and can do.
 *
 * <ol>
 *   <li>Reads {@code INFO server} and probes {@code COMMAND INFO spublish} once, on first call, and
 *       keeps the {@link ServerFeatures}.</li>
 *   <li>Describes the server for people, with the number of masters on a cluster.</li>
 * </ol>
 *
 * <p>Together because the description is made from the features read here, and both are asked of
 * the server, never inferred from a version number (Valkey 8 reports {@code redis_version} 7.2.4).
 */
final class FeatureProbe {
    private final Supplier<RedisClusterAsyncCommands<String, String>> commands;
    private final long commandTimeoutMs;
    private final RedisClusterClient clusterClient;   // null for a single server
    private volatile ServerFeatures features;

    /** @param clusterClient the cluster's client, for its masters; null for a single server */
    FeatureProbe(Supplier<RedisClusterAsyncCommands<String, String>> commands, long commandTimeoutMs,
                 RedisClusterClient clusterClient) {
        this.commands = commands;
        this.commandTimeoutMs = commandTimeoutMs;
        this.clusterClient = clusterClient;
    }

    /** See {@link RedisEngine#features()}. */
    ServerFeatures features() {
        ServerFeatures f = features;
        if (f == null) {
            try {
                String info = commands.get().info("server").get(commandTimeoutMs, TimeUnit.MILLISECONDS);
                // Probed, not inferred from the version: Valkey 8 reports redis_version 7.2.4.
                List<Object> spublish = commands.get().commandInfo(ServerFeatures.SHARDED_PUBLISH)
                        .get(commandTimeoutMs, TimeUnit.MILLISECONDS);
                boolean hasSpublish = spublish != null && !spublish.isEmpty() && spublish.get(0) != null;
                f = ServerFeatures.of(info, hasSpublish);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RedisCommandException("INFO server", null, e);
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                throw new RedisCommandException("INFO server", null, RedisFutures.unwrap(e));
            }
            features = f;
        }
        return f;
    }

    /** See {@link RedisEngine#describe()}. */
    String describe() {
        String single = features().describe();
        if (clusterClient == null) {
            return single;
        }
        long masters = clusterClient.getPartitions().stream()
                .filter(n -> n.is(RedisClusterNode.NodeFlag.UPSTREAM)).count();
        int space = single.indexOf(' ');
        return single.substring(0, space) + " Cluster" + single.substring(space).replace("(", "(" + masters + " masters, ");
    }
}
