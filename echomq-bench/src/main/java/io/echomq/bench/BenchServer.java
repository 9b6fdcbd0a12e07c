package io.echomq.bench;

import io.echomq.RedisUrl;
import io.echomq.server.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The Redis server a bench runs on, and a plain connection to it for the bench's own reads
 * ({@code INFO}, clean-up). With no URL it starts echomq-server's {@code redis-server} (the binary
 * named by {@code EMQ_REDIS_SERVER}, else the embedded one) and stops it on close.
 */
final class BenchServer implements AutoCloseable {
    private final RedisServer embedded;
    private final String url;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    private BenchServer(RedisServer embedded, String url) {
        this.embedded = embedded;
        this.url = url;
        RedisURI uri = RedisURI.create(url);
        uri.setTimeout(Duration.ofSeconds(60));   // FLUSHALL of a million jobs takes a while
        this.client = RedisClient.create(uri);
        this.connection = client.connect();
    }

    /**
     * Starts the embedded server when {@code url} is null, else connects to {@code url}, and says
     * on {@code out} which server it is.
     *
     * @throws IllegalStateException if the embedded server does not start
     * @throws io.lettuce.core.RedisException if the server cannot be reached
     */
    static BenchServer open(String url, PrintWriter out) {
        if (url != null) {
            BenchServer s = new BenchServer(null, url);
            out.printf("server: %s at %s (given with --redis)%n", s.version(), RedisUrl.redact(url));
            return s;
        }
        RedisServer started = RedisServer.start();
        BenchServer s = new BenchServer(started, started.url());
        out.printf("server: %s, started for this run at %s (%s)%n", s.version(), started.url(), started.binary());
        out.printf("note: the Redis server, this client and the peers share this machine's %d core(s); "
                + "compare the ratios, not the absolute figures%n", Runtime.getRuntime().availableProcessors());
        return s;
    }

    /** @return the URL clients connect to */
    String url() {
        return url;
    }

    /** @return whether this run started the server (and so may flush it) */
    boolean isEmbedded() {
        return embedded != null;
    }

    /** @return the bench's own synchronous connection */
    RedisCommands<String, String> sync() {
        return connection.sync();
    }

    /**
     * @return {@code Redis 7.0.15} or {@code Valkey 8.0.1}, as {@code INFO server} names it: Valkey says
     *     {@code server_name:valkey} and {@code valkey_version} (its {@code redis_version} is 7.2.4)
     */
    String version() {
        String info = sync().info("server");
        String name = field(info, "server_name");
        if (name.equals("?") || name.isEmpty() || name.equalsIgnoreCase("redis")) {
            return "Redis " + field(info, "redis_version");
        }
        String own = field(info, name + "_version");
        return name.substring(0, 1).toUpperCase(java.util.Locale.ROOT) + name.substring(1) + " "
                + (own.equals("?") ? field(info, "redis_version") : own);
    }

    /** @return one numeric field of {@code INFO <section>} */
    long infoLong(String section, String name) {
        return Long.parseLong(field(sync().info(section), name));
    }

    /**
     * Waits up to 10 s until the server has no objects left to free in the background (from an
     * earlier UNLINK or FLUSHALL ASYNC), so that a {@code used_memory} delta is this run's alone.
     */
    void awaitLazyFree() throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < end) {
            String pending = field(sync().info("memory"), "lazyfree_pending_objects");
            if (pending.equals("0") || pending.equals("?")) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    /** @return the value of {@code name:} in an INFO reply, or {@code ?} */
    static String field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return "?";
    }

    /**
     * Deletes every key starting with {@code prefix}: {@code FLUSHALL} on a server this run
     * started, else {@code SCAN} and {@code UNLINK} in batches (never another application's keys).
     */
    void deleteKeys(String prefix) {
        if (isEmbedded()) {
            sync().flushall();
            return;
        }
        io.lettuce.core.ScanCursor cursor = io.lettuce.core.ScanCursor.INITIAL;
        io.lettuce.core.ScanArgs args = io.lettuce.core.ScanArgs.Builder.matches(glob(prefix) + "*").limit(1000);
        do {
            io.lettuce.core.KeyScanCursor<String> page = sync().scan(cursor, args);
            if (!page.getKeys().isEmpty()) {
                sync().unlink(page.getKeys().toArray(new String[0]));
            }
            cursor = page;
        } while (!cursor.isFinished());
    }

    private static String glob(String prefix) {
        return prefix.replaceAll("([*?\\[\\]\\\\])", "\\\\$1");
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(0, 2, TimeUnit.SECONDS);
        if (embedded != null) {
            embedded.close();
        }
    }
}
