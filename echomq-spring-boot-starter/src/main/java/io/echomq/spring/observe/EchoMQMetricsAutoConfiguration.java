package io.echomq.spring.observe;

import io.echomq.micrometer.EchoMQMetrics;
import io.echomq.queue.QueueClient;
import io.echomq.spring.EchoMQAutoConfiguration;
import io.echomq.spring.EchoMQProperties;
import io.echomq.spring.queue.JobHandlerRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters for the starter's clients, when {@code echomq-micrometer} is on the class path,
 * the application has a {@link MeterRegistry} bean (Spring Boot's actuator makes one) and
 * {@code echomq.metrics.enabled} is not false:
 * <ul>
 *   <li>an {@link EchoMQMetrics} bound to that registry (unless the application defines its own),
 *       which {@link EchoMQInstrumentation} hands to both clients: the lock meters exist from
 *       startup;</li>
 *   <li>at startup, before any worker starts, every known queue's event meters at 0 and its state
 *       gauges ({@link StartupQueueMeters}): the queues of the {@code @EchoJobHandler} methods,
 *       {@code echomq.health.queues} and {@code echomq.metrics.queues}.</li>
 * </ul>
 * Ordered after Spring Boot's metrics auto-configuration, whose registry it waits for; without
 * Micrometer or the registry it adds nothing and the clients record no meters.
 */
@AutoConfiguration(after = EchoMQAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(name = {"io.echomq.micrometer.EchoMQMetrics", "io.micrometer.core.instrument.MeterRegistry"})
@ConditionalOnProperty(name = "echomq.metrics.enabled", matchIfMissing = true)
public class EchoMQMetricsAutoConfiguration {

    /** Created by Spring. */
    public EchoMQMetricsAutoConfiguration() {
    }

    /**
     * @param registry the application's registry (Spring Boot's composite one when there are several)
     * @return the meters, closed with the context (which stops their held-time sweep)
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnBean(MeterRegistry.class)
    @ConditionalOnMissingBean
    public EchoMQMetrics echomqMetrics(MeterRegistry registry) {
        return EchoMQMetrics.bind(registry);
    }

    /**
     * @return what registers the known queues' meters and gauges once every bean is made
     * @throws io.echomq.spring.InvalidEchoMQPropertyException at startup, if a queue name of
     *     {@code echomq.metrics.queues} or {@code echomq.health.queues} is invalid
     */
    @Bean
    @ConditionalOnBean(EchoMQMetrics.class)
    static StartupQueueMeters echomqStartupQueueMeters(ObjectProvider<EchoMQMetrics> metrics,
                                                       ObjectProvider<QueueClient> client,
                                                       ObjectProvider<JobHandlerRegistry> handlers,
                                                       ObjectProvider<EchoMQProperties> properties) {
        return new StartupQueueMeters(metrics, client, handlers, properties);
    }
}
