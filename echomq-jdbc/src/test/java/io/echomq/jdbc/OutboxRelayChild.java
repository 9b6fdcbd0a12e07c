package io.echomq.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.echomq.queue.QueueClient;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A relay in a child JVM that stops for good at one step of its first batch, so that a test can kill it there.
 *
 * <p>Arguments: the JDBC URL, user, password, the Redis URL, and the step: {@code claimed} (rows locked, none
 * enqueued) or {@code enqueued} (every row enqueued, none deleted). Prints {@code STOPPED <step> <rows>} and
 * blocks, holding its transaction open.
 */
public final class OutboxRelayChild {
    private OutboxRelayChild() {
    }

    public static void main(String[] args) throws Exception {
        String step = args[4];
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[0]);
        config.setUsername(args[1]);
        config.setPassword(args[2]);
        config.setMaximumPoolSize(1);
        CountDownLatch never = new CountDownLatch(1);
        try (HikariDataSource dataSource = new HikariDataSource(config);
                QueueClient client = QueueClient.create(args[3])) {
            OutboxRelay relay = OutboxRelay.builder(dataSource, client).steps(new OutboxRelay.Steps() {
                @Override
                public void claimed(List<OutboxRow> rows) {
                    stopAt("claimed", rows);
                }

                @Override
                public void enqueued(List<OutboxRow> rows) {
                    stopAt("enqueued", rows);
                }

                private void stopAt(String here, List<OutboxRow> rows) {
                    if (here.equals(step)) {
                        System.out.println("STOPPED " + here + " " + rows.size());
                        System.out.flush();
                        try {
                            never.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }
            }).build();
            relay.relayOnce();
        }
    }
}
