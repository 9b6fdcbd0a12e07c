package io.echomq.spring.queue;

import io.echomq.Names;
import io.echomq.queue.JobHandler;
import io.echomq.queue.Queue;
import io.echomq.queue.Worker;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Finds the {@link EchoJobHandler} methods of every bean as it is created and checks them: queue
 * name, concurrency, lease, parameters. A mistake fails the bean's creation, so startup, with the
 * method named. {@link WorkerLifecycle} starts the workers; the health indicator reads the queues.
 */
public final class JobHandlerRegistry implements BeanPostProcessor {
    /** One checked handler method and its worker settings. */
    record Registration(String queue, int concurrency, Duration lease, String retryPolicy, HandlerMethod handler) {
    }

    private final ConfigurableBeanFactory beanFactory;
    private final Supplier<PayloadCodec> codec;
    private final List<Registration> registrations = new CopyOnWriteArrayList<>();
    private final List<ScheduleDeclaration> schedules = new CopyOnWriteArrayList<>();

    /**
     * @param beanFactory resolves {@code ${...}} placeholders
     * @param codec the payload codec, looked up when the first handler is found
     */
    public JobHandlerRegistry(ConfigurableBeanFactory beanFactory, Supplier<PayloadCodec> codec) {
        this.beanFactory = beanFactory;
        this.codec = codec;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = AopUtils.getTargetClass(bean);
        Map<Method, EchoJobHandler> found = MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<EchoJobHandler>) m ->
                        AnnotatedElementUtils.findMergedAnnotation(m, EchoJobHandler.class));
        found.forEach((method, annotation) -> {
            Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
            Registration r = register(bean, invocable, method, annotation);
            registrations.add(r);
            EchoSchedule schedule = AnnotatedElementUtils.findMergedAnnotation(method, EchoSchedule.class);
            if (schedule != null) {
                declare(ScheduleDeclaration.of(schedule, r.queue(), r.handler().describe(),
                        beanFactory::resolveEmbeddedValue), r.handler().describe());
            }
        });
        MethodIntrospector.selectMethods(type, (MethodIntrospector.MetadataLookup<EchoSchedule>) m ->
                AnnotatedElementUtils.findMergedAnnotation(m, EchoSchedule.class)).keySet().forEach(m -> {
                    if (!found.containsKey(m)) {
                        throw new IllegalStateException("@EchoSchedule on " + type.getName() + "." + m.getName()
                                + ": the method has no @EchoJobHandler; put the schedule on the handler of its queue");
                    }
                });
        return bean;
    }

    private Registration register(Object bean, Method invocable, Method declared, EchoJobHandler a) {
        HandlerMethod handler = new HandlerMethod(bean, invocable, codec.get());
        String queue = beanFactory.resolveEmbeddedValue(a.queue());
        try {
            Names.queue(queue);
        } catch (IllegalArgumentException e) {
            throw handler.fail("queue: " + e.getMessage());
        }
        if (a.concurrency() < 1 || a.concurrency() > Worker.MAX_CONCURRENCY) {
            throw handler.fail("concurrency must be 1.." + Worker.MAX_CONCURRENCY + ", was " + a.concurrency());
        }
        String leaseText = beanFactory.resolveEmbeddedValue(a.lease());
        Duration lease;
        try {
            lease = DurationStyle.detectAndParse(leaseText);
        } catch (RuntimeException e) {
            throw handler.fail("lease '" + leaseText + "' is not a duration (30s, 500ms, PT2M)");
        }
        if (lease.compareTo(Queue.MIN_LEASE) < 0 || lease.compareTo(Queue.MAX_LEASE) > 0) {
            throw handler.fail("lease must be " + Queue.MIN_LEASE.toMillis() + " ms to 1 day, was " + lease);
        }
        return new Registration(queue, a.concurrency(), lease, a.retryPolicy(), handler);
    }

    private synchronized void declare(ScheduleDeclaration d, String method) {
        for (ScheduleDeclaration other : schedules) {
            if (other.queue().equals(d.queue()) && other.schedule().id().equals(d.schedule().id())) {
                throw new IllegalStateException("@EchoSchedule on " + method + ": name: '" + d.schedule().id()
                        + "' is declared twice on queue '" + d.queue() + "'");
            }
        }
        schedules.add(d);
    }

    /** @return every {@link EchoSchedule} found so far, checked, in the order found */
    List<ScheduleDeclaration> schedules() {
        return List.copyOf(schedules);
    }

    /** @return every handler method found so far, in the order found */
    List<Registration> registrations() {
        return List.copyOf(registrations);
    }

    /**
     * The handlers of one queue, each adapting its {@link EchoJobHandler} method as the queue's worker
     * runs it (the payload decoded by the application's codec, the exception passed on unwrapped), for
     * a tool that runs jobs outside a worker, such as a test's inline drain.
     *
     * @param queue the queue's name, as resolved
     * @return the handlers found so far for it, in the order found; empty when it has none
     */
    public List<JobHandler> handlers(String queue) {
        return registrations.stream().filter(r -> r.queue().equals(queue)).map(r -> (JobHandler) r.handler()).toList();
    }

    /** @return the queues that have a handler, each once */
    public List<String> queues() {
        return registrations.stream().map(Registration::queue).distinct().toList();
    }
}
