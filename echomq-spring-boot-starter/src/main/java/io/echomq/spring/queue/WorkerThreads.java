package io.echomq.spring.queue;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.core.env.Environment;

/**
 * Where the handlers of the starter's workers run, chosen once from Spring Boot's own switch,
 * {@code spring.threads.virtual.enabled}, so that it covers EchoMQ's handlers as it covers Boot's
 * executors, scheduler and web server:
 * <ul>
 *   <li>{@code true} on a JVM with virtual threads (Java 21+): a virtual thread per run of jobs;</li>
 *   <li>{@code true} on a JVM without them (Java 17): platform threads, as below, and a
 *       {@link #notice()} saying why, which {@link WorkerLifecycle} logs once at INFO;</li>
 *   <li>{@code false} or absent, Boot's default: a pool of {@code concurrency} platform daemon
 *       threads. The core's worker alone would pick virtual threads whenever the JVM has them;
 *       the starter passes its own executor so that the property, not the JVM, decides.</li>
 * </ul>
 * Threads are named {@code emq-handler-<queue>-<n>}. Virtual threads are reached reflectively,
 * because the starter is built for Java 17. The worker does not shut down an executor it is given,
 * so {@link WorkerLifecycle} shuts each one down after its worker.
 */
public final class WorkerThreads {
    /** Spring Boot's property, read as Boot reads it: absent is false. */
    public static final String PROPERTY = "spring.threads.virtual.enabled";

    private final boolean virtual;
    private final String notice;

    /**
     * @param wanted whether {@link #PROPERTY} is true
     * @param jvmHasVirtualThreads whether this JVM has virtual threads
     */
    WorkerThreads(boolean wanted, boolean jvmHasVirtualThreads) {
        this.virtual = wanted && jvmHasVirtualThreads;
        this.notice = wanted && !jvmHasVirtualThreads
                ? "EchoMQ handlers run on platform threads: " + PROPERTY + "=true, but this JVM (Java "
                        + Runtime.version().feature() + ") has no virtual threads; they need Java 21 or later"
                : null;
    }

    /**
     * @param environment where {@link #PROPERTY} is read
     * @return the choice for this application on this JVM
     * @throws org.springframework.core.convert.ConversionFailedException if the property is set but
     *     is not a boolean (Spring Boot's own task executors refuse it the same way)
     */
    public static WorkerThreads from(Environment environment) {
        return new WorkerThreads(environment.getProperty(PROPERTY, Boolean.class, false), jvmHasVirtualThreads());
    }

    /** @return whether this JVM has virtual threads (Java 21+) */
    static boolean jvmHasVirtualThreads() {
        try {
            Thread.class.getMethod("ofVirtual");
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    /** @return whether handlers run on virtual threads */
    public boolean virtual() {
        return virtual;
    }

    /** @return why the property asked for virtual threads and got platform threads, or null when it did not */
    public String notice() {
        return notice;
    }

    /**
     * @param queue the worker's queue, for the thread names
     * @param concurrency the worker's concurrency: the size of a platform pool
     * @return a new executor for one worker's handlers; the caller shuts it down
     */
    ExecutorService create(String queue, int concurrency) {
        String prefix = "emq-handler-" + queue + "-";
        return virtual ? virtualThreadPerTask(prefix) : platformPool(prefix, concurrency);
    }

    private static ExecutorService platformPool(String prefix, int concurrency) {
        AtomicInteger n = new AtomicInteger();
        return Executors.newFixedThreadPool(concurrency, r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** {@code Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name(prefix, 1).factory())}, reflectively. */
    private static ExecutorService virtualThreadPerTask(String prefix) {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
            builder = ofVirtual.getMethod("name", String.class, long.class).invoke(builder, prefix, 1L);
            ThreadFactory factory = (ThreadFactory) ofVirtual.getMethod("factory").invoke(builder);
            Method perTask = Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class);
            return (ExecutorService) perTask.invoke(null, factory);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("virtual threads were found on this JVM but could not be created", e);
        }
    }
}
