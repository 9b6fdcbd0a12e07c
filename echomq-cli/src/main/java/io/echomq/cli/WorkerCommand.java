package io.echomq.cli;

import io.echomq.ConnectionListener;
import io.echomq.RedisCommandException;
import io.echomq.queue.SettleOutcome;
import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.ShardedQueue;
import io.echomq.queue.ShutdownReport;
import io.echomq.queue.Worker;
import io.echomq.queue.WorkerCounts;
import io.echomq.queue.WorkerListener;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code emq worker <q> --exec '<shell command>'}: a {@link Worker} whose handler runs
 * {@code /bin/sh -c <command>} once per job, with the payload on its stdin. Exit status 0
 * completes the job; any other fails it with the tail of the command's stderr. The worker renews
 * the lease while the command runs; when the lease is lost (or the grace of a shutdown runs out)
 * the command and its children are killed.
 *
 * <p>It runs until SIGTERM or SIGINT (see {@link StopSignals}: the first one stops gracefully, a second one at
 * once; a shutdown hook covers the JVMs where those handlers cannot be installed), or, with
 * {@code --exit-when-idle}, until the queue is drained. It is meant to run as its own process
 * ({@code java -jar emq.jar worker …}); {@link #call()} returns once the worker has stopped and
 * every command it started is gone, so {@link Emq#main} then exits the JVM.
 */
@Command(name = "worker",
        description = {"Works <queue>: runs /bin/sh -c <command> once per job, up to --concurrency at once.",
            "Each command gets the payload on stdin and EMQ_QUEUE, EMQ_JOB_ID and EMQ_JOB_ATTEMPT in its "
                + "environment. Its stdout is passed through to the worker's stdout, line by line, and its first "
                + "16 KiB are stored as the job's result (emq queue wait prints it); its stderr is "
                + "captured. Exit status 0 completes the job; any other fails it (retry after a backoff, or dead "
                + "once its attempts are spent) with the last 16 KiB of stderr and 'exit status N' as the error. "
                + "The lease is renewed while the command runs; if it is lost, or the command runs past its timeout "
                + "(the job's own, else its queue's default, else --timeout), the command and its children are "
                + "killed (SIGKILL).",
            "On stderr: a start line (worker <queue>: concurrency N, lease M ms[, timeout T ms], server <server>, "
                + "worker <name>@<id>, where <id> is <host>-<pid>-<n>, unique to this worker: emq queue workers and "
                + "emq queue list --state active show it), a line 'worker <queue>: queue <queue> is paused: claiming "
                + "nothing until it is resumed' when the queue is paused at the start or later (and '... is resumed: "
                + "claiming again' once it is), a summary "
                + "every 5 s while there is work (completed=N retrying=N dead=N lost=N running=N), and a final "
                + "summary that adds returned=N (leases given back unspent at shutdown).",
            "Runs until SIGTERM or SIGINT (Ctrl-C), then prints 'stopping: waiting up to <grace> for N running "
                + "jobs', stops claiming, waits up to --grace for running commands, gives the other leases back "
                + "without spending their attempt, kills their commands and exits with 143 (SIGTERM) or 130 "
                + "(SIGINT). A second signal stops at once: every running job's lease is given back unspent and its "
                + "command killed. Each command runs in a session of its own (through setsid, where installed), so "
                + "the terminal's Ctrl-C reaches the worker only, never the commands. With --exit-when-idle it "
                + "exits once it is idle and the queue has nothing pending, active or delayed (looked at every 200 ms): exit code 0, or 7 when a "
                + "job it ran went dead.",
            "Exit code 2 for bad input, and for a queue that is not stored (the stored queues close to its name "
                + "are named; --create starts on a new queue); 3 when Redis cannot be reached at start; later Redis failures are "
                + "retried: one line says 'connection to <server> lost; retrying' when the connection drops, "
                + "and one 'connection to <server> is back' once it is."})
final class WorkerCommand implements Callable<Integer> {
    /** How often the stop, the --exit-when-idle condition and the summary are looked at. */
    static final long CHECK_EVERY_MS = 200;
    /** How often the summary line is printed while there is work. */
    static final long SUMMARY_EVERY_MS = 5_000;
    /** How long a killed command may take to die before the worker gives up waiting. */
    static final long KILL_WAIT_MS = 5_000;
    /** How long the shutdown hook waits, beyond the grace, for {@link #call()} to finish. */
    static final long HOOK_MARGIN_MS = 15_000;

    @Spec
    CommandSpec spec;
    @Mixin
    HelpOption help;
    @Mixin
    RedisOptions redis;
    @Parameters(index = "0", paramLabel = "<queue>", parameterConsumer = DashValue.class,
            description = "The queue to work: 1..256 bytes of UTF-8 without '{', '}', whitespace or control "
                + "characters.")
    String queue;
    @Option(names = "--exec", required = true, paramLabel = "<shell command>",
            description = "The shell command run for each job, as /bin/sh -c <shell command>.")
    String command;
    @Option(names = "--concurrency", paramLabel = "<n>", defaultValue = "4",
            description = "Commands at once, 1.." + Worker.MAX_CONCURRENCY + ". Default: ${DEFAULT-VALUE}.")
    int concurrency;
    @Option(names = "--lease", paramLabel = "<ms>", defaultValue = "30000",
            description = "Each job's lease, 20..86400000 ms, renewed at a third of it while the command runs. "
                + "Default: ${DEFAULT-VALUE}.")
    long leaseMillis;
    @Option(names = "--grace", paramLabel = "<ms>", defaultValue = "30000",
            description = "At shutdown, how long running commands may take to finish, 0..86400000 ms. "
                + "Default: ${DEFAULT-VALUE}.")
    long graceMillis;
    @Option(names = "--timeout", paramLabel = "<ms>",
            description = "How long one command may run, 1..86400000 ms from its start; none by default. Past it, "
                + "the command and its children are killed and the job fails with TIMEOUT in its last_error "
                + "(retry after a backoff, or dead once its attempts are spent), although its lease was renewed. "
                + "A job's own timeout (emq queue enqueue --timeout), else its queue's default (emq queue "
                + "timeout), wins over this one, and applies even without it.")
    Long timeoutMillis;
    /** The partition count of a sharded queue, or null for a plain queue. */
    Integer partitions;

    @Option(names = "--partitions", paramLabel = "<k>",
            description = "Not needed: a sharded queue is found by the count stored with it (see emq queue "
                + "--help), and a k that differs from it is refused. The worker claims from all partitions, "
                + "starting one further on each claim round so that none starves; EMQ_JOB_ID is <partition>-<id>.")
    void partitions(int k) {
        partitions = (int) QueueArgs.inRange(spec, "--partitions", k, 1, ShardedQueue.MAX_PARTITIONS, "");
    }

    @Mixin
    CreateOption createOption;

    @Option(names = "--name", paramLabel = "<name>",
            description = "The worker's name, as emq queue workers, emq queue list --state active and the dashboard "
                + "show it: 1..100 characters, no control character. Default: emq-worker-<queue>-<n>. Two workers "
                + "of one name are still told apart by their id (<host>-<pid>-<n>).")
    String name;

    @Option(names = "--print-settled",
            description = "Also print one line on stdout for each job the server has settled: SETTLED <job id> "
                + "<attempt> <outcome>, where <outcome> is COMPLETED, RETRYING, DEAD, RETURNED or LEASE_LOST. A "
                + "settle whose answer never came (the connection dropped) prints nothing.")
    boolean printSettled;

    @Option(names = "--exit-when-idle",
            description = "Exit once the worker is idle and the queue has nothing pending, active or delayed: "
                + "exit code 0, or 7 if a job this worker ran went dead.")
    boolean exitWhenIdle;

    private final CountDownLatch stop = new CountDownLatch(1);
    private volatile String stopReason = "stopped";
    /** The running worker, for a second signal to cut its grace; null before it starts. */
    private volatile Worker running;
    /** Whether a second signal asked to stop at once. */
    private volatile boolean stopAtOnce;
    /** Whether --exit-when-idle found the queue drained. */
    private boolean drained;
    /** Whether the queue was paused when the worker started, as the start read it. */
    private boolean pausedAtStart;
    /** Jobs this worker sent to dead, counted once it has stopped. */
    private long deadJobs;

    @Override
    public Integer call() throws InterruptedException {
        QueueArgs.checkQueue(spec, queue);
        if (command.isBlank()) {
            throw new ParameterException(spec.commandLine(), "--exec must not be empty");
        }
        int n = (int) QueueArgs.inRange(spec, "--concurrency", concurrency, 1, Worker.MAX_CONCURRENCY, "");
        long lease = QueueArgs.inRange(spec, "--lease", leaseMillis, Queue.MIN_LEASE.toMillis(),
                Queue.MAX_LEASE.toMillis(), " milliseconds");
        long grace = QueueArgs.inRange(spec, "--grace", graceMillis, 0, Queue.MAX_LEASE.toMillis(),
                " milliseconds");
        Long timeout = timeoutMillis == null ? null
                : QueueArgs.inRange(spec, "--timeout", timeoutMillis, 1, Queue.MAX_LEASE.toMillis(), " milliseconds");
        if (name != null) {
            try {
                Worker.checkName(name);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "Invalid value for option '--name': " + e.getMessage());
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String who = "worker " + queue;

        CountDownLatch finished = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stopReason = "signal";
            stop.countDown();
            try {
                finished.await(grace + HOOK_MARGIN_MS, TimeUnit.MILLISECONDS);   // let call() shut down and report
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "emq-worker-shutdown");
        ExecutorService handlers = Executors.newFixedThreadPool(n, daemon("emq-worker-" + queue + "-exec"));
        ExecutorService pumps = Executors.newCachedThreadPool(daemon("emq-worker-" + queue + "-io"));
        ShellHandler shell = new ShellHandler(command, out, pumps);
        StopSignals signals = StopSignals.install(signal -> stop(), this::stopAtOnce);
        try (QueueClient client = redis.connectQueue()) {
            // Before the worker starts: a signal from now on stops it gracefully.
            Runtime.getRuntime().addShutdownHook(hook);
            QueueOperations q;
            Worker.Builder builder;
            if (!createOption.create) {
                QueueLookup.requireStored(client, queue, "--create");   // a typo never idles on a phantom
            }
            q = QueueArgs.openAsStored(spec, client, queue, partitions);   // declares or checks --partitions
            builder = client.worker(queue, shell);                          // the queue as now stored
            if (printSettled) {
                builder.listener(new WorkerListener() {
                    @Override
                    public void onSettled(Job job, SettleOutcome outcome, Throwable error) {
                        out.println("SETTLED " + job.id() + " " + job.attempt() + " " + outcome);
                        out.flush();
                    }
                });
            }
            if (timeout != null) {
                builder.timeout(Duration.ofMillis(timeout));
            }
            if (name != null) {
                builder.name(name);
            }
            Worker worker = builder
                    .concurrency(n)
                    .lease(Duration.ofMillis(lease))
                    .shutdownGrace(Duration.ofMillis(grace))
                    .executor(handlers)
                    // the handler only waits for its own command's process: the interrupt is its
                    // stop, it kills the process tree, and nothing borrowed can break under it
                    .interruptHandlers(true)
                    .start();
            running = worker;
            // One line when Redis is lost and one when it is back, instead of Lettuce's reconnect warnings
            // (simplelogger.properties mutes those).
            client.connectionListener(new ConnectionListener() {
                @Override
                public void onLost(String url) {
                    err.println(who + ": connection to " + url + " lost; retrying");
                    err.flush();
                }

                @Override
                public void onBack(String url) {
                    err.println(who + ": connection to " + url + " is back");
                    err.flush();
                }
            });
            if (stopAtOnce) {
                worker.cutGrace();   // the second signal came while the worker was starting
            }
            try {
                err.println(who + ": concurrency " + n + ", lease " + lease + " ms"
                        + (timeout == null ? "" : ", timeout " + timeout + " ms") + ", server "
                        + describeServer(client.serverDescription()) + ", worker " + worker.name() + "@" + worker.id());
                pausedAtStart = q.isPaused();
                if (pausedAtStart) {
                    err.println(pausedLine(who, true));
                }
                err.flush();
                run(worker, q, who, err);
            } finally {
                client.connectionListener(null);   // the shutdown's own closes are no outage
                if ("signal".equals(stopReason)) {
                    int jobs = worker.runningJobs();
                    err.println(who + ": stopping: waiting up to " + duration(grace) + " for " + jobs + " running job"
                            + (jobs == 1 ? "" : "s") + " (a second signal stops at once)");
                    err.flush();
                }
                ShutdownReport report = worker.shutdown(Duration.ofMillis(grace));
                shell.killAll();   // commands whose handler was interrupted but has not killed them yet
                awaitHandlers(handlers);   // so that the summary counts them out
                deadJobs = worker.counts().dead();
                err.println(who + ": stopped (" + stopReason + "): " + summary(worker) + " returned="
                        + report.returned() + (report.notReturned() > 0 ? " not_returned=" + report.notReturned() : ""));
                err.flush();
            }
        } finally {
            signals.close();
            handlers.shutdownNow();
            pumps.shutdownNow();
            finished.countDown();
            removeHook(hook);
        }
        // Stopped by a signal we handled: report it as a shell reports a process a signal ended, 128 + its number.
        return signals.firstSignal() > 0 ? 128 + signals.firstSignal() : exitCode();
    }

    /**
     * @return {@link ExitCodes#JOBS_DIED} when {@code --exit-when-idle} found the queue drained and
     *     a job went dead during this run, so that a script sees it; else {@link ExitCodes#OK}
     */
    private int exitCode() {
        return exitWhenIdle && drained && deadJobs > 0 ? ExitCodes.JOBS_DIED : ExitCodes.OK;
    }

    /** Waits for a stop: a signal, or with --exit-when-idle a drained queue; prints the summaries. */
    private void run(Worker worker, QueueOperations q, String who, PrintWriter err) throws InterruptedException {
        long nextSummary = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SUMMARY_EVERY_MS);
        String lastSummary = summary(worker);
        long nextStatsWarning = System.nanoTime();
        boolean paused = pausedAtStart;
        while (!stop.await(CHECK_EVERY_MS, TimeUnit.MILLISECONDS)) {
            if (worker.sawPaused() != paused) {
                paused = !paused;
                err.println(pausedLine(who, paused));
                err.flush();
            }
            if (System.nanoTime() - nextSummary >= 0) {
                nextSummary = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SUMMARY_EVERY_MS);
                String now = summary(worker);
                if (!now.equals(lastSummary) || worker.runningJobs() > 0) {
                    err.println(who + ": " + now);
                    err.flush();
                    lastSummary = now;
                }
            }
            if (exitWhenIdle && worker.isIdle()) {
                try {
                    if (q.stats().drained() && worker.isIdle()) {
                        stopReason = "queue drained";
                        drained = true;
                        return;
                    }
                } catch (RedisCommandException e) {
                    if (System.nanoTime() - nextStatsWarning >= 0) {
                        err.println(who + ": cannot read the queue's counts, still working: "
                                + Failures.oneLine(Failures.withRootCause(e)));
                        err.flush();
                        nextStatsWarning = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SUMMARY_EVERY_MS);
                    }
                }
            }
        }
    }

    /**
     * @return the server's description with its SPUBLISH note in words: whether the server has
     *     sharded pub/sub (Redis 7 and later), which wake-ups use on a cluster; without it they use PUBLISH
     */
    static String describeServer(String description) {
        return description.replace("SPUBLISH: yes", "sharded pub/sub (SPUBLISH): yes")
                .replace("SPUBLISH: no", "sharded pub/sub (SPUBLISH, Redis 7+): no, wake-ups use PUBLISH");
    }

    /** @return the line that says the queue is paused (the worker claims nothing) or resumed */
    private String pausedLine(String who, boolean paused) {
        return who + ": queue " + queue + (paused ? " is paused: claiming nothing until it is resumed (emq queue resume "
                + queue + ")" : " is resumed: claiming again");
    }

    /** @return {@code completed=N retrying=N dead=N lost=N running=N} */
    static String summary(Worker worker) {
        WorkerCounts c = worker.counts();
        return "completed=" + c.completed() + " retrying=" + c.retrying() + " dead=" + c.dead() + " lost="
                + c.leaseLost() + " running=" + worker.runningJobs();
    }

    /** Stops a running {@link #call()} gracefully, as a first SIGTERM does (and tests do). */
    void stop() {
        stopReason = "signal";
        stop.countDown();
    }

    /** Stops at once, as a second signal does: the grace ends, leases go back unspent, commands are killed. */
    private void stopAtOnce() {
        stopAtOnce = true;
        stop();
        Worker w = running;
        if (w != null) {
            w.cutGrace();
        }
    }

    /** @return {@code "30 s"} for a whole number of seconds, else {@code "300 ms"} */
    static String duration(long millis) {
        return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
    }

    /** Lets the handlers still unwinding after an interrupt finish, for a bounded time. */
    private static void awaitHandlers(ExecutorService handlers) {
        handlers.shutdown();
        try {
            handlers.awaitTermination(KILL_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the JVM is shutting down: the hook is running, and is now released by 'finished'
        }
    }

    private static ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
