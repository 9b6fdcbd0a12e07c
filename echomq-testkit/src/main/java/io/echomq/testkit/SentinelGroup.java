package io.echomq.testkit;

import io.echomq.server.RawRedis;
import io.echomq.server.RedisSentinel;
import io.echomq.server.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A master, one replica and three Redis Sentinels watching them (quorum 2), all real processes on loopback
 * ports picked free, for tests of the {@code redis-sentinel://} URL and of failovers.
 *
 * <ol>
 *   <li>{@link #start()} starts the master and its replica ({@code REPLICAOF}, first sync awaited), then the
 *       sentinels, and waits until every sentinel knows the replica and the two other sentinels: only then can a
 *       failover promote the replica and every sentinel follow it.</li>
 *   <li>{@link #url()} is the Sentinel URL that names the three sentinels and {@link #MASTER_NAME}.</li>
 *   <li>{@link #failover()} sends {@code SENTINEL FAILOVER}, then waits until every sentinel names the promoted
 *       replica and the old master has been turned into its replica, caught up.</li>
 * </ol>
 *
 * <p>A forced failover does not stop the old master first: until the sentinels turn it into a replica, the clients
 * still connected to it write there, and those writes are gone once it resyncs from the new master. That window is
 * the point of the failover tests. {@link #close()} stops everything and deletes the directories. Not thread-safe.
 */
public final class SentinelGroup implements AutoCloseable {
    /** The name the sentinels monitor the master by, after {@code #} in {@link #url()}. */
    public static final String MASTER_NAME = "echomq";

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(60);

    private final List<RedisServer> servers;
    private final List<RedisSentinel> sentinels;

    private SentinelGroup(List<RedisServer> servers, List<RedisSentinel> sentinels) {
        this.servers = servers;
        this.sentinels = sentinels;
    }

    /**
     * Starts the master, the replica and three sentinels, and waits (at most 30 seconds) until the sentinels know
     * each other and the replica.
     *
     * @return the running group; close it when done
     * @throws IllegalStateException if a process does not start, or the group is not ready in time
     */
    public static SentinelGroup start() {
        List<RedisServer> servers = new ArrayList<>();
        List<RedisSentinel> sentinels = new ArrayList<>();
        SentinelGroup group = new SentinelGroup(servers, sentinels);
        try {
            // Redis 7 syncs replicas diskless after a 5 s delay by default (to batch replicas): no need here.
            RedisServer master = RedisServer.builder().config("repl-diskless-sync-delay", "0").start();
            servers.add(master);
            RedisServer replica = RedisServer.builder().config("repl-diskless-sync-delay", "0").start();
            servers.add(replica);
            try (RawRedis r = RawRedis.connect(replica.host(), replica.port())) {
                r.call("REPLICAOF", master.host(), Integer.toString(master.port()));
            }
            group.await("the replica's first sync", READY_TIMEOUT, () -> linkedTo(replica, master.port()));
            for (int i = 0; i < 3; i++) {
                sentinels.add(RedisSentinel.start(MASTER_NAME, master, 2, Duration.ofMillis(1000),
                        Duration.ofSeconds(5)));
            }
            group.await("every sentinel to know the replica and the two others", READY_TIMEOUT, group::sentinelsReady);
            return group;
        } catch (RuntimeException e) {
            group.close();
            throw e;
        }
    }

    /**
     * @return {@code redis-sentinel://127.0.0.1:<p1>,127.0.0.1:<p2>,127.0.0.1:<p3>#echomq}
     */
    public String url() {
        StringBuilder url = new StringBuilder("redis-sentinel://");
        for (int i = 0; i < sentinels.size(); i++) {
            url.append(i == 0 ? "" : ",").append(sentinels.get(i).address());
        }
        return url.append('#').append(MASTER_NAME).toString();
    }

    /** @return the three sentinels */
    public List<RedisSentinel> sentinels() {
        return List.copyOf(sentinels);
    }

    /**
     * @return the server the first sentinel names as the master now
     * @throws IllegalStateException if it names neither of the two servers
     * @throws java.io.UncheckedIOException if the sentinel cannot be reached
     */
    public RedisServer master() {
        int port = masterPort(sentinels.get(0));
        return servers.stream().filter(s -> s.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("the sentinels name an unknown master on port " + port));
    }

    /** @return the server that is not {@link #master()} */
    public RedisServer replica() {
        RedisServer master = master();
        return servers.get(0) == master ? servers.get(1) : servers.get(0);
    }

    /**
     * Forces a failover ({@code SENTINEL FAILOVER echomq}, sent to the first sentinel) and waits (at most 60
     * seconds) until every sentinel names the old replica as the master, and the old master replicates from it with
     * its link up. The sentinels turn the old master into a replica only some seconds after the promotion (they
     * wait for it to report its role); clients connected to it keep writing there until then.
     *
     * @return the new master
     * @throws IllegalStateException if the failover is not complete in time
     * @throws RawRedis.ErrorReply if the sentinel refuses the failover (for example, no replica it can promote)
     */
    public RedisServer failover() {
        RedisServer oldMaster = master();
        RedisServer promoted = replica();
        try (RawRedis s = RawRedis.connect(sentinels.get(0).host(), sentinels.get(0).port())) {
            s.call("SENTINEL", "FAILOVER", MASTER_NAME);
        }
        await("every sentinel to name the promoted replica", FAILOVER_TIMEOUT,
                () -> sentinels.stream().allMatch(s -> masterPort(s) == promoted.port()));
        await("the old master to replicate from the new one", FAILOVER_TIMEOUT,
                () -> linkedTo(oldMaster, promoted.port()));
        return promoted;
    }

    /** Stops the sentinels, then the servers. Idempotent; never throws. */
    @Override
    public void close() {
        sentinels.forEach(RedisSentinel::close);
        servers.forEach(RedisServer::close);
    }

    @Override
    public String toString() {
        return "SentinelGroup[" + url() + ", servers " + servers.stream().map(RedisServer::url).toList() + "]";
    }

    private boolean sentinelsReady() {
        for (RedisSentinel s : sentinels) {
            try (RawRedis r = RawRedis.connect(s.host(), s.port())) {
                List<?> master = (List<?>) r.call("SENTINEL", "MASTER", MASTER_NAME);
                if (!"1".equals(field(master, "num-slaves")) || !"2".equals(field(master, "num-other-sentinels"))) {
                    return false;
                }
            }
        }
        return true;
    }

    private static int masterPort(RedisSentinel s) {
        try (RawRedis r = RawRedis.connect(s.host(), s.port())) {
            List<?> address = (List<?>) r.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
            return Integer.parseInt(String.valueOf(address.get(1)));
        }
    }

    /** @return whether {@code server} is a replica of the server on {@code masterPort} with its link up */
    private static boolean linkedTo(RedisServer server, int masterPort) {
        try (RawRedis r = RawRedis.connect(server.host(), server.port())) {
            String info = (String) r.call("INFO", "replication");
            return "slave".equals(ReplicaPair.field(info, "role"))
                    && Integer.toString(masterPort).equals(ReplicaPair.field(info, "master_port"))
                    && "up".equals(ReplicaPair.field(info, "master_link_status"));
        }
    }

    private static String field(List<?> flat, String name) {
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            if (name.equals(String.valueOf(flat.get(i)))) {
                return String.valueOf(flat.get(i + 1));
            }
        }
        return null;
    }

    private void await(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + timeout.toSeconds() + " s waiting for " + what
                        + ": " + this);
            }
            try {
                TimeUnit.MILLISECONDS.sleep(50); // polling the servers, no condition to wait on
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }
}
