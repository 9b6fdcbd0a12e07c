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
 *       replica ({@link #promote()}) and the old master has been turned into its replica, link up
 *       ({@link #awaitOldMasterFollows()}).</li>
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
    private final String dataPassword;

    private SentinelGroup(List<RedisServer> servers, List<RedisSentinel> sentinels, String dataPassword) {
        this.servers = servers;
        this.sentinels = sentinels;
        this.dataPassword = dataPassword;
    }

    /**
     * Starts the master, the replica and three sentinels, and waits (at most 30 seconds) until the sentinels know
     * each other and the replica.
     *
     * @return the running group; close it when done
     * @throws IllegalStateException if a process does not start, or the group is not ready in time
     */
    public static SentinelGroup start() {
        return start(null, null);
    }

    /**
     * As {@link #start()}, with passwords: {@code dataPassword} is the master's and the replica's
     * {@code requirepass} (and the replica's {@code masterauth}), {@code sentinelPassword} the sentinels' own.
     *
     * @param dataPassword the data nodes' password, or {@code null} for none
     * @param sentinelPassword the sentinels' password, or {@code null} for none
     * @return the running group; close it when done
     * @throws IllegalArgumentException if a password is empty or holds a blank or a quote
     * @throws IllegalStateException if a process does not start, or the group is not ready in time
     */
    public static SentinelGroup start(String dataPassword, String sentinelPassword) {
        List<RedisServer> servers = new ArrayList<>();
        List<RedisSentinel> sentinels = new ArrayList<>();
        SentinelGroup group = new SentinelGroup(servers, sentinels, dataPassword);
        try {
            // Redis 7 syncs replicas diskless after a 5 s delay by default (to batch replicas): no need here.
            RedisServer master = RedisServer.builder().config("repl-diskless-sync-delay", "0").start();
            servers.add(master);
            RedisServer replica = RedisServer.builder().config("repl-diskless-sync-delay", "0").start();
            servers.add(replica);
            if (dataPassword != null) {
                // set once the servers answer: the test kit's readiness check pings without a password
                for (RedisServer s : servers) {
                    try (RawRedis r = RawRedis.connect(s.host(), s.port())) {
                        r.call("CONFIG", "SET", "masterauth", dataPassword);
                        r.call("CONFIG", "SET", "requirepass", dataPassword);
                    }
                }
            }
            try (RawRedis r = group.connect(replica)) {
                r.call("REPLICAOF", master.host(), Integer.toString(master.port()));
            }
            group.await("the replica's first sync", READY_TIMEOUT, () -> group.linkedTo(replica, master.port()));
            for (int i = 0; i < 3; i++) {
                sentinels.add(RedisSentinel.start(MASTER_NAME, master, 2, Duration.ofMillis(1000),
                        Duration.ofSeconds(5), dataPassword, sentinelPassword));
            }
            group.await("every sentinel to know the replica and the two others", READY_TIMEOUT, group::sentinelsReady);
            return group;
        } catch (RuntimeException e) {
            group.close();
            throw e;
        }
    }

    /**
     * @return {@code redis-sentinel://127.0.0.1:<p1>,127.0.0.1:<p2>,127.0.0.1:<p3>#echomq}, without passwords
     */
    public String url() {
        StringBuilder url = new StringBuilder("redis-sentinel://");
        for (int i = 0; i < sentinels.size(); i++) {
            url.append(i == 0 ? "" : ",").append(sentinels.get(i).address());
        }
        return url.append('#').append(MASTER_NAME).toString();
    }

    /**
     * Opens a connection to one of the two data nodes, authenticated with the data nodes' password when they have
     * one.
     *
     * @param server {@link #master()} or {@link #replica()}
     * @return the connection; close it when done
     * @throws java.io.UncheckedIOException if the server cannot be reached
     */
    public RawRedis connect(RedisServer server) {
        RawRedis conn = RawRedis.connect(server.host(), server.port());
        if (dataPassword != null) {
            try {
                conn.call("AUTH", dataPassword);
            } catch (RuntimeException e) {
                conn.close();
                throw e;
            }
        }
        return conn;
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
     * Forces a failover and waits until it is over: {@link #promote()}, then {@link #awaitOldMasterFollows()}.
     *
     * @return the new master
     * @throws IllegalStateException if the failover is not complete in time
     * @throws RawRedis.ErrorReply if the sentinel refuses the failover (for example, no replica it can promote)
     */
    public RedisServer failover() {
        RedisServer oldMaster = master();
        RedisServer promoted = promote();
        awaitOldMasterFollows(oldMaster, promoted);
        return promoted;
    }

    /**
     * Forces a failover ({@code SENTINEL FAILOVER echomq}, sent to the first sentinel) and waits (at most 60
     * seconds) until every sentinel names the old replica as the master. The old master still runs as a master
     * then, and the clients connected to it still write there: the sentinels turn it into a replica only some
     * seconds later (they wait for it to report its role), which {@link #awaitOldMasterFollows()} waits for.
     *
     * @return the new master
     * @throws IllegalStateException if the sentinels do not all name the new master in time
     * @throws RawRedis.ErrorReply if the sentinel refuses the failover (for example, no replica it can promote)
     */
    public RedisServer promote() {
        RedisServer promoted = replica();
        try (RawRedis s = sentinels.get(0).connect()) {
            s.call("SENTINEL", "FAILOVER", MASTER_NAME);
        }
        await("every sentinel to name the promoted replica", FAILOVER_TIMEOUT,
                () -> sentinels.stream().allMatch(s -> masterPort(s) == promoted.port()));
        return promoted;
    }

    /**
     * Waits (at most 60 seconds) until the server that is not the master replicates from the master with its link
     * up: after {@link #promote()}, until the sentinels have turned the old master into the new one's replica (and
     * closed its clients' connections, so that they reconnect, through the sentinels, to the new master).
     *
     * @throws IllegalStateException if that does not happen in time
     */
    public void awaitOldMasterFollows() {
        awaitOldMasterFollows(replica(), master());
    }

    private void awaitOldMasterFollows(RedisServer oldMaster, RedisServer promoted) {
        await("the old master to replicate from the new one", FAILOVER_TIMEOUT,
                () -> linkedTo(oldMaster, promoted.port()));
    }

    /** Stops the sentinels, then the servers. Idempotent; never throws. */
    @Override
    public void close() {
        sentinels.forEach(RedisSentinel::close);
        for (RedisServer s : servers) {
            if (dataPassword != null && s.isRunning()) {
                // the test kit stops a server with SHUTDOWN, unauthenticated: lift the password first
                try (RawRedis r = connect(s)) {
                    r.call("CONFIG", "SET", "requirepass", "");
                } catch (RuntimeException stopped) {
                    // it is killed instead
                }
            }
            s.close();
        }
    }

    @Override
    public String toString() {
        return "SentinelGroup[" + url() + ", servers " + servers.stream().map(RedisServer::url).toList() + "]";
    }

    private boolean sentinelsReady() {
        for (RedisSentinel s : sentinels) {
            try (RawRedis r = s.connect()) {
                List<?> master = (List<?>) r.call("SENTINEL", "MASTER", MASTER_NAME);
                if (!"1".equals(field(master, "num-slaves")) || !"2".equals(field(master, "num-other-sentinels"))) {
                    return false;
                }
            }
        }
        return true;
    }

    private static int masterPort(RedisSentinel s) {
        try (RawRedis r = s.connect()) {
            List<?> address = (List<?>) r.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
            return Integer.parseInt(String.valueOf(address.get(1)));
        }
    }

    /** @return whether {@code server} is a replica of the server on {@code masterPort} with its link up */
    private boolean linkedTo(RedisServer server, int masterPort) {
        try (RawRedis r = connect(server)) {
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
