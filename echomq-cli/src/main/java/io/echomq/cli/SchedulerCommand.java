package io.echomq.cli;

import io.echomq.queue.QueueClient;
import io.echomq.queue.Scheduler;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code emq scheduler <queue>…}: fires the recurring schedules of these queues, for deployments
 * that run no worker of them (workers fire their own queue's schedules). Any number may run beside
 * each other and beside workers: each fire time still makes exactly one job.
 *
 * <p>It runs until SIGINT or SIGTERM ({@link StopSignals}; a shutdown hook where the signals are
 * reserved), then stops its scheduler, prints {@code scheduler: stopped (signal): created=N} on
 * stderr and exits with 128 + the signal's number. A run in flight when it stops loses nothing:
 * what it enqueued without moving the schedule on stays due, and the next scheduler adds nothing twice.
 */
@Command(name = "scheduler",
        description = {"Fires the recurring schedules of the queues (for deployments with no worker of them) until "
            + "SIGINT or SIGTERM.",
            "Any number of schedulers and workers may fire one queue's schedules: each fire time makes one job."})
final class SchedulerCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    HelpOption help;
    @Mixin
    RedisOptions redis;
    @Parameters(index = "0..*", arity = "1..*", paramLabel = "<queue>", description = "One or more queue names.")
    List<String> queues;
    @Mixin
    CreateOption createOption;
    @Option(names = "--poll", paramLabel = "<ms>", defaultValue = "1000",
            description = "Longest sleep between two looks at the schedules, 10..600000 ms: how soon a schedule "
                + "another client adds is seen (default: ${DEFAULT-VALUE}).")
    long pollMillis;

    private final CountDownLatch stop = new CountDownLatch(1);

    @Override
    public Integer call() throws InterruptedException {
        for (String q : queues) {
            QueueArgs.checkQueue(spec, q);
        }
        long poll = QueueArgs.inRange(spec, "--poll", pollMillis, 10, 600_000, " milliseconds");
        PrintWriter err = spec.commandLine().getErr();
        CountDownLatch finished = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stop.countDown();
            try {
                finished.await(15, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "emq-scheduler-shutdown");
        StopSignals signals = StopSignals.install(signal -> stop.countDown(), stop::countDown);
        try (QueueClient client = redis.connectQueue()) {
            if (!createOption.create) {
                for (String q : queues) {
                    QueueLookup.requireStored(client, q, "--create");   // a typo never idles on a phantom
                }
            }
            Runtime.getRuntime().addShutdownHook(hook);
            Scheduler scheduler = client.scheduler(Duration.ofMillis(poll), queues.toArray(new String[0]));
            err.println("scheduler: firing the schedules of " + String.join(", ", queues) + ", server "
                    + client.serverDescription());
            err.flush();
            try {
                stop.await();
            } finally {
                scheduler.close();
                err.println("scheduler: stopped (signal): created=" + scheduler.created());
                err.flush();
            }
        } finally {
            signals.close();
            finished.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running, released by 'finished'
            }
        }
        return signals.firstSignal() > 0 ? 128 + signals.firstSignal() : ExitCodes.OK;
    }

    /** Stops a running {@link #call()}, as a signal does (tests). */
    void stop() {
        stop.countDown();
    }
}
