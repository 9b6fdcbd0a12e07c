package io.echomq.bench;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * What one operation costs this JVM, measured around N calls of it on one thread.
 *
 * <ol>
 *   <li>Bytes allocated per call: by the calling thread, and by every thread of the JVM (the
 *       client's event loop decodes replies and completes futures on its own thread)
 *       ({@code com.sun.management.ThreadMXBean}). Deterministic enough to steer by on a loaded
 *       machine: it does not depend on how the cores are shared.</li>
 *   <li>Process CPU µs per call (every thread's clock, {@link ClientCpu}), minus the
 *       process's idle CPU rate over the same wall time, measured just before with nothing
 *       running. It does depend on the machine's load (caches, frequency), so it is printed
 *       with the load average.</li>
 *   <li>Objects per call by class, only when the JVM runs with Epsilon (no collection):
 *       {@code GC.class_histogram -all} before and after, whose difference is every object the
 *       calls allocated, garbage included.</li>
 * </ol>
 */
final class PairCost {
    /** One measurement of N calls. */
    record Figures(long calls, double threadBytesPerCall, double totalBytesPerCall, double cpuMicrosPerCall,
                   double wallMicrosPerCall, double loadAverage, Map<String, Double> objectsPerCall) {
        /** @return the objects per call of every class, summed; NaN without a histogram */
        double objectsPerCallTotal() {
            return objectsPerCall.isEmpty() ? Double.NaN
                    : objectsPerCall.values().stream().mapToDouble(Double::doubleValue).sum();
        }
    }

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private PairCost() {
    }

    /** @return whether this JVM never collects garbage, so a class histogram counts every allocation */
    static boolean histogramCountsAll() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream().anyMatch(g -> g.getName().startsWith("Epsilon"));
    }

    /**
     * Runs {@code op} {@code calls} times on this thread and returns what it cost.
     *
     * @param idleMillis how long to measure the idle CPU rate first (0: no subtraction)
     */
    static Figures measure(Runnable op, long calls, long idleMillis, boolean histogram) throws Exception {
        double idleCpuPerNano = idleRate(idleMillis);
        Map<String, long[]> before = histogram ? histogram() : Map.of();
        long tid = Thread.currentThread().getId();
        long thread0 = THREADS.getThreadAllocatedBytes(tid);
        long total0 = THREADS.getTotalThreadAllocatedBytes();
        ClientCpu.Reading cpu0 = ClientCpu.read();
        long wall0 = System.nanoTime();
        for (long i = 0; i < calls; i++) {
            op.run();
        }
        long wall = System.nanoTime() - wall0;
        long cpu = ClientCpu.nanosSince(cpu0);
        long total = THREADS.getTotalThreadAllocatedBytes() - total0;
        long thread = THREADS.getThreadAllocatedBytes(tid) - thread0;
        Map<String, Double> objects = new LinkedHashMap<>();
        if (histogram) {
            Map<String, long[]> after = histogram();
            after.entrySet().stream()
                    .map(e -> Map.entry(e.getKey(), e.getValue()[0] - before.getOrDefault(e.getKey(), new long[2])[0]))
                    .filter(e -> e.getValue() >= calls / 2)   // at least one object every other call
                    .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                    .forEach(e -> objects.put(e.getKey(), (double) e.getValue() / calls));
        }
        double cpuNet = Math.max(0, cpu - idleCpuPerNano * wall);
        return new Figures(calls, (double) thread / calls, (double) total / calls,
                cpuNet / 1000.0 / calls, wall / 1000.0 / calls, OS.getSystemLoadAverage(), objects);
    }

    /** @return this process's CPU nanoseconds per wall nanosecond while the caller sleeps */
    private static double idleRate(long millis) {
        if (millis <= 0) {
            return 0;
        }
        ClientCpu.Reading cpu0 = ClientCpu.read();
        long wall0 = System.nanoTime();
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
        return (double) ClientCpu.nanosSince(cpu0) / (System.nanoTime() - wall0);
    }

    /** @return class name to {instances, bytes}, over every object in the heap, reachable or not */
    private static Map<String, long[]> histogram() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        String text = (String) server.invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"),
                "gcClassHistogram", new Object[] {new String[] {"-all"}}, new String[] {String[].class.getName()});
        Map<String, long[]> counts = new TreeMap<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            // "   1:   12345   678900  java.lang.String (java.base@17)"
            if (f.length >= 4 && f[0].endsWith(":")) {
                counts.put(f[3], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
            }
        }
        return counts;
    }
}
