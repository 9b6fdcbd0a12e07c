package io.echomq.spring.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.LockInfo;
import io.echomq.spring.TestApps;
import io.echomq.testkit.RedisExtension;
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
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The pattern docs/spring.md shows: a {@code @Locked @Transactional} method writes its lease's
 * fence to a row, and the lock is released only after the transaction commits, so no other holder
 * can write between the fence check and the commit.
 */
class LockedTransactionTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableTransactionManagement
    static class App {
        @Bean
        DataSource dataSource() {
            return new DriverManagerDataSource("jdbc:h2:mem:locked-tx;DB_CLOSE_DELAY=-1");
        }

        @Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }

        @Bean
        Billing billing(JdbcTemplate jdbc, LockClient locks) {
            return new Billing(jdbc, locks);
        }
    }

    static final AtomicReference<LockInfo> AT_COMMIT = new AtomicReference<>();
    static final AtomicReference<String> TOKEN = new AtomicReference<>();

    public static class Billing {
        private final JdbcTemplate jdbc;
        private final LockClient locks;

        Billing(JdbcTemplate jdbc, LockClient locks) {
            this.jdbc = jdbc;
            this.locks = locks;
        }

        @Locked("'invoice:' + #id")
        @Transactional
        public void bill(long id, Lease lease) {
            assertThat(TransactionSynchronizationManager.isActualTransactionActive()).isTrue();
            int rows = jdbc.update("UPDATE invoice SET fence = ? WHERE id = ? AND fence < ?", lease.fence(), id, lease.fence());
            assertThat(rows).isEqualTo(1);
            TOKEN.set(lease.token());
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    AT_COMMIT.set(locks.inspect("invoice:" + id));
                }
            });
        }
    }

    @Test
    void theFenceIsCommittedWhileTheLockIsStillHeld() {
        try (ConfigurableApplicationContext ctx = TestApps.start(App.class, REDIS.url())) {
            JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
            jdbc.execute("CREATE TABLE invoice (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL)");
            jdbc.update("INSERT INTO invoice VALUES (7, 0)");

            ctx.getBean(Billing.class).bill(7, null);

            assertThat(AT_COMMIT.get().isHeld()).as("lock held when the transaction committed").isTrue();
            assertThat(AT_COMMIT.get().holderToken()).contains(TOKEN.get());
            long fence = jdbc.queryForObject("SELECT fence FROM invoice WHERE id = 7", Long.class);
            assertThat(fence).isPositive().isEqualTo(AT_COMMIT.get().lastFence());
            assertThat(ctx.getBean(LockClient.class).inspect("invoice:7").isHeld()).as("released after the commit").isFalse();
        }
    }
}
