package io.echomq.spring;

import io.echomq.lock.LockClient;
import io.echomq.lock.Locks;
import io.echomq.queue.QueueClient;
import io.echomq.observe.Instrumentation;
import io.echomq.spring.lock.Locked;
import io.echomq.spring.lock.LockedConfiguration;
import io.echomq.spring.observe.EchoMQInstrumentation;
import io.echomq.spring.observe.EchoMQMetricsAutoConfiguration;
import io.echomq.spring.observe.EchoMQTracingAutoConfiguration;
import io.echomq.spring.queue.AfterCommitEnqueueDispatcher;
import io.echomq.spring.queue.EchoJobHandler;
import io.echomq.spring.queue.EchoMQTemplate;
import io.echomq.spring.queue.EnqueueDispatcher;
import io.echomq.spring.queue.JacksonPayloadCodec;
import io.echomq.spring.queue.JobHandlerRegistry;
import io.echomq.spring.queue.PayloadCodec;
import io.echomq.spring.queue.PlainPayloadCodec;
import io.echomq.spring.queue.WorkerLifecycle;
import io.echomq.spring.queue.WorkerThreads;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Configuration;
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
 *       settings ({@link RedisUrlResolver}); each is closed when the context closes. Both are
 *       built with the {@link EchoMQInstrumentation} bean: Micrometer's meters and
 *       OpenTelemetry's spans when those are present ({@code io.echomq.spring.observe}).</li>
 *   <li>the advisor that runs {@link Locked} methods under a lock ({@link LockedConfiguration});</li>
 *   <li>a worker per {@link EchoJobHandler} method, started and stopped with the context
 *       ({@link JobHandlerRegistry}, {@link WorkerLifecycle}), unless {@code echomq.worker.enabled}
 *       is false; their handlers run on virtual threads when Spring Boot's
 *       {@code spring.threads.virtual.enabled} is true on Java 21+, else on platform threads
 *       ({@link WorkerThreads});</li>
 *   <li>the {@code @EchoSchedule}s of those methods, upserted just before the workers start
 *       ({@code ScheduleLifecycle}), whether or not workers run here;</li>
 *   <li>an {@link EchoMQTemplate} and the {@link PayloadCodec} it shares with the handlers: JSON
 *       through the application's Jackson 3 {@code JsonMapper} when Jackson is on the class path,
 *       else bytes and strings only. Each is replaced by an application's own bean of its type.</li>
 *   <li>the {@link EnqueueDispatcher} the template sends through: inside a Spring transaction,
 *       after it commits ({@code echomq.template.transactional}).</li>
 * </ul>
 * A bad property value fails startup with an {@link InvalidEchoMQPropertyException} naming it.
 */
