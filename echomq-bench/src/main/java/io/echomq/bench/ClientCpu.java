package io.echomq.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * This JVM's CPU time over a phase, fine enough for a phase of a few milliseconds. Its duties:
 *
 * <ol>
 *   <li>{@link #read}: take the process clock and, where Linux offers it, each thread's own
 *       nanosecond clock ({@code /proc/self/task/<tid>/schedstat}, first field);</li>
 *   <li>{@link #nanosSince}: the CPU the whole JVM spent since an earlier reading;</li>
 *   <li>{@link #switchesBetween}: how often its threads were switched onto a CPU in between
 *       ({@code schedstat}'s third field, the count of time slices a thread ran), the context switches
 *       a worker's hand-offs cost.</li>
 * </ol>
 *
 * <p>Why not the process clock alone: on Linux the JDK's
 * {@code OperatingSystemMXBean#getProcessCpuTime} counts in clock ticks of 10 ms, so a bulk
 * enqueue of a few thousand jobs, a few milliseconds of CPU, reads 0 or 10 ms. The threads' own
 * clocks count in nanoseconds and cover every thread of the process, the garbage collector's and
 * the JIT compiler's included. What they miss is a thread that ended within the phase; the process
 * clock still counts it. So the figure is {@code max(threads, process − one tick)}: both are at
 * most the true CPU (the process clock's delta is within one tick of it), the threads' figure is
 * exact when no thread ended in the phase, and the process clock bounds the loss to two ticks
 * when one did. Where {@code /proc} is not there (not Linux) the process clock alone is used.
 */
final class ClientCpu {
    /** Linux's user-space clock tick ({@code USER_HZ} is 100 on every Linux ABI). */
    static final long TICK_NANOS = 10_000_000L;
    private static final Path TASKS = Path.of("/proc/self/task");

    private ClientCpu() {
    }

    /**
     * One reading of the clocks.
     *
     * @param processNanos the process clock, -1 where the platform does not say
     * @param threadNanos each thread's CPU ns by its id, null where {@code /proc} is not readable
     * @param threadRuns  each thread's count of time slices run (times switched onto a CPU) by its id, null where
     *                    {@code /proc} is not readable
     */
    record Reading(long processNanos, Map<Long, Long> threadNanos, Map<Long, Long> threadRuns) {
        /** A reading without the threads' run counts. */
        Reading(long processNanos, Map<Long, Long> threadNanos) {
            this(processNanos, threadNanos, null);
        }
    }

    /** @return the clocks now */
    static Reading read() {
        Map<Long, Long> nanos = new HashMap<>();
        Map<Long, Long> runs = new HashMap<>();
        boolean read = readThreads(nanos, runs);
        return new Reading(processNanos(), read ? nanos : null, read ? runs : null);
    }

    /**
     * @param start the earlier reading
     * @param end the later reading
     * @return the times this JVM's threads were switched onto a CPU in between: each thread alive at
     *     {@code end} counts its delta (a thread born in the phase counts whole; one that ended in it is
     *     missed), -1 when either reading has no run counts
     */
    static long switchesBetween(Reading start, Reading end) {
        if (start.threadRuns() == null || end.threadRuns() == null) {
            return -1;
        }
        long runs = 0;
        for (Map.Entry<Long, Long> t : end.threadRuns().entrySet()) {
            runs += t.getValue() - start.threadRuns().getOrDefault(t.getKey(), 0L);
        }
        return runs;
    }

    /**
     * @param start an earlier reading of this JVM
     * @return the CPU ns this JVM spent since {@code start}, -1 when neither clock is available
     */
    static long nanosSince(Reading start) {
        return between(start, read());
    }

    /**
     * @param start the earlier reading
     * @param end the later reading
     * @return {@code max(threads, process − one tick)} as the class comment says, the process
     *     delta alone when either reading has no threads, -1 when neither clock is available
     */
    static long between(Reading start, Reading end) {
        long process = end.processNanos() < 0 || start.processNanos() < 0 ? -1
                : end.processNanos() - start.processNanos();
        if (end.threadNanos() == null || start.threadNanos() == null) {
            return process;
        }
        long threads = 0;
        for (Map.Entry<Long, Long> t : end.threadNanos().entrySet()) {
            threads += t.getValue() - start.threadNanos().getOrDefault(t.getKey(), 0L);
        }
        return process < 0 ? threads : Math.max(threads, process - TICK_NANOS);
    }

    /** @return this JVM's process CPU time in ns, or -1 where the platform does not say */
    static long processNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /**
     * Reads each live thread's {@code schedstat}: its CPU ns (first field) into {@code nanos} and its time slices
     * run (third field) into {@code runs}, by thread id.
     *
     * @return false where {@code /proc/self/task} is not there or not readable, or no thread could be read
     */
    private static boolean readThreads(Map<Long, Long> nanos, Map<Long, Long> runs) {
        if (!Files.isDirectory(TASKS)) {
            return false;
        }
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                long[] fields = schedstat(task.resolve("schedstat"));
                if (fields != null) {
                    long id = Long.parseLong(task.getFileName().toString());
                    nanos.put(id, fields[0]);
                    runs.put(id, fields[2]);
                }
            }
        } catch (IOException | DirectoryIteratorException | NumberFormatException e) {
            return false;
        }
        return !nanos.isEmpty();
    }

    /**
     * @return the three numbers of a {@code schedstat} file (CPU ns, ns waiting to run, time slices run), or null
     *     when it cannot be read (its thread ended)
     * @throws NumberFormatException if the file does not hold three numbers
     */
    static long[] schedstat(Path file) {
        String text;
        try {
            text = new String(Files.readAllBytes(file), StandardCharsets.US_ASCII).trim();
        } catch (IOException ended) {
            return null;
        }
        return parseSchedstat(text);
    }

    /**
     * @param text a {@code schedstat} line: {@code <cpu ns> <wait ns> <slices>}
     * @return its three numbers
     * @throws NumberFormatException if it does not hold three numbers
     */
    static long[] parseSchedstat(String text) {
        String[] parts = text.trim().split("\\s+");
        if (parts.length < 3) {
            throw new NumberFormatException("a schedstat line has three numbers, was: " + text);
        }
        return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2])};
    }
}
