package io.echomq.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Load inside this JVM, beside the code under measure, as a busy application's own threads make it:
 *
 * <ol>
 *   <li><b>CPU hog</b>: {@code spinners} threads that spin without pause, so that every core is
 *       busy and a thread that wakes up has to win a core from them;</li>
 *   <li><b>GC pressure</b>: {@code churners} threads that allocate without pause and keep a share
 *       of it alive (a ring of 1 KiB to 64 KiB arrays, a quarter of the heap's maximum but at most 64 MiB), so
 *       that the collector runs often and also collects the old generation.</li>
 * </ol>
 *
 * <p>The threads are daemons at normal priority; {@link #close()} stops them and waits for them.
 */
final class JvmPressure implements AutoCloseable {
    private final List<Thread> threads = new ArrayList<>();
    private final int spinners;
    private final int churners;
    private volatile boolean stop;
    /** Keeps the spinners' work observable, so that the JIT cannot drop the loop. */
    static volatile long sink;

    private JvmPressure(int spinners, int churners) {
        this.spinners = spinners;
        this.churners = churners;
        for (int i = 0; i < spinners; i++) {
            start("emq-bench-spin-" + i, this::spin);
        }
        for (int i = 0; i < churners; i++) {
            start("emq-bench-churn-" + i, this::churn);
        }
    }

    /**
     * Starts the load.
     *
     * @param spinners CPU-bound threads; 0 for none
     * @param churners allocating threads; 0 for none
     * @throws IllegalArgumentException if either is negative
     */
    static JvmPressure start(int spinners, int churners) {
        if (spinners < 0 || churners < 0) {
            throw new IllegalArgumentException("thread counts must not be negative");
        }
        return new JvmPressure(spinners, churners);
    }

    /** @return what runs, for a report's header */
    String description() {
        return spinners + " spinning thread(s), " + churners + " allocating thread(s) (max heap "
                + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB), in this JVM";
    }

    private void start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    private void spin() {
        long x = 0;
        while (!stop) {
            for (int i = 0; i < 1_000_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
            sink = x;
        }
    }

    private void churn() {
        long keep = Math.min(Runtime.getRuntime().maxMemory() / 4, 64L << 20) / Math.max(1, churners);
        byte[][] ring = new byte[(int) Math.max(16, keep / (32 * 1024))][];
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long x = 0;
        while (!stop) {
            byte[] b = new byte[1024 << random.nextInt(7)];
            b[0] = (byte) x++;
            if (random.nextInt(8) == 0) {
                ring[random.nextInt(ring.length)] = b;   // survives a while: promoted, then garbage in the old generation
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        for (Thread t : threads) {
            t.join(10_000);
        }
    }
}
