package io.echomq.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Starts the nodes of a {@link RedisCluster} and forms them into one cluster. Its duties, kept
 * together because each step waits on the one before:
 * <ul>
 *   <li>start a node on a port whose cluster bus port (port + 10000) is free too, retrying
 *       another pair when one was taken meanwhile;</li>
 *   <li>give every master an equal share of the slots ({@code CLUSTER ADDSLOTS}, which Redis 6.2
 *       and 7 both have) and its own config epoch, and let every node meet the first;</li>
 *   <li>wait until every node says {@code cluster_state:ok}, knows every node and agrees on the
 *       owner of every slot, then attach the replicas and wait for their first sync.</li>
 * </ul>
 */
final class ClusterFormation {
    private static final long FORM_TIMEOUT_MILLIS = 30_000;
    private static final int PORT_ATTEMPTS = 10;
    private static final int BUS_OFFSET = 10_000;

    private ClusterFormation() {
    }

    static RedisServer startNode(Path binary, long nodeTimeoutMillis) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
            int port = freePortPair();
            try {
                return RedisServer.builder().binary(binary).port(port)
                        .config("cluster-enabled", "yes")
                        .config("cluster-config-file", "nodes.conf")
                        .config("cluster-node-timeout", Long.toString(nodeTimeoutMillis))
                        .start();
            } catch (IllegalStateException e) {
                last = e;   // the port or its bus port was taken meanwhile; try another pair
            }
        }
        throw new IllegalStateException("could not start a cluster node after " + PORT_ATTEMPTS + " attempts", last);
    }

    /** A port whose bus port (port + 10000) is free too. */
    private static int freePortPair() {
        for (int i = 0; i < 200; i++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 40_000);
            if (free(port) && free(port + BUS_OFFSET)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port pair (p, p+10000) found on 127.0.0.1");
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static List<String> form(List<RedisServer> masters, List<RedisServer> replicas, int perMaster) {
        List<String> masterIds = new ArrayList<>();
        int n = masters.size();
        for (int i = 0; i < n; i++) {
            try (RawRedis raw = connect(masters.get(i))) {
                masterIds.add((String) raw.call("CLUSTER", "MYID"));
                int first = i * RedisCluster.SLOTS / n;
                int last = (i + 1) * RedisCluster.SLOTS / n - 1;
                List<String> args = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
                for (int s = first; s <= last; s++) {
                    args.add(Integer.toString(s));
                }
                raw.call(args.toArray(String[]::new));
                raw.call("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
            }
        }
        RedisServer seed = masters.get(0);
        List<RedisServer> all = new ArrayList<>(masters);
        all.addAll(replicas);
        for (RedisServer node : all.subList(1, all.size())) {
            try (RawRedis raw = connect(node)) {
                raw.call("CLUSTER", "MEET", seed.host(), Integer.toString(seed.port()));
            }
        }
        awaitFormed(all, masterIds, n, all.size());
        for (int r = 0; r < replicas.size(); r++) {
            try (RawRedis raw = connect(replicas.get(r))) {
                raw.call("CLUSTER", "REPLICATE", masterIds.get(r / perMaster));
            }
        }
        if (!replicas.isEmpty()) {
            awaitReplicas(masters, perMaster);
        }
        return masterIds;
    }

    /** Waits until every node is ok, knows every node, and all agree on the owner of every slot. */
    private static void awaitFormed(List<RedisServer> all, List<String> masterIds, int masters, int nodes) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FORM_TIMEOUT_MILLIS);
        String last = "";
        while (System.nanoTime() < deadline) {
            boolean ok = true;
            String agreed = null;
            for (RedisServer node : all) {
                try (RawRedis raw = connect(node)) {
                    String info = (String) raw.call("CLUSTER", "INFO");
                    String view = slotView(raw);
                    last = node.port() + ": " + info.replace("\r\n", " ") + " slots " + view;
                    if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + nodes)
                            || (agreed != null && !agreed.equals(view)) || view.isEmpty() || !coversAll(view)) {
                        ok = false;
                        break;
                    }
                    agreed = view;
                }
            }
            if (ok) {
                return;
            }
            pause();
        }
        throw new IllegalStateException("the cluster did not form within " + FORM_TIMEOUT_MILLIS + " ms; last view: "
                + last);
    }

    private static void awaitReplicas(List<RedisServer> masters, int perMaster) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FORM_TIMEOUT_MILLIS);
        while (System.nanoTime() < deadline) {
            boolean ok = true;
            for (RedisServer m : masters) {
                try (RawRedis raw = connect(m)) {
                    String info = (String) raw.call("INFO", "replication");
                    if (!info.contains("connected_slaves:" + perMaster) || info.contains("state=wait_bgsave")) {
                        ok = false;
                        break;
                    }
                }
            }
            if (ok) {
                return;
            }
            pause();
        }
        throw new IllegalStateException("the replicas did not attach within " + FORM_TIMEOUT_MILLIS + " ms");
    }

    /** "first-last:nodeId;…" sorted by first slot: one node's view of the slot map. */
    private static String slotView(RawRedis raw) {
        List<String> ranges = new ArrayList<>();
        for (Object o : (List<?>) raw.call("CLUSTER", "SLOTS")) {
            List<?> r = (List<?>) o;
            ranges.add(String.format("%05d-%05d:%s", (Long) r.get(0), (Long) r.get(1), ((List<?>) r.get(2)).get(2)));
        }
        ranges.sort(null);
        return String.join(";", ranges);
    }

    private static boolean coversAll(String view) {
        long covered = 0;
        for (String range : view.split(";")) {
            String[] fl = range.substring(0, range.indexOf(':')).split("-");
            covered += Long.parseLong(fl[1]) - Long.parseLong(fl[0]) + 1;
        }
        return covered == RedisCluster.SLOTS;
    }

    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(50);   // the cluster bus gossips on its own schedule; nothing to wait on
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while forming the cluster", e);
        }
    }

    private static RawRedis connect(RedisServer node) {
        return RawRedis.connect(node.host(), node.port());
    }
}
