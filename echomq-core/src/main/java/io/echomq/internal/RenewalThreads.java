package io.echomq.internal;

import java.util.concurrent.ThreadFactory;

/**
 * Makes the threads that renew leases: the lock watchdog's and each worker's lease keeper's.
 *
 * <p>Each is a platform thread (a virtual thread shares its carrier with whatever else runs
 * there), a daemon (it must not keep the JVM alive), at {@link Thread#MAX_PRIORITY}, and is given
 * nothing but renewals and the deadline checks: no handler, maintenance or other periodic work.
 * (A loss it marks completes {@code Lease.lost()}, whose synchronous stages run on it: those must
 * stay quick.) The priority is a hint: Linux applies it only when the JVM runs with
 * {@code -XX:ThreadPriorityPolicy=1} and may raise priorities (root or {@code CAP_SYS_NICE}); the
 * renewers' own pacing ({@link RenewalPace}) is what keeps leases alive on a starved machine.
 */
public final class RenewalThreads {
    private RenewalThreads() {
    }

    /**
     * @return an unstarted renewal thread named {@code name} that runs {@code body}
     * @throws NullPointerException if either argument is null
     */
    public static Thread newThread(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.setPriority(Thread.MAX_PRIORITY);
        return t;
    }

    /** @return a factory of renewal threads, each named {@code name} */
    public static ThreadFactory factory(String name) {
        return body -> newThread(name, body);
    }
}
