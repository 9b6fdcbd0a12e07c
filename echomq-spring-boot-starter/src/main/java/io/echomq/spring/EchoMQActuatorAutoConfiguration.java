package io.echomq.spring;

import io.echomq.Names;
import io.echomq.lock.Locks;
import io.echomq.queue.QueueClient;
import io.echomq.spring.actuate.EchoMQHealthIndicator;
import io.echomq.spring.actuate.EchoMQInfoContributor;
import io.echomq.spring.queue.JobHandlerRegistry;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * EchoMQ's actuator parts, each only when its actuator module is on the class path: the health
 * indicator {@code echomq} ({@code management.health.echomq.enabled} turns it off) and the info
 * contributor. Thresholds are checked at startup like every other property.
 */
@AutoConfiguration(after = EchoMQAutoConfiguration.class)
public class EchoMQActuatorAutoConfiguration {

    /** Created by Spring. */
    public EchoMQActuatorAutoConfiguration() {
    }

    /**
     * The health indicator, with Spring Boot's health module. Two levels: the inner class's
     * {@code @ConditionalOnEnabledHealthIndicator} lives in that module, so it is only read once
     * the outer class has found the module on the class path.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Health {
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnBean({Locks.class, QueueClient.class})
        @ConditionalOnEnabledHealthIndicator("echomq")
        static class Enabled {
            @Bean
            @ConditionalOnMissingBean(name = "echomqHealthIndicator")
            EchoMQHealthIndicator echomqHealthIndicator(Locks locks, QueueClient queues, EchoMQProperties properties,
                                                        ObjectProvider<JobHandlerRegistry> registry) {
                EchoMQProperties.Health h = properties.getHealth();
                long maxOverdue = PropertyChecks.limit("echomq.health.max-overdue", h.getMaxOverdue());
                long maxDead = PropertyChecks.limit("echomq.health.max-dead", h.getMaxDead());
                List<String> configured = List.copyOf(h.getQueues());
                for (int i = 0; i < configured.size(); i++) {
                    String property = "echomq.health.queues[" + i + "]";
                    PropertyChecks.apply(property, configured.get(i), Names::queue);
                }
                return new EchoMQHealthIndicator(locks, queues, () -> {
                    Set<String> all = new LinkedHashSet<>();
                    registry.ifAvailable(r -> all.addAll(r.queues()));
                    all.addAll(configured);
                    return List.copyOf(all);
                }, maxOverdue, maxDead);
            }
        }
    }

    /** The info contributor, with Spring Boot's actuator module. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.info.InfoContributor")
    @ConditionalOnBean(QueueClient.class)
    static class Info {
        @Bean
        @ConditionalOnMissingBean
        EchoMQInfoContributor echomqInfoContributor(QueueClient client) {
            return new EchoMQInfoContributor(client);
        }
    }
}
