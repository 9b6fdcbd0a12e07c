package io.echomq.lock;

import io.echomq.server.RawRedis;
import io.echomq.testkit.RedisExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/** One real redis-server per test class; a fresh keyspace and client per test. */
abstract class LockTestBase {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private final List<LockClient> clients = new ArrayList<>();
    LockClient locks;

    @BeforeEach
    void connect() {
        REDIS.flushAll();
        locks = client(b -> { });
    }

    @AfterEach
    void disconnect() {
        clients.forEach(LockClient::close);
        clients.clear();
    }

    /** A further client, closed after the test. */
    LockClient client(Consumer<LockClient.Builder> config) {
        LockClient.Builder b = LockClient.builder().redisUrl(REDIS.url());
        config.accept(b);
        LockClient c = b.build();
        clients.add(c);
        return c;
    }

    RawRedis raw() {
        return REDIS.raw();
    }

    Object get(String key) {
        return raw().call("GET", key);
    }

    long pttl(String key) {
        return (Long) raw().call("PTTL", key);
    }

    /**
     * @return the server's clock in microseconds ({@code TIME}), the floor of a fresh resource's
     *     first fence
     */
    static long serverMicros() {
        io.echomq.server.RedisServer s = REDIS.servers().get(0);
        try (RawRedis r = RawRedis.connect(s.host(), s.port())) {
            List<?> t = (List<?>) r.call("TIME");
            return Long.parseLong(t.get(0).toString()) * 1_000_000L + Long.parseLong(t.get(1).toString());
        }
    }
}
