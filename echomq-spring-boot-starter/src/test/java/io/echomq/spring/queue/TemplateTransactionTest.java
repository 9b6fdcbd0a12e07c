package io.echomq.spring.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.EnqueueResult;
import io.echomq.queue.QueueClient;
import io.echomq.spring.TestApps;
import io.echomq.testkit.RedisExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * docs/spring.md's transaction rule, on a real H2 transaction and a real Redis: inside a Spring
 * transaction the template sends after the commit (by default), so a rollback leaves no job; with
 * {@code echomq.template.transactional=immediate} it sends at once.
 */
class TemplateTransactionTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    record Order(long id, String note) {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        DataSource dataSource() {
            return new DriverManagerDataSource("jdbc:h2:mem:template-tx;DB_CLOSE_DELAY=-1");
        }

        @Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        TransactionTemplate transactionTemplate(PlatformTransactionManager manager) {
            return new TransactionTemplate(manager);
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }
    }

    private static ConfigurableApplicationContext start(String... properties) {
        ConfigurableApplicationContext ctx = TestApps.start(App.class, REDIS.url(), properties);
        ctx.getBean(JdbcTemplate.class).execute("CREATE TABLE IF NOT EXISTS orders (id BIGINT PRIMARY KEY)");
        ctx.getBean(JdbcTemplate.class).execute("DELETE FROM orders");
        return ctx;
    }

    private static long jobs(ConfigurableApplicationContext ctx, String queue) {
        var stats = ctx.getBean(QueueClient.class).queue(queue).stats();
        return stats.pending() + stats.delayed();
    }

    @Test
    void aRolledBackTransactionLeavesNoJob() {
        try (ConfigurableApplicationContext ctx = start()) {
            EchoMQTemplate template = ctx.getBean(EchoMQTemplate.class);
            AtomicReference<CompletableFuture<EnqueueResult>> future = new AtomicReference<>();
            ctx.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                ctx.getBean(JdbcTemplate.class).update("INSERT INTO orders VALUES (1)");
                assertThat(template.enqueue("tx-rollback", new Order(1, "ship"))).as("deferred: no id yet").isNull();
                assertThat(template.enqueueAll("tx-rollback", List.of(new Order(1, "a"), new Order(1, "b")),
                        EnqueueOptions.defaults())).isNull();
                future.set(template.submit("tx-rollback", new Order(1, "bill")));
                status.setRollbackOnly();
            });
            assertThat(ctx.getBean(JdbcTemplate.class).queryForObject("SELECT COUNT(*) FROM orders", Long.class)).isZero();
            assertThat(jobs(ctx, "tx-rollback")).isZero();
            assertThat(future.get()).isCancelled();
        }
    }

    @Test
    void aCommittedTransactionGivesExactlyOneJobAfterTheCommit() throws Exception {
        try (ConfigurableApplicationContext ctx = start()) {
            EchoMQTemplate template = ctx.getBean(EchoMQTemplate.class);
            AtomicReference<CompletableFuture<EnqueueResult>> future = new AtomicReference<>();
            ctx.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                ctx.getBean(JdbcTemplate.class).update("INSERT INTO orders VALUES (2)");
                future.set(template.submit("tx-commit", new Order(2, "ship")));
                assertThat(jobs(ctx, "tx-commit")).as("nothing before the commit").isZero();
                assertThat(future.get()).isNotDone();
            });
            assertThat(jobs(ctx, "tx-commit")).isEqualTo(1);
            EnqueueResult result = future.get().get();
            assertThat(result.created()).isTrue();
            byte[] payload = ctx.getBean(QueueClient.class).queue("tx-commit").inspect(result.id()).orElseThrow().payload();
            assertThat(template.codec().decode(payload, Order.class)).isEqualTo(new Order(2, "ship"));
        }
    }

    @Test
    void bulkInATransactionIsSentOnceAtTheCommitWithItsIdempotencyKeys() throws Exception {
        try (ConfigurableApplicationContext ctx = start()) {
            EchoMQTemplate template = ctx.getBean(EchoMQTemplate.class);
            AtomicReference<CompletableFuture<List<EnqueueResult>>> future = new AtomicReference<>();
            EnqueueOptions key = EnqueueOptions.defaults().withIdempotencyKey("order-3", Duration.ofMinutes(5));
            ctx.getBean(TransactionTemplate.class).executeWithoutResult(status -> future.set(template.submitAll("tx-bulk",
                    List.of(PayloadJobRequest.of(new Order(3, "a"), key), PayloadJobRequest.of(new Order(3, "b"), key),
                            PayloadJobRequest.of(new Order(4, "c"))))));
            List<EnqueueResult> results = future.get().get();
            assertThat(results).extracting(EnqueueResult::created).containsExactly(true, false, true);
            assertThat(results.get(1).id()).isEqualTo(results.get(0).id());
            assertThat(jobs(ctx, "tx-bulk")).isEqualTo(2);
        }
    }

    @Test
    void outsideATransactionTheTemplateSendsAtOnce() {
        try (ConfigurableApplicationContext ctx = start()) {
            EchoMQTemplate template = ctx.getBean(EchoMQTemplate.class);
            assertThat(template.enqueue("tx-none", new Order(5, "x"))).isNotEmpty();
            assertThat(template.submit("tx-none", new Order(5, "y"))).isCompleted();
            assertThat(jobs(ctx, "tx-none")).isEqualTo(2);
        }
    }

    @Test
    void immediateModeSendsInsideTheTransactionAndARollbackKeepsTheJob() {
        try (ConfigurableApplicationContext ctx = start("echomq.template.transactional=immediate")) {
            EchoMQTemplate template = ctx.getBean(EchoMQTemplate.class);
            ctx.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                assertThat(template.enqueue("tx-immediate", new Order(6, "x"))).isNotEmpty();
                assertThat(jobs(ctx, "tx-immediate")).as("sent before the commit").isEqualTo(1);
                status.setRollbackOnly();
            });
            assertThat(jobs(ctx, "tx-immediate")).isEqualTo(1);
        }
    }

    @Test
    void aSendThatFailsAfterTheCommitIsLoggedAndFailsTheFutureNotTheCommit() {
        PrintStream err = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (ConfigurableApplicationContext ctx = start("echomq.queue.max-payload-bytes=64")) {
            EchoMQTemplate template = ctx.getBean(EchoMQTemplate.class);
            AtomicReference<CompletableFuture<EnqueueResult>> future = new AtomicReference<>();
            System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
            try {
                ctx.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                    ctx.getBean(JdbcTemplate.class).update("INSERT INTO orders VALUES (7)");
                    // Encodes fine; only the client refuses its size, at the send after the commit.
                    future.set(template.submit("tx-too-big", new Order(7, "x".repeat(200))));
                });
            } finally {
                System.setErr(err);
            }
            assertThat(ctx.getBean(JdbcTemplate.class).queryForObject("SELECT COUNT(*) FROM orders", Long.class))
                    .as("the commit stands").isEqualTo(1);
            assertThatThrownBy(() -> future.get().get()).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(IllegalArgumentException.class);
            assertThat(jobs(ctx, "tx-too-big")).isZero();
            assertThat(log.toString(StandardCharsets.UTF_8)).contains("WARN").contains("'tx-too-big'")
                    .contains("IllegalArgumentException");
        }
    }

    @Test
    void badInputInATransactionThrowsAtOnceAndLeavesNothingForTheCommit() {
        try (ConfigurableApplicationContext ctx = start()) {
            EchoMQTemplate template = ctx.getBean(EchoMQTemplate.class);
            ctx.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                assertThatThrownBy(() -> template.enqueue("tx-bad", null)).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> template.enqueue("tx bad {name}", new Order(8, "x")))
                        .isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> template.enqueueAll("tx-bad", List.of(new Order(8, "x"), new Unwritable("y")),
                        EnqueueOptions.defaults())).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("job 1");
            });
            assertThat(jobs(ctx, "tx-bad")).isZero();
        }
    }

    /** Jackson cannot write it: its accessor throws. */
    record Unwritable(String value) {
        @Override
        public String value() {
            throw new IllegalStateException("not writable");
        }
    }
}
