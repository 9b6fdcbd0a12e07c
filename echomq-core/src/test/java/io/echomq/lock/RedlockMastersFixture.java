package io.echomq.lock;

import io.echomq.server.RawRedis;
import io.echomq.server.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * N real redis-server processes from the test kit, a raw connection to each, and the Redlock
 * clients built on them; {@link #close()} stops everything it started. {@link #kill(int)} stops
 * one master mid-test.
 */
final class RedlockMastersFixture implements AutoCloseable {
    final List<RedisServer> servers = new ArrayList<>();
    private final List<RawRedis> raws = new ArrayList<>();
    private final List<RedlockClient> clients = new ArrayList<>();

    RedlockMastersFixture(int n) {
        try {
            for (int i = 0; i < n; i++) {
                RedisServer s = RedisServer.start();
                servers.add(s);
                raws.add(RawRedis.connect(s.host(), s.port()));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    List<String> urls() {
        return servers.stream().map(RedisServer::url).toList();
    }

    /** A client on every master, with a generous per-master timeout for a loaded CI machine; closed by {@link #close()}. */
    RedlockClient client(Consumer<RedlockClient.Builder> config) {
        RedlockClient.Builder b = RedlockClient.builder().redisUrls(urls()).masterTimeout(Duration.ofSeconds(2));
        config.accept(b);
        RedlockClient c = b.build();
        synchronized (clients) {
            clients.add(c);
        }
        return c;
    }

    RedlockClient client() {
        return client(b -> { });
    }

    RawRedis raw(int i) {
        return raws.get(i);
    }

    /** @return {@code GET key} on every master, null where absent */
    List<Object> getOnEach(String key) {
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < servers.size(); i++) {
            values.add(servers.get(i).isRunning() ? raws.get(i).call("GET", key) : "<killed>");
        }
        return values;
    }

    void flushAll() {
        for (RawRedis r : raws) {
            r.call("FLUSHALL");
        }
    }

    /** Stops master {@code i} (SHUTDOWN NOSAVE: its locks are gone with it). */
    void kill(int i) {
        raws.get(i).close();
        servers.get(i).close();
    }

    @Override
    public void close() {
        synchronized (clients) {
            clients.forEach(RedlockClient::close);
            clients.clear();
        }
        raws.forEach(RawRedis::close);
        servers.forEach(RedisServer::close);
    }
}
