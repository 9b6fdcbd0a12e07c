package io.echomq.cli;

import io.echomq.queue.QueueClient;
import io.echomq.testkit.RedisExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One real server per test class, a core {@link QueueClient} to put jobs into states the CLI
 * cannot reach by itself (active, dead, overdue) or to read them back, and an empty keyspace per test.
 */
abstract class QueueCliTestBase {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    static QueueClient client;

    @BeforeAll
    static void connect() {
        client = QueueClient.create(REDIS.url());
    }

    @AfterAll
    static void disconnect() {
        client.close();
    }

    @BeforeEach
    void flush() {
        REDIS.flushAll();
    }

    /** Runs {@code emq args…} in-process against the test server. */
    static EmqRun emq(String... args) {
        return EmqRun.at(REDIS.url(), args);
    }
}
