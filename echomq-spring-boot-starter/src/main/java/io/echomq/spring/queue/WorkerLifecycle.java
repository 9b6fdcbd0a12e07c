package io.echomq.spring.queue;

import io.echomq.queue.QueueClient;
import io.echomq.queue.RetryPolicy;
import io.echomq.queue.Worker;
import io.echomq.spring.EchoMQProperties;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
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
 * <p>Each worker's handlers run on an executor of its own from {@link WorkerThreads}: virtual
 * threads when {@code spring.threads.virtual.enabled} is true on Java 21+, else platform threads;
 * it is shut down after its worker.
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
    private final WorkerThreads threads;
    private final Map<Worker, ExecutorService> workers = new LinkedHashMap<>();   // guarded by this; each with its handlers' executor
    private volatile boolean running;

    /**
     * @param registry the handler methods found
     * @param client the queue client the workers run on
     * @param properties the worker settings, already checked
     * @param beanFactory where named retry policies are looked up
     * @param threads where the handlers run
     */
    public WorkerLifecycle(JobHandlerRegistry registry, QueueClient client, EchoMQProperties properties, BeanFactory beanFactory,
                           WorkerThreads threads) {
        this.registry = registry;
        this.client = client;
        this.properties = properties;
        this.beanFactory = beanFactory;
        this.threads = threads;
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
        List<JobHandlerRegistry.Registration> registrations = registry.registrations();
        if (!registrations.isEmpty() && threads.notice() != null) {
            LOG.info(threads.notice());
        }
        try {
            for (JobHandlerRegistry.Registration r : registrations) {
                ExecutorService executor = threads.create(r.queue(), r.concurrency());
                try {
                    Worker.Builder b = client.worker(r.queue(), r.handler()).concurrency(r.concurrency()).lease(r.lease())
                            .shutdownGrace(w.getShutdownGrace()).maintenanceInterval(w.getMaintenanceInterval())
                            .idlePoll(w.getIdlePoll()).interruptHandlers(w.isInterruptHandlers()).executor(executor);
                    if (w.getName() != null) {
                        b.name(w.getName());
                    }
                    if (!r.retryPolicy().isEmpty()) {
                        b.retryPolicy(beanFactory.getBean(r.retryPolicy(), RetryPolicy.class));
                    }
                    workers.put(b.start(), executor);
                } catch (RuntimeException e) {
                    executor.shutdownNow();
                    throw e;
                }
                LOG.debug("started a worker on '{}' for {}, on {} threads", r.queue(), r.handler().describe(),
                        threads.virtual() ? "virtual" : "platform");
            }
        } catch (RuntimeException e) {
            shutdownAll();
            throw e;
        }
        running = true;
    }

    @Override
    public void stop(Runnable callback) {
        Map<Worker, ExecutorService> stopping;
        synchronized (this) {
            running = false;
            stopping = Map.copyOf(workers);
            workers.clear();
        }
        CompletableFuture.runAsync(() -> shutdown(stopping)).whenComplete((ok, error) -> callback.run());
    }

    @Override
    public void stop() {
        Map<Worker, ExecutorService> stopping;
        synchronized (this) {
            running = false;
            stopping = Map.copyOf(workers);
            workers.clear();
        }
        shutdown(stopping);
    }

    private synchronized void shutdownAll() {
        shutdown(Map.copyOf(workers));
        workers.clear();
    }

    /**
     * Shuts the workers down in parallel, so the grace is spent once, not once per worker, and
     * then each one's executor, which a worker leaves running when it was given one. A handler still
     * running then is interrupted only with {@code echomq.worker.interrupt-handlers}: otherwise it
     * runs to its end, so that a pooled connection it holds is not broken under it.
     */
    private void shutdown(Map<Worker, ExecutorService> stopping) {
        var grace = properties.getWorker().getShutdownGrace();
        boolean interrupt = properties.getWorker().isInterruptHandlers();
        CompletableFuture.allOf(stopping.entrySet().stream()
                .map(e -> CompletableFuture.runAsync(() -> {
                    try {
                        e.getKey().shutdown(grace);
                    } finally {
                        if (interrupt) {
                            e.getValue().shutdownNow();
                        } else {
                            e.getValue().shutdown();
                        }
                    }
                }, r -> {
                    Thread t = new Thread(r, "emq-stop-" + e.getKey().queueName());
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
        return List.copyOf(workers.keySet());
    }
}
