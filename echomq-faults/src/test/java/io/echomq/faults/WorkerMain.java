package io.echomq.faults;

import io.echomq.queue.SettleOutcome;
import io.echomq.queue.Job;
import io.echomq.queue.QueueClient;
import io.echomq.queue.Worker;
import io.echomq.queue.WorkerListener;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A worker JVM for the fault scenarios: a {@link Worker} that reports, one line each on stdout,
 * {@code CLAIMED <id> <attempt>} when a handler starts and {@code SETTLED <id> <attempt> <outcome>} when the
 * server has answered its settle. Those lines feed {@link io.echomq.testkit.QueueHistory}.
 *
 * <p>Payloads: {@code sleep:<ms>} sleeps that long; {@code hold:<ms>} spins that long, ignoring interrupts (a
 * handler that does not check {@code job.leaseLost()}); anything else returns at once.
 *
 * <p>Arguments: {@code <redis url> <queue> <concurrency> <lease ms> <maintenance ms>}. It runs until killed or
 * until its stdin says {@code stop} (a graceful shutdown, then exit 0).
 */
public final class WorkerMain {
    private WorkerMain() {
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
        Duration maintenance = Duration.ofMillis(Long.parseLong(args[4]));
        try (QueueClient client = QueueClient.builder().redisUrl(url).commandTimeout(Duration.ofSeconds(2)).build()) {
            Worker worker = client.worker(queue, WorkerMain::handle)
                    .concurrency(concurrency)
                    .lease(lease)
                    .maintenanceInterval(maintenance)
                    .idlePoll(Duration.ofMillis(500))
                    .shutdownGrace(Duration.ofSeconds(5))
                    .listener(new WorkerListener() {
                        @Override
                        public void onSettled(Job job, SettleOutcome outcome, Throwable error) {
                            report("SETTLED " + job.id() + " " + job.attempt() + " " + outcome);
                        }
                    })
                    .start();
            report("STARTED " + ProcessHandle.current().pid());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !line.equals("stop")) {
                // wait for the parent
            }
            worker.shutdown(Duration.ofSeconds(5));
        }
        System.exit(0);
    }

    private static void handle(Job job) throws InterruptedException {
        report("CLAIMED " + job.id() + " " + job.attempt());
        String p = job.payloadUtf8();
        if (p.startsWith("sleep:")) {
            TimeUnit.MILLISECONDS.sleep(Long.parseLong(p.substring(6)));
        } else if (p.startsWith("hold:")) {
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(p.substring(5)));
            while (System.nanoTime() < until) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // an interrupt only ends one park
            }
            Thread.interrupted();
        }
    }

    private static void report(String line) {
        synchronized (System.out) {
            System.out.println(line);
        }
    }
}
