package io.echomq.queue;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one place that chooses where a worker's handlers run when the user gives no executor:
 * a virtual thread per run ({@link Runs}: a job, or several run back to back) when the JVM has them (Java 21+), else a fixed pool of
 * {@code concurrency} daemon threads. Either way each thread is named
 * {@code <worker>-handler-<n>}, n counting from 1, so that a log line or a thread dump says which
 * worker a handler serves.
 *
 * <p>The Java 21 API ({@code Thread.ofVirtual().name(prefix, 1).factory()} and
 * {@code Executors.newThreadPerTaskExecutor}) is reached reflectively: the library is built and
 * tested with a JDK 17 compiler, which cannot compile a Java 21 part (a multi-release jar would
 * need a JDK 21+ compiler for every build).
 */
final class HandlerThreads {
    private HandlerThreads() {
    }

    /** @return a new executor for the handlers of the worker {@code name}; the worker shuts it down */
    static ExecutorService create(String name, int concurrency) {
        String prefix = name + "-handler-";
        ThreadFactory virtual = virtualThreadFactory(prefix);
        if (virtual != null) {
            return newThreadPerTaskExecutor(virtual);
        }
        AtomicInteger n = new AtomicInteger();
        return Executors.newFixedThreadPool(concurrency, r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * @return {@code Thread.ofVirtual().name(prefix, 1).factory()}, or null when this JVM has no
     *     virtual threads: Java 17 lacks the method, and Java 19 and 20 refuse it unless preview
     *     features are enabled
     */
    private static ThreadFactory virtualThreadFactory(String prefix) {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
            builder = ofVirtual.getMethod("name", String.class, long.class).invoke(builder, prefix, 1L);
            return (ThreadFactory) ofVirtual.getMethod("factory").invoke(builder);
        } catch (ReflectiveOperationException | RuntimeException noVirtualThreads) {
            return null;
        }
    }

    /** {@code Executors.newThreadPerTaskExecutor(factory)}, which exists wherever the factory does. */
    private static ExecutorService newThreadPerTaskExecutor(ThreadFactory factory) {
        try {
            return (ExecutorService) Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class)
                    .invoke(null, factory);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this JVM has virtual threads but no Executors.newThreadPerTaskExecutor", e);
        }
    }
}
