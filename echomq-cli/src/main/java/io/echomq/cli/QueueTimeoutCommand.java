package io.echomq.cli;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** {@code emq queue timeout <queue> [<ms> | --clear]}: the queue's default timeout. */
@Command(name = "timeout",
        description = {"Shows, sets or clears the queue's default timeout: how long a worker's handler (an "
            + "'emq worker --exec' command) may run on a job enqueued without its own --timeout. It is stored "
            + "with the queue and read by every claim, so it applies from each worker's next claim on; a job "
            + "already running keeps the timeout it was claimed with.",
            "Which timeout applies to a job: its own (emq queue enqueue --timeout), else the queue's default, "
                + "else the worker's own (emq worker --timeout), else none. Past it the command and its children "
                + "are killed and the job fails with TIMEOUT (retry after a backoff, or dead once its attempts "
                + "are spent).",
            "With no <ms>, prints timeout=<ms>, or timeout=none when the queue stores none. With <ms>, stores it "
                + "and prints timeout=<ms>. With --clear, removes it and prints CLEARED, or NOT_SET when none "
                + "was stored. A sharded queue stores it in every partition."})
final class QueueTimeoutCommand extends CreatingQueueSubcommand {
    /**
     * Longest timeout accepted, in ms: one day, {@link EnqueueOptions#MAX_TIMEOUT} (a constant
     * here, for the help texts; a test holds the two equal).
     */
    static final long MAX_MS = 86_400_000L;

    @Parameters(index = "1", arity = "0..1", paramLabel = "<ms>", parameterConsumer = DashValue.class,
            description = "The default timeout to store, 1.." + MAX_MS + " ms (one day). None by default.")
    String timeoutText;   // read as text, so that a help request after it is never a conversion error
    @Option(names = "--clear", description = "Remove the queue's default timeout.")
    boolean clear;

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        if (clear && timeoutText != null) {
            throw new ParameterException(spec.commandLine(), "give either <ms> or --clear, not both");
        }
        Long timeoutMs = timeoutText == null ? null : QueueArgs.inRange(spec, "<ms>", millis(), 1, MAX_MS,
                " milliseconds");
        try (QueueClient client = connect()) {
            QueueOperations q = open(client);
            if (clear) {
                out().println(q.clearDefaultTimeout() ? "CLEARED" : "NOT_SET");
            } else if (timeoutMs != null) {
                q.setDefaultTimeout(Duration.ofMillis(timeoutMs));
                out().println("timeout=" + timeoutMs);
            } else {
                Optional<Duration> stored = q.defaultTimeout();
                out().println("timeout=" + stored.map(d -> Long.toString(d.toMillis())).orElse("none"));
            }
        }
        return ExitCodes.OK;
    }

    private long millis() {
        try {
            return Long.parseLong(timeoutText);
        } catch (NumberFormatException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for <ms>: '" + timeoutText
                    + "' is not a whole number of milliseconds");
        }
    }
}