@AutoConfiguration(afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
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
    public LockClient echomqLockClient(EchoMQProperties properties, Environment environment,
                                       EchoMQInstrumentation instrumentation) {
        return EchoMQClients.lockClient(properties, environment, instrumentation.get());
    }

    /**
     * @return the queue client, closed with the context (which also stops any worker still running on it)
     * @throws InvalidEchoMQPropertyException if a property is refused
     * @throws io.echomq.RedisCommandException if Redis cannot be reached
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public QueueClient echomqQueueClient(EchoMQProperties properties, Environment environment,
                                         EchoMQInstrumentation instrumentation) {
        return EchoMQClients.queueClient(properties, environment, instrumentation.get());
    }

    /**
     * The instrumentation both clients are built with: every {@link Instrumentation} bean of the
     * context, in their order (the meters and spans of {@link EchoMQMetricsAutoConfiguration} and
     * {@link EchoMQTracingAutoConfiguration}, and the application's own), or none.
     *
     * @return it, also for an application's own clients ({@code instrumentation.get()})
     */
    @Bean
    @ConditionalOnMissingBean
    public EchoMQInstrumentation echomqInstrumentation(ObjectProvider<Instrumentation> instrumentations) {
        return new EchoMQInstrumentation(instrumentations.orderedStream().toList());
    }

    /**
     * Finds the handler methods as beans are created. Static: a bean post-processor must not
     * wait for its configuration class.
     *
     * @return the registry
     */
    @Bean
    public static JobHandlerRegistry echomqJobHandlerRegistry(ConfigurableListableBeanFactory beanFactory,
                                                              ObjectProvider<PayloadCodec> codec) {
        return new JobHandlerRegistry(beanFactory, codec::getObject);
    }

    /**
     * @return the lifecycle that runs the handlers' workers
     * @throws InvalidEchoMQPropertyException if a worker property is refused
     * @throws org.springframework.core.convert.ConversionFailedException if
     *     {@code spring.threads.virtual.enabled} is not a boolean
     */
    @Bean
    @ConditionalOnProperty(name = "echomq.worker.enabled", matchIfMissing = true)
    public WorkerLifecycle echomqWorkerLifecycle(JobHandlerRegistry registry, QueueClient client,
                                                 EchoMQProperties properties, ConfigurableListableBeanFactory beanFactory,
                                                 Environment environment) {
        EchoMQProperties.WorkerProperties w = properties.getWorker();
        PropertyChecks.notNegative("echomq.worker.shutdown-grace", w.getShutdownGrace());
        java.time.Duration min = java.time.Duration.ofMillis(10);
        java.time.Duration max = java.time.Duration.ofHours(1);
        PropertyChecks.between("echomq.worker.maintenance-interval", w.getMaintenanceInterval(), min, max);
        PropertyChecks.between("echomq.worker.idle-poll", w.getIdlePoll(), min, max);
        if (w.getName() != null) {
            PropertyChecks.apply("echomq.worker.name", w.getName(), io.echomq.queue.Worker::checkName);
        }
        return new WorkerLifecycle(registry, client, properties, beanFactory, WorkerThreads.from(environment));
    }

    /** @return the lifecycle that upserts the {@code @EchoSchedule}s before the workers start */
    @Bean
    public io.echomq.spring.queue.ScheduleLifecycle echomqScheduleLifecycle(JobHandlerRegistry registry, QueueClient client,
                                                                          EchoMQProperties properties) {
        return new io.echomq.spring.queue.ScheduleLifecycle(registry, client, properties.getSchedules().isRemoveUnknown());
    }

    /** @return the enqueue helper, sending through the {@link EnqueueDispatcher} bean */
    @Bean
    @ConditionalOnMissingBean
    public EchoMQTemplate echomqTemplate(QueueClient client, PayloadCodec codec, EnqueueDispatcher dispatcher) {
        return new EchoMQTemplate(client, codec, dispatcher);
    }

    /**
     * @return when the template sends: after the caller's transaction commits when
     *     {@code echomq.template.transactional} is {@code after-commit} (the default) and spring-tx
     *     is on the class path, else at once
     */
    @Bean
    @ConditionalOnMissingBean
    public EnqueueDispatcher echomqEnqueueDispatcher(EchoMQProperties properties, ConfigurableListableBeanFactory beanFactory) {
        boolean afterCommit = properties.getTemplate().getTransactional() == EchoMQProperties.TransactionMode.AFTER_COMMIT
                && EnqueueDispatcher.afterCommitAvailable(beanFactory.getBeanClassLoader());
        return afterCommit ? new AfterCommitEnqueueDispatcher() : EnqueueDispatcher.immediate();
    }

    /** JSON payloads when Jackson 3 is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "tools.jackson.databind.json.JsonMapper")
    static class JacksonCodec {
        @Bean
        @ConditionalOnMissingBean
        PayloadCodec echomqPayloadCodec(ObjectProvider<tools.jackson.databind.json.JsonMapper> mapper) {
            return new JacksonPayloadCodec(mapper.getIfAvailable(() -> tools.jackson.databind.json.JsonMapper.builder().build()));
        }
    }

    /** Bytes and strings only, without Jackson. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("tools.jackson.databind.json.JsonMapper")
    static class PlainCodec {
        @Bean
        @ConditionalOnMissingBean
        PayloadCodec echomqPayloadCodec() {
            return new PlainPayloadCodec();
        }
    }
}
