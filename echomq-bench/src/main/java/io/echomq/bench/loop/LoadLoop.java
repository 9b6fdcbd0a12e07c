package io.echomq.bench.loop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one operation in a closed loop on N platform threads: a warm-up whose results are dropped,
 * then a measured window. Each call of the operation is one sample; the operation returns the
 * latency it wants recorded (for a lock: the acquire, not the release).
 *
 * <p>This class has no dependency beyond the JDK, so the Redisson peer (its own JVM, on Netty 4.1)
 * measures with exactly the same loop as our side.
 */
public final class LoadLoop {
    /** One operation of the loop. */
    @FunctionalInterface
    public interface Op {
        /**
         * Runs once.
         *
         * @param thread the index of the calling thread, 0..threads-1
         * @return the latency to record, in nanoseconds
         * @throws Exception to stop the loop; the run then fails with it
         */
        long run(int thread) throws Exception;
    }

    private LoadLoop() {
    }

    /**
     * Runs {@code op} on {@code threads} threads for {@code warmup}, then for {@code measure}.
     *
     * @return the operations completed in the measured window and their latencies
     * @throws IllegalArgumentException if threads is below 1, or a duration is null or negative
     *     (the measured window must be positive)
     * @throws IllegalStateException if an operation threw; its exception is the cause
     * @throws InterruptedException if the calling thread is interrupted
     */
    public static Stats run(int threads, Duration warmup, Duration measure, Op op) throws InterruptedException {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, was " + threads);
        }
        if (warmup == null || warmup.isNegative() || measure == null || measure.isNegative() || measure.isZero()) {
            throw new IllegalArgumentException("warmup must be >= 0 and measure > 0, were " + warmup + ", " + measure);
        }
        Samples[] samples = new Samples[threads];
        long[] counts = new long[threads];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(threads);
        List<Thread> workers = new ArrayList<>(threads);
        Phase shared = new Phase();   // 0 = warm-up, 1 = measuring, 2 = stop
        for (int t = 0; t < threads; t++) {
            int index = t;
            samples[t] = new Samples();
            Thread w = new Thread(() -> {
                try {
                    Samples mine = samples[index];
                    long n = 0;
                    while (true) {
                        int p = shared.value;
                        if (p == 2) {
                            break;
                        }
                        long latency = op.run(index);
                        if (p == 1 && shared.value == 1) {
                            mine.add(latency);
                            n++;
                        }
                    }
                    counts[index] = n;
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    shared.value = 2;
                } finally {
                    done.countDown();
                }
            }, "bench-" + t);
            w.setDaemon(true);
            workers.add(w);
        }
        workers.forEach(Thread::start);
        sleepUnlessFailed(warmup, failure);
        long start = System.nanoTime();
        if (shared.value == 0) {
            shared.value = 1;
        }
        sleepUnlessFailed(measure, failure);
        shared.value = 2;
        long elapsed = System.nanoTime() - start;
        if (!done.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the loop's threads did not stop within 60 s of the end");
        }
        if (failure.get() != null) {
            throw new IllegalStateException("an operation failed: " + failure.get(), failure.get());
        }
        long ops = 0;
        Samples all = new Samples();
        for (int t = 0; t < threads; t++) {
            ops += counts[t];
            all.addAll(samples[t]);
        }
        return new Stats(ops, elapsed, all.sorted());
    }

    private static void sleepUnlessFailed(Duration d, AtomicReference<Throwable> failure) throws InterruptedException {
        long end = System.nanoTime() + d.toNanos();
        long left;
        while ((left = end - System.nanoTime()) > 0 && failure.get() == null) {
            TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
        }
    }

    private static final class Phase {
        volatile int value;
    }

    /** A growable array of longs: no boxing on the measured path. */
    private static final class Samples {
        long[] values = new long[4096];
        int size;

        void add(long v) {
            if (size == values.length) {
                values = java.util.Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        void addAll(Samples other) {
            for (int i = 0; i < other.size; i++) {
                add(other.values[i]);
            }
        }

        long[] sorted() {
            long[] out = java.util.Arrays.copyOf(values, size);
            java.util.Arrays.sort(out);
            return out;
        }
    }

    /**
     * What one loop measured.
     *
     * @param ops            operations completed in the measured window
     * @param elapsedNanos   the measured window's length
     * @param sortedLatencies every recorded latency, ascending, in nanoseconds
     */
    public record Stats(long ops, long elapsedNanos, long[] sortedLatencies) {
        /** @return operations per second over the measured window */
        public double perSecond() {
            return ops * 1e9 / elapsedNanos;
        }

        /**
         * @param q a quantile in 0..1
         * @return that quantile of the latencies in microseconds, or 0 when nothing was recorded
         * @throws IllegalArgumentException if q is outside 0..1
         */
        public double quantileMicros(double q) {
            if (q < 0 || q > 1) {
                throw new IllegalArgumentException("quantile must be in 0..1, was " + q);
            }
            if (sortedLatencies.length == 0) {
                return 0;
            }
            int i = (int) Math.min(sortedLatencies.length - 1, Math.ceil(q * sortedLatencies.length) - 1);
            return sortedLatencies[Math.max(0, i)] / 1000.0;
        }
    }
}
