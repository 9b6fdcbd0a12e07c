package io.echomq.queue;

import io.echomq.server.RawRedis;
import io.echomq.testkit.RedisExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/** One real redis-server per test class; a fresh keyspace, client and queue per test. */
abstract class QueueTestBase {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private final List<QueueClient> clients = new ArrayList<>();
    QueueClient client;
    Queue queue;

    @BeforeEach
    void connect() {
        REDIS.flushAll();
        client = client(b -> b.retainCompleted(retainCompleted()));
        queue = client.queue("q");
    }

    @AfterEach
    void disconnect() {
        clients.forEach(c -> {
            try {
                c.close();
            } catch (RuntimeException ignored) {
                // best effort
            }
        });
        clients.clear();
    }

    /**
     * @return the completed-job retention of {@link #client}: the client's default, unless a class
     *     whose tests read completed jobs' hashes asks for a retention
     */
    java.time.Duration retainCompleted() {
        return QueueClient.DEFAULT_RETAIN_COMPLETED;
    }

    /** A further client, closed after the test. */
    QueueClient client(Consumer<QueueClient.Builder> config) {
        QueueClient.Builder b = QueueClient.builder().redisUrl(REDIS.url());
        config.accept(b);
        QueueClient c = b.build();
        clients.add(c);
        return c;
    }

    RawRedis raw() {
        return REDIS.raw();
    }

    /** Raw HGET of a job field, as text, or null. */
    String field(String id, String name) {
        Object v = raw().call("HGET", "emq:{q}:job:" + id, name);
        return v == null ? null : v instanceof byte[] b ? new String(b) : v.toString();
    }

    /**
     * @return the job's {@code state} field, or {@code pending} when its hash exists without one:
     *     the protocol's default, which enqueue leaves out to keep small jobs small
     */
    String stateOf(String id) {
        String state = field(id, "state");
        if (state == null && (Long) raw().call("EXISTS", "emq:{q}:job:" + id) == 1L) {
            return "pending";
        }
        // a default job of the LIST layout waits with no hash, in its pending bucket (docs/protocol.md)
        if (state == null && id.matches("[1-9][0-9]{0,14}")
                && (Long) raw().call("HEXISTS", "emq:{q}:pb:" + Long.parseLong(id) / 128, id) == 1L) {
            return "pending";
        }
        return state;
    }
}
