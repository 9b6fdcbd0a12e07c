package io.echomq.server;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A real local Redis Cluster for tests: {@code N} masters (3 by default), optionally with replicas, each a
 * {@link RedisServer} started from the same binary with {@code cluster-enabled yes} and its own {@code nodes.conf}
 * in its own temporary directory.
 *
 * <ol>
 *   <li>Ports: each node needs its port and the cluster bus port (port + 10000) free on loopback; both are checked
 *       before the node starts, and a taken port is retried with another one.</li>
 *   <li>Forming: every master takes an equal share of the 16384 slots with {@code CLUSTER ADDSLOTS} (which works on
 *       Redis 6.2 and 7), gets its own config epoch, and meets the others with {@code CLUSTER MEET}; replicas meet
 *       and then {@code CLUSTER REPLICATE} their master.</li>
 *   <li>Ready: {@link #start()} returns once every node says {@code cluster_state:ok} and all nodes agree on who owns
 *       every slot.</li>
 *   <li>Resharding: {@link #migrateSlot(int, int, int)} moves one slot between masters the way {@code redis-cli
 *       --cluster reshard} does, so that clients see {@code ASK} and {@code MOVED} redirections.</li>
 * </ol>
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.start()) {
 *     connect(cluster.url());   // redis-cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3
 * }
 * }</pre>
 *
 * <p>{@link #close()} stops every node and deletes their directories. Not thread-safe except where a method says so.
 */
public final class RedisCluster implements AutoCloseable {

    /** Number of hash slots in every Redis Cluster. */
    public static final int SLOTS = 16384;

    /** The {@code cluster-node-timeout} of every node unless {@link Builder#nodeTimeout} says otherwise. */
    private static final long DEFAULT_NODE_TIMEOUT_MILLIS = 5_000;

    private final List<RedisServer> masters;
    private final List<RedisServer> replicas;
    private final List<String> masterIds;
    private boolean closed;

    private RedisCluster(List<RedisServer> masters, List<RedisServer> replicas, List<String> masterIds) {
        this.masters = List.copyOf(masters);
        this.replicas = List.copyOf(replicas);
        this.masterIds = List.copyOf(masterIds);
    }

    /**
     * Starts three masters without replicas; same as {@code builder().start()}.
     *
     * @return a formed cluster whose every node reports {@code cluster_state:ok}
     * @throws IllegalStateException if a node cannot start or the cluster does not form within 30 seconds
     */
    public static RedisCluster start() {
        return builder().start();
    }

    /**
     * Returns a builder for a cluster with a custom size or binary.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns a cluster URL naming every master as a seed, for EchoMQ clients.
     *
     * @return {@code "redis-cluster://127.0.0.1:<p1>,127.0.0.1:<p2>,…"}
     */
    public String url() {
        return "redis-cluster://" + masters.stream().map(m -> m.host() + ":" + m.port())
                .collect(Collectors.joining(","));
    }

    /**
     * Returns the masters in the order they were started; index {@code i} is the {@code i} of
     * {@link #migrateSlot(int, int, int)} and {@link #ownerOf(int)}.
     *
     * @return an immutable list
     */
    public List<RedisServer> masters() {
        return masters;
    }

    /**
     * Returns the replicas, those of master 0 first.
     *
     * @return an immutable list, empty unless the builder asked for replicas
     */
    public List<RedisServer> replicas() {
        return replicas;
    }

    /**
     * Returns the server version of the nodes (all run the same binary), as {@link RedisServer#version()}.
     *
     * @return for example {@code "7.0.15"}, or {@code "8.0.1"} on Valkey
     */
    public String version() {
        return masters.get(0).version();
    }

    /**
     * Returns which server the nodes are, as {@link RedisServer#product()}.
     *
     * @return {@code "Redis"} or {@code "Valkey"}
     */
    public String product() {
        return masters.get(0).product();
    }

    /**
     * Returns the cluster node id of a master.
     *
     * @param master index into {@link #masters()}
     * @return the 40-character node id
     * @throws IndexOutOfBoundsException if there is no such master
     */
    public String nodeId(int master) {
        return masterIds.get(master);
    }

    /**
     * Opens a {@link RawRedis} that routes every command by slot to the master that owns it, following
     * {@code MOVED} and {@code ASK}; keyless cluster-wide commands ({@code FLUSHALL}, {@code DBSIZE}, {@code KEYS},
     * {@code SCRIPT FLUSH}, {@code CONFIG SET}/{@code RESETSTAT}) go to every master. Close it when done.
     *
     * @return a routing connection
     * @throws java.io.UncheckedIOException if no master can be reached
     */
    public RawRedis raw() {
        return RawRedis.routing(new ClusterRouter(masters.get(0).host(), masters.get(0).port()));
    }

    /**
     * Computes the hash slot of a key as Redis Cluster does: CRC16 (XMODEM) of the hash tag if the key has a
     * non-empty {@code {…}} section, else of the whole key, modulo 16384.
     *
     * @param key the key
     * @return the slot, 0..16383
     * @throws NullPointerException if {@code key} is {@code null}
     */
    public static int slot(String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        int from = 0;
        int to = k.length;
        for (int open = 0; open < k.length; open++) {
            if (k[open] == '{') {
                for (int close = open + 1; close < k.length; close++) {
                    if (k[close] == '}') {
                        if (close > open + 1) {
                            from = open + 1;
                            to = close;
                        }
                        break;
                    }
                }
                break;
            }
        }
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (k[i] & 0xff) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xffff;
        }
        return crc & (SLOTS - 1);
    }

    /**
     * Tells which master owns a slot now, as master 0 sees it.
     *
     * @param slot 0..16383
     * @return the index into {@link #masters()}
     * @throws IllegalArgumentException if the slot is out of range
     * @throws IllegalStateException if no master owns it
     */
    public int ownerOf(int slot) {
        checkSlot(slot);
        try (RawRedis raw = connect(masters.get(0))) {
            for (Object o : (List<?>) raw.call("CLUSTER", "SLOTS")) {
                List<?> range = (List<?>) o;
                if ((Long) range.get(0) <= slot && slot <= (Long) range.get(1)) {
                    String id = (String) ((List<?>) range.get(2)).get(2);
                    int i = masterIds.indexOf(id);
                    if (i >= 0) {
                        return i;
                    }
                }
            }
        }
        throw new IllegalStateException("no master owns slot " + slot);
    }

    /**
     * Moves a slot and its keys from one master to another, as {@code redis-cli --cluster reshard} does, in batches
     * of 100 keys. See {@link #migrateSlot(int, int, int, int, Runnable)}.
     *
     * @return how many keys were moved
     */
    public int migrateSlot(int slot, int from, int to) {
        return migrateSlot(slot, from, to, 100, () -> { });
    }

    /**
     * Moves a slot and its keys from master {@code from} to master {@code to}:
     * {@code SETSLOT IMPORTING} on the target, {@code SETSLOT MIGRATING} on the source, then
     * {@code CLUSTER GETKEYSINSLOT} and {@code MIGRATE … REPLACE KEYS} in batches until the slot is empty on the
     * source, and finally {@code SETSLOT NODE} on the target, the source and every other master. Between
     * {@code MIGRATING} and {@code NODE}, clients get {@code ASK} (and {@code TRYAGAIN} for multi-key commands whose
     * keys are split); afterwards {@code MOVED}.
     *
     * @param slot       0..16383
     * @param from       index of the master that owns the slot
     * @param to         index of another master
     * @param batch      keys per {@code MIGRATE}, at least 1
     * @param afterBatch called after each batch (a test can let clients run in the half-migrated state)
     * @return how many keys were moved
     * @throws IllegalArgumentException if an argument is out of range, {@code from == to}, or {@code from} does not
     *         own the slot
     * @throws RawRedis.ErrorReply if a node refuses a step
     */
    public int migrateSlot(int slot, int from, int to, int batch, Runnable afterBatch) {
        checkSlot(slot);
        Objects.checkIndex(from, masters.size());
        Objects.checkIndex(to, masters.size());
        Objects.requireNonNull(afterBatch, "afterBatch");
        if (from == to || batch < 1) {
            throw new IllegalArgumentException("need two different masters and a batch of at least 1 key");
        }
        if (ownerOf(slot) != from) {
            throw new IllegalArgumentException("master " + from + " does not own slot " + slot);
        }
        RedisServer target = masters.get(to);
        String s = Integer.toString(slot);
        int moved = 0;
        try (RawRedis src = connect(masters.get(from)); RawRedis dst = connect(target)) {
            dst.call("CLUSTER", "SETSLOT", s, "IMPORTING", masterIds.get(from));
            src.call("CLUSTER", "SETSLOT", s, "MIGRATING", masterIds.get(to));
            while (true) {
                List<?> keys = (List<?>) src.call("CLUSTER", "GETKEYSINSLOT", s, Integer.toString(batch));
                if (keys.isEmpty()) {
                    break;
                }
                List<String> args = new ArrayList<>(List.of("MIGRATE", target.host(), Integer.toString(target.port()),
                        "", "0", "10000", "REPLACE", "KEYS"));
                keys.forEach(k -> args.add((String) k));
                src.call(args.toArray(String[]::new));
                moved += keys.size();
                afterBatch.run();
            }
            dst.call("CLUSTER", "SETSLOT", s, "NODE", masterIds.get(to));
            src.call("CLUSTER", "SETSLOT", s, "NODE", masterIds.get(to));
            for (int i = 0; i < masters.size(); i++) {
                if (i != from && i != to) {
                    try (RawRedis other = connect(masters.get(i))) {
                        other.call("CLUSTER", "SETSLOT", s, "NODE", masterIds.get(to));
                    }
                }
            }
        }
        return moved;
    }

    /**
     * Stops every node (replicas first) and deletes their directories. Idempotent; never throws.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        replicas.forEach(RedisServer::close);
        masters.forEach(RedisServer::close);
    }

    @Override
    public String toString() {
        return "RedisCluster[" + url() + ", " + product() + " " + version() + ", " + masters.size() + " masters, "
                + replicas.size() + " replicas]";
    }

    /** Builds and starts a {@link RedisCluster}. Not thread-safe. */
    public static final class Builder {
        private int masters = 3;
        private int replicasPerMaster;
        private long nodeTimeoutMillis = DEFAULT_NODE_TIMEOUT_MILLIS;
        private Path binary;

        private Builder() {
        }

        /**
         * Sets the number of masters.
         *
         * @param n 1..16, default 3
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder masters(int n) {
            if (n < 1 || n > 16) {
                throw new IllegalArgumentException("masters must be in 1..16, was " + n);
            }
            this.masters = n;
            return this;
        }

        /**
         * Sets the number of replicas of each master.
         *
         * @param n 0..2, default 0
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder replicasPerMaster(int n) {
            if (n < 0 || n > 2) {
                throw new IllegalArgumentException("replicasPerMaster must be in 0..2, was " + n);
            }
            this.replicasPerMaster = n;
            return this;
        }

        /**
         * Sets every node's {@code cluster-node-timeout}: how long a master may be unreachable before the others
         * mark it failed and its replica (if any) is promoted in its place. A small value (2 s, say) lets a test
         * see an automatic failover soon after it kills a master.
         *
         * @param timeout at least 100 ms, default 5 s
         * @return this builder
         * @throws IllegalArgumentException if shorter than 100 ms
         */
        public Builder nodeTimeout(java.time.Duration timeout) {
            if (timeout.toMillis() < 100) {
                throw new IllegalArgumentException("nodeTimeout must be at least 100 ms, was " + timeout);
            }
            this.nodeTimeoutMillis = timeout.toMillis();
            return this;
        }

        /**
         * Uses this executable instead of {@link RedisBinary#resolve()}.
         *
         * @param binary a {@code redis-server} executable
         * @return this builder
         * @throws NullPointerException if {@code binary} is {@code null}
         */
        public Builder binary(Path binary) {
            this.binary = Objects.requireNonNull(binary, "binary");
            return this;
        }

        /**
         * Starts the nodes and forms the cluster.
         *
         * @return the formed cluster
         * @throws IllegalStateException if a node cannot start or the cluster does not form within 30 seconds; every
         *         node started so far is stopped first
         */
        public RedisCluster start() {
            Path bin = binary != null ? binary : RedisBinary.resolve();
            List<RedisServer> ms = new ArrayList<>();
            List<RedisServer> rs = new ArrayList<>();
            try {
                for (int i = 0; i < masters; i++) {
                    ms.add(ClusterFormation.startNode(bin, nodeTimeoutMillis));
                }
                for (int i = 0; i < masters * replicasPerMaster; i++) {
                    rs.add(ClusterFormation.startNode(bin, nodeTimeoutMillis));
                }
                List<String> ids = ClusterFormation.form(ms, rs, replicasPerMaster);
                return new RedisCluster(ms, rs, ids);
            } catch (RuntimeException e) {
                rs.forEach(RedisServer::close);
                ms.forEach(RedisServer::close);
                throw e;
            }
        }
    }

    private static RawRedis connect(RedisServer node) {
        return RawRedis.connect(node.host(), node.port());
    }

    private static void checkSlot(int slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IllegalArgumentException("slot must be in 0..16383, was " + slot);
        }
    }
}
