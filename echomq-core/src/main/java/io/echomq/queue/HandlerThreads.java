package io.echomq.queue;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one place that chooses where a worker's handlers run when the user gives no executor:
 * a virtual thread per job when the JVM has them (Java 21+; looked up reflectively because the
 * library is built for Java 17), else a fixed pool of {@code concurrency} daemon threads.
 */
final class HandlerThreads {
    private HandlerThreads() {
    }

    /** @return a new executor for the handlers of the worker {@code name}; the worker shuts it down */
    static ExecutorService create(String name, int concurrency) {
        try {
            Method m = Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
            return (ExecutorService) m.invoke(null);
        } catch (ReflectiveOperationException | RuntimeException noVirtualThreads) {
            AtomicInteger n = new AtomicInteger();
            return Executors.newFixedThreadPool(concurrency, r -> {
                Thread t = new Thread(r, name + "-handler-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
    }
}
