package io.echomq.spring.queue;

import io.echomq.queue.QueueClient;
import io.echomq.queue.RetryPolicy;
import io.echomq.queue.Worker;
import io.echomq.spring.EchoMQProperties;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Starts one {@link Worker} per {@link EchoJobHandler} method when the application context
 * starts, and shuts them all down together when it stops: each stops claiming, waits up to
 * {@code echomq.worker.shutdown-grace} for its running jobs, then gives the rest back without
 * spending their attempt. Spring waits for that within its
 * {@code spring.lifecycle.timeout-per-shutdown-phase}.
 *
 * <p>Its phase, {@link #PHASE}, is below the web server's, so workers start before the server
 * takes requests and stop after it has drained them.
 */
public final class WorkerLifecycle implements SmartLifecycle {
    /** The lifecycle phase: earlier than Spring Boot's web server lifecycles. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private static final Logger LOG = LoggerFactory.getLogger(WorkerLifecycle.class);

    private final JobHandlerRegistry registry;
    private final QueueClient client;
    private final EchoMQProperties properties;
    private final BeanFactory beanFactory;
    private final List<Worker> workers = new ArrayList<>();   // guarded by this
    private volatile boolean running;

    /**
     * @param registry the handler methods found
     * @param client the queue client the workers run on
     * @param properties the worker settings, already checked
     * @param beanFactory where named retry policies are looked up
     */
    public WorkerLifecycle(JobHandlerRegistry registry, QueueClient client, EchoMQProperties properties, BeanFactory beanFactory) {
        this.registry = registry;
        this.client = client;
        this.properties = properties;
        this.beanFactory = beanFactory;
    }

    /**
     * @throws IllegalStateException if a handler names a retry policy bean that does not exist
     * @throws io.echomq.RedisCommandException if a worker cannot subscribe; the workers already
     *     started are shut down first
     */
    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        EchoMQProperties.WorkerProperties w = properties.getWorker();
        try {
            for (JobHandlerRegistry.Registration r : registry.registrations()) {
                Worker.Builder b = client.worker(r.queue(), r.handler()).concurrency(r.concurrency()).lease(r.lease())
                        .shutdownGrace(w.getShutdownGrace()).maintenanceInterval(w.getMaintenanceInterval())
                        .idlePoll(w.getIdlePoll());
                if (!r.retryPolicy().isEmpty()) {
                    b.retryPolicy(beanFactory.getBean(r.retryPolicy(), RetryPolicy.class));
                }
                workers.add(b.start());
                LOG.debug("started a worker on '{}' for {}", r.queue(), r.handler().describe());
            }
        } catch (RuntimeException e) {
            shutdownAll();
            throw e;
        }
        running = true;
    }

    @Override
    public void stop(Runnable callback) {
        List<Worker> stopping;
        synchronized (this) {
            running = false;
            stopping = List.copyOf(workers);
            workers.clear();
        }
        CompletableFuture.runAsync(() -> shutdown(stopping)).whenComplete((ok, error) -> callback.run());
    }

    @Override
    public void stop() {
        List<Worker> stopping;
        synchronized (this) {
            running = false;
            stopping = List.copyOf(workers);
            workers.clear();
        }
        shutdown(stopping);
    }

    private synchronized void shutdownAll() {
        shutdown(List.copyOf(workers));
        workers.clear();
    }

    /** Shuts the workers down in parallel, so the grace is spent once, not once per worker. */
    private void shutdown(List<Worker> stopping) {
        var grace = properties.getWorker().getShutdownGrace();
        CompletableFuture.allOf(stopping.stream()
                .map(worker -> CompletableFuture.runAsync(() -> worker.shutdown(grace), r -> {
                    Thread t = new Thread(r, "emq-stop-" + worker.queueName());
                    t.setDaemon(true);
                    t.start();
                }))
                .toArray(CompletableFuture[]::new)).join();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** @return the workers running now, for tests and tools */
    public synchronized List<Worker> workers() {
        return List.copyOf(workers);
    }
}
