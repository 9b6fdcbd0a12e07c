package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.ConnectionListener;
import io.echomq.testkit.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link QueueClient#connectionListener}: one "lost" and one "back" per outage, whatever the connection count. */
@Timeout(60)
class ConnectionListenerTest extends QueueTestBase {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    @Tag("standalone-only")   // a FaultProxy stands in front of one server (docs/scaling.md)
    void anOutageOfSeveralConnectionsIsReportedOnceLostAndOnceBack() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(REDIS.server())) {
            QueueClient c = client(b -> b.redisUrl(proxy.url()));
            c.queue("q").enqueue("x");   // the main and binary connections are open
            List<String> events = new CopyOnWriteArrayList<>();
            c.connectionListener(new ConnectionListener() {
                @Override
                public void onLost(String url) {
                    events.add("lost " + url);
                }

                @Override
                public void onBack(String url) {
                    events.add("back " + url);
                }
            });

            proxy.blackHole(Duration.ofSeconds(30));   // reconnects hang until healed
            assertThat(proxy.cutAll()).as("connections cut").isGreaterThan(1);
            await().atMost(WAIT).until(() -> !events.isEmpty());
            proxy.heal();
            await().atMost(WAIT).until(() -> events.size() >= 2);
            assertThat(c.queue("q").stats().pending()).isEqualTo(1);

            assertThat(events).containsExactly("lost " + proxy.url(), "back " + proxy.url());

            c.connectionListener(null);
            proxy.cutAll();
            // a call made while the cut connection is down may fail fast ("not connected"); the
            // client must come back, so retry until it answers
            await().atMost(WAIT).ignoreExceptions()
                    .untilAsserted(() -> assertThat(c.queue("q").stats().pending()).isEqualTo(1));
            assertThat(events).as("no callback once the listener is removed").hasSize(2);
        }
    }

    @Test
    @Tag("standalone-only")   // a FaultProxy stands in front of one server (docs/scaling.md)
    void aWorkerWhoseMaintenanceFailsThroughAnOutageLogsItOnce() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(REDIS.server())) {
            QueueClient c = client(b -> b.redisUrl(proxy.url()));
            java.io.ByteArrayOutputStream copy = new java.io.ByteArrayOutputStream();
            java.io.PrintStream err = System.err;
            System.setErr(new java.io.PrintStream(new java.io.OutputStream() {
                @Override
                public void write(int b) {
                    err.write(b);
                    copy.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    err.write(b, off, len);
                    copy.write(b, off, len);
                }
            }, true));
            try (Worker w = c.worker("q", job -> { }).maintenanceInterval(Duration.ofMillis(100)).start()) {
                proxy.blackHole(Duration.ofSeconds(30));   // every maintenance run now fails
                proxy.cutAll();
                // at least ten failed runs (one every 100 ms, each timing out or refused)
                await().atMost(WAIT).until(() -> copy.toString().contains("maintenance failed"));
                java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofSeconds(2).toNanos());
                proxy.heal();
                await().atMost(WAIT).untilAsserted(() -> assertThat(c.queue("q").stats().pending()).isZero());
                w.shutdown(Duration.ofSeconds(5));
            } finally {
                System.setErr(err);
            }
            long lines = copy.toString().lines().filter(l -> l.contains("maintenance failed")).count();
            assertThat(lines).as("the outage's maintenance failures, logged once: " + copy).isEqualTo(1);
        }
    }
}
