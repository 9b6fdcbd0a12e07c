package io.echomq.spring.observe;

import io.echomq.Names;
import io.echomq.micrometer.EchoMQMetrics;
import io.echomq.queue.QueueClient;
import io.echomq.spring.EchoMQProperties;
import io.echomq.spring.InvalidEchoMQPropertyException;
import io.echomq.spring.queue.JobHandlerRegistry;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Registers, once every singleton is made, the meters of every queue the application is known to
 * use, so that they are exported at 0 from startup rather than from each queue's first job in
 * this process (a dashboard's "no data" and a {@code rate()} alert with nothing to read):
 * {@link EchoMQMetrics#registerQueue} for the event meters and, with the context's
 * {@link QueueClient}, {@link EchoMQMetrics#monitor} for the state gauges (the queue opened as it
 * is stored, so a sharded queue reads all its partitions).
 *
 * <p>It runs in {@link #afterSingletonsInstantiated()}: by then the handler registry has seen
 * every bean, and no worker has started (workers start with the context's lifecycle, later).
 * The queues are those of the {@code @EchoJobHandler} methods, then {@code echomq.health.queues},
 * then {@code echomq.metrics.queues}, each once.
 */
final class StartupQueueMeters implements SmartInitializingSingleton {
    private final ObjectProvider<EchoMQMetrics> metrics;
    private final ObjectProvider<QueueClient> client;
    private final ObjectProvider<JobHandlerRegistry> handlers;
    private final ObjectProvider<EchoMQProperties> properties;

    StartupQueueMeters(ObjectProvider<EchoMQMetrics> metrics, ObjectProvider<QueueClient> client,
                       ObjectProvider<JobHandlerRegistry> handlers, ObjectProvider<EchoMQProperties> properties) {
        this.metrics = metrics;
        this.client = client;
        this.handlers = handlers;
        this.properties = properties;
    }

    @Override
    public void afterSingletonsInstantiated() {
        EchoMQMetrics m = metrics.getObject();
        QueueClient queues = client.getIfAvailable();
        for (String queue : queues()) {
            m.registerQueue(queue);
            if (queues != null) {
                m.monitor(queues.open(queue));
            }
        }
    }

    /**
     * @return each known queue once, in the order above
     * @throws InvalidEchoMQPropertyException if a configured name is invalid
     */
    Set<String> queues() {
        Set<String> all = new LinkedHashSet<>();
        handlers.ifAvailable(r -> all.addAll(r.queues()));
        EchoMQProperties p = properties.getIfAvailable();
        if (p != null) {
            add(all, "echomq.health.queues", p.getHealth().getQueues());
            add(all, "echomq.metrics.queues", p.getMetrics().getQueues());
        }
        return all;
    }

    private static void add(Set<String> all, String property, List<String> names) {
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            try {
                Names.queue(name);
            } catch (IllegalArgumentException e) {
                throw new InvalidEchoMQPropertyException(property + "[" + i + "]", String.valueOf(e.getMessage()));
            }
            all.add(name);
        }
    }
}
