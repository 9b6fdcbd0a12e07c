package io.echomq.cli;

import java.util.concurrent.CountDownLatch;

/**
 * Holds a foreground command ({@code emq dashboard}, {@code emq demo --keep}) until Ctrl-C.
 *
 * <ol>
 *   <li>{@link #await()} blocks until the JVM starts to shut down (Ctrl-C, SIGTERM), through a
 *       shutdown hook that only releases the wait, so that the command's own try-with-resources
 *       closes what it opened (a dashboard, an embedded {@code redis-server}).</li>
 *   <li>{@link #stop()} releases it as Ctrl-C would, so that a test can run the command in-process.</li>
 *   <li>The hook is removed again when the wait ends without a shutdown, so an in-process run
 *       leaves nothing behind.</li>
 * </ol>
 */
final class UntilStopped {
    private final CountDownLatch stop = new CountDownLatch(1);
    private final String name;

    /** @param name the name of the hook's thread, which says whose wait it ends */
    UntilStopped(String name) {
        this.name = name;
    }

    /**
     * Waits for Ctrl-C or {@link #stop()}.
     *
     * @throws InterruptedException if the waiting thread is interrupted
     */
    void await() throws InterruptedException {
        Thread hook = new Thread(stop::countDown, name);
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            stop.await();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or has run
            }
        }
    }

    /** Ends the wait, now or before it starts. */
    void stop() {
        stop.countDown();
    }
}
