package io.echomq.faults;

import io.echomq.queue.Job;
import io.echomq.queue.QueueClient;
import io.echomq.queue.Worker;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A worker JVM whose handlers guard their write the way {@code docs/queue.md} tells a handler that
 * does not block interruptibly to: they check the lease, and write only while it is held. Each
 * handler of a first attempt works (in short parks, ignoring interrupts) until it notices a gap in
 * its own progress longer than {@code <gap ms>}, as a handler resumed after a stop signal would;
 * then it checks at once and reports, one line on stdout:
 *
 * <ul>
 *   <li>{@code CLAIMED <id> <attempt>} when the handler starts;</li>
 *   <li>{@code CHECK <id> <attempt> leaseLost=<bool> isHeld=<bool>}: what the checks answered on
 *       resume (even handlers ask {@code isHeld()} first, odd ones {@code leaseLost()} first, so
 *       that each check is seen deciding alone);</li>
 *   <li>{@code WROTE <id> <attempt>} if the guard let the handler write.</li>
 * </ul>
 *
 * <p>Arguments: {@code <redis url> <queue> <concurrency> <lease ms> <gap ms>}. It runs until its
 * stdin says {@code stop} or closes.
 */
public final class GuardCheckMain {
    private GuardCheckMain() {
    }

    /**
     * Runs the worker.
     *
     * @param args see the class comment
     * @throws Exception if the worker cannot start
     */
    public static void main(String[] args) throws Exception {
        String url = args[0];
        String queue = args[1];
        int concurrency = Integer.parseInt(args[2]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
        long gapNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[4]));
        try (QueueClient client = QueueClient.builder().redisUrl(url).commandTimeout(Duration.ofSeconds(2)).build()) {
            Worker worker = client.worker(queue, job -> handle(job, gapNanos))
                    .concurrency(concurrency)
                    .lease(lease)
                    .idlePoll(Duration.ofMillis(500))
                    .start();
            report("STARTED " + ProcessHandle.current().pid());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !line.equals("stop")) {
                // wait for the parent
            }
            worker.shutdown(Duration.ofSeconds(2));
        }
        System.exit(0);
    }

    private static void handle(Job job, long gapNanos) {
        report("CLAIMED " + job.id() + " " + job.attempt());
        if (job.attempt() > 1) {
            return;
        }
        long last = System.nanoTime();
        while (true) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));   // an interrupt only ends one park
            long now = System.nanoTime();
            if (now - last > gapNanos) {
                break;   // resumed after a pause
            }
            last = now;
        }
        boolean lost;
        boolean held;
        if (Long.parseLong(job.id()) % 2 == 0) {
            held = job.isHeld();
            lost = job.leaseLost();
        } else {
            lost = job.leaseLost();
            held = job.isHeld();
        }
        if (!lost && held) {
            report("WROTE " + job.id() + " " + job.attempt());   // the guarded write
        }
        report("CHECK " + job.id() + " " + job.attempt() + " leaseLost=" + lost + " isHeld=" + held);
        Thread.interrupted();
    }

    private static void report(String line) {
        synchronized (System.out) {
            System.out.println(line);
        }
    }
}
