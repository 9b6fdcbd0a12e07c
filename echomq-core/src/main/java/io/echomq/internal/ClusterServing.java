package io.echomq.internal;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Tells whether a Redis Cluster serves every slot to this client: the cluster is up for us when each of the 16384
 * slots is owned by a master that is not marked failed and that our command connection reaches now.
 *
 * <ol>
 *   <li>Reads the topology afresh ({@code refreshPartitionsAsync}), so that a replica promoted in place of a dead
 *       master is seen as soon as the cluster has promoted it, and the client routes to it from then on.</li>
 *   <li>Counts the slots of every master not flagged {@code fail} or {@code fail?} whose link from the engine's
 *       command connection is open (asking for a link opens one to a master not met before).</li>
 * </ol>
 *
 * <p>A master that is gone for good (killed, still listed as failed) owns no slots once its replica is promoted,
 * so it no longer counts: the cluster serves without it. Never blocks: every step is asynchronous.
 */
final class ClusterServing {
    /** Number of hash slots in every Redis Cluster. */
    static final int SLOTS = 16384;

    private final RedisClusterClient client;
    private final StatefulRedisClusterConnection<String, String> connection;

    /** @param connection the engine's command connection, whose links to the masters are the ones judged */
    ClusterServing(RedisClusterClient client, StatefulConnection<String, String> connection) {
        this.client = client;
        this.connection = (StatefulRedisClusterConnection<String, String>) connection;
    }

    /** @return completes with whether every slot is served now; false when the topology cannot be read */
    CompletionStage<Boolean> check() {
        return client.refreshPartitionsAsync().thenCompose(refreshed -> served()).exceptionally(unreadable -> false);
    }

    private CompletionStage<Boolean> served() {
        List<CompletableFuture<Integer>> owners = new ArrayList<>();
        for (RedisClusterNode node : client.getPartitions()) {
            if (!node.is(RedisClusterNode.NodeFlag.UPSTREAM) || node.is(RedisClusterNode.NodeFlag.FAIL)
                    || node.is(RedisClusterNode.NodeFlag.EVENTUAL_FAIL) || node.hasNoSlots()) {
                continue;
            }
            int[] slots = {0};
            node.forEachSlot(slot -> slots[0]++);
            owners.add(connection.getConnectionAsync(node.getUri().getHost(), node.getUri().getPort())
                    .handle((link, failed) -> failed == null && link.isOpen() ? slots[0] : 0));
        }
        return CompletableFuture.allOf(owners.toArray(CompletableFuture[]::new)).thenApply(all -> {
            int served = 0;
            for (CompletableFuture<Integer> owner : owners) {
                served += owner.join();
            }
            return served >= SLOTS;
        });
    }
}
