package io.echomq.spring;

import io.echomq.lock.LockClient;
import io.echomq.lock.Locks;
import io.echomq.queue.QueueClient;
import io.echomq.spring.lock.Locked;
import io.echomq.spring.lock.LockedConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * EchoMQ's beans for a Spring Boot application:
 * <ul>
 *   <li>a {@link LockClient} (unless the application defines its own {@link Locks}, for example a
 *       {@code RedlockClient}) and a {@link QueueClient}, both connected to
 *       {@code echomq.redis.url} or, without it, to the application's {@code spring.data.redis.*}
 *       settings ({@link RedisUrlResolver}); each is closed when the context closes.</li>
 *   <li>the advisor that runs {@link Locked} methods under a lock ({@link LockedConfiguration}).</li>
 * </ul>
 * A bad property value fails startup with an {@link InvalidEchoMQPropertyException} naming it.
 */
@AutoConfiguration
@EnableConfigurationProperties(EchoMQProperties.class)
@Import(LockedConfiguration.class)
public class EchoMQAutoConfiguration {

    /** Created by Spring. */
    public EchoMQAutoConfiguration() {
    }

    /**
     * @return the lock client, closed with the context
     * @throws InvalidEchoMQPropertyException if a property is refused
     * @throws io.echomq.RedisCommandException if Redis cannot be reached
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(Locks.class)
    public LockClient echomqLockClient(EchoMQProperties properties, Environment environment) {
        return EchoMQClients.lockClient(properties, environment);
    }

    /**
     * @return the queue client, closed with the context (which also stops any worker still running on it)
     * @throws InvalidEchoMQPropertyException if a property is refused
     * @throws io.echomq.RedisCommandException if Redis cannot be reached
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public QueueClient echomqQueueClient(EchoMQProperties properties, Environment environment) {
        return EchoMQClients.queueClient(properties, environment);
    }
}
