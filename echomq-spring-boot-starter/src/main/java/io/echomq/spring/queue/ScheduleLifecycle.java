package io.echomq.spring.queue;

import io.echomq.queue.QueueClient;
import io.echomq.queue.ScheduleInfo;
import io.echomq.queue.Schedules;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Stores the {@link EchoSchedule}s when the application context starts, in the phase just before
 * the workers' ({@link WorkerLifecycle#PHASE}), so that a worker's first maintenance already
 * fires them. Each is an upsert, which keeps the stored next fire time when nothing changed: any
 * number of instances starting together store each schedule once and skip no fire time.
 *
 * <p>With {@code removeUnknown}, it then removes every schedule of the queues that have a
 * handler in this application that no annotation names. Redis keeps no owner per schedule, so the
 * scope is the queue: schedules made by code or the CLI on those queues are removed too. Nothing
 * is done at stop: the schedules outlive the application, as they are meant to.
 */
public final class ScheduleLifecycle implements SmartLifecycle {
    /** The lifecycle phase: just before the workers start. */
    public static final int PHASE = WorkerLifecycle.PHASE - 1;

    private static final Logger LOG = LoggerFactory.getLogger(ScheduleLifecycle.class);

    private final JobHandlerRegistry registry;
    private final QueueClient client;
    private final boolean removeUnknown;
    private volatile boolean running;

    /**
     * @param registry      the handler methods and their schedules, checked
     * @param client        where the schedules are stored
     * @param removeUnknown whether schedules no annotation names are removed from the handlers' queues
     */
    public ScheduleLifecycle(JobHandlerRegistry registry, QueueClient client, boolean removeUnknown) {
        this.registry = registry;
        this.client = client;
        this.removeUnknown = removeUnknown;
    }

    /**
     * Upserts every declared schedule, then removes the unknown ones if asked.
     *
     * @throws io.echomq.RedisCommandException if Redis fails, which fails startup
     */
    @Override
    public void start() {
        for (ScheduleDeclaration d : registry.schedules()) {
            ScheduleInfo stored = client.schedules(d.queue()).upsert(d.schedule());
            LOG.info("schedule '{}' on '{}': {}, next fire {}", d.schedule().id(), d.queue(), d.schedule().spec(),
                    stored.nextFire().map(Object::toString).orElse("never"));
        }
        if (removeUnknown) {
            for (String queue : registry.queues()) {
                Set<String> declared = registry.schedules().stream().filter(d -> d.queue().equals(queue))
                        .map(d -> d.schedule().id()).collect(Collectors.toSet());
                Schedules schedules = client.schedules(queue);
                List<String> unknown = schedules.list().stream().map(i -> i.schedule().id())
                        .filter(id -> !declared.contains(id)).toList();
                for (String id : unknown) {
                    if (schedules.remove(id)) {
                        LOG.info("schedule '{}' on '{}' removed: no @EchoSchedule names it "
                                + "(echomq.schedules.remove-unknown=true)", id, queue);
                    }
                }
            }
        }
        running = true;
    }

    /** Leaves the schedules stored: they fire whether or not this application runs. */
    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
