package io.echomq.example;

import java.io.IOException;
import java.io.InputStream;

/**
 * Runs {@link ExampleApplication} in a child JVM that dies with its parent: the test keeps the
 * child's stdin open, and when it ends (the test JVM exited or was killed, even with
 * {@code SIGKILL}, when no shutdown hook runs), this halts the child. Without it, a killed build
 * would leave two web servers holding locks and claiming jobs.
 */
public final class ParentBoundMain {
    private ParentBoundMain() {
    }

    /**
     * Watches stdin on a daemon thread, then starts the application.
     *
     * @param args the application's arguments
     */
    public static void main(String[] args) {
        Thread watch = new Thread(() -> {
            try (InputStream in = System.in) {
                while (in.read() >= 0) {
                    // the parent writes nothing; wait for the end of the stream
                }
            } catch (IOException ended) {
                // the same: the parent is gone
            }
            Runtime.getRuntime().halt(3);
        }, "parent-watch");
        watch.setDaemon(true);
        watch.start();
        ExampleApplication.main(args);
    }
}
