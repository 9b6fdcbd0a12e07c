package io.echomq.cli;

import io.echomq.queue.JobResult;
import io.echomq.queue.QueueClient;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code emq queue wait <queue> <id> --timeout <ms>}: waits for a job's end, woken by the queue's events. */
@Command(name = "wait",
        description = {"Waits for a job to end, from any process, woken by the queue's events stream (never by "
            + "polling); a job that ended already is answered at once. Prints one line:",
            "  COMPLETED [result=<value>]   exit code 0 (the result the handler stored, as UTF-8 text, quoted as "
                + "emq queue events quotes values)",
            "  DEAD reason=<value>          exit code " + ExitCodes.JOB_DEAD,
            "  TIMED_OUT                    exit code " + ExitCodes.TIMED_OUT + ": it had not ended within --timeout",
            "  CANCELLED or NOT_FOUND       exit code 1",
            "The queue's events must be on (emq queue event-settings)."})
final class QueueWaitCommand extends QueueSubcommand {
    @Parameters(index = "1", paramLabel = "<id>", parameterConsumer = DashValue.class, description = "The job id.")
    String id;
    @Option(names = "--timeout", paramLabel = "<ms>", required = true,
            description = "How long to wait, 0..86400000 ms (0: answer from what is known now).")
    long timeoutMillis;

    @Override
    public Integer call() throws InterruptedException {
        QueueArgs.checkQueue(spec, queue);
        checkJobId(id);
        QueueArgs.inRange(spec, "--timeout", timeoutMillis, 0, 86_400_000, " milliseconds");
        JobResult r;
        try (QueueClient client = connect()) {
            r = open(client).awaitResult(id, Duration.ofMillis(timeoutMillis));
        } catch (IllegalStateException eventsOff) {
            err().println(spec.qualifiedName() + ": " + eventsOff.getMessage());
            return ExitCodes.BAD_INPUT;
        }
        switch (r.outcome()) {
            case COMPLETED -> out().println(r.result() == null ? "COMPLETED"
                    : "COMPLETED result=" + QueueEventsCommand.quoted(r.resultText()));
            case DEAD -> out().println("DEAD reason=" + QueueEventsCommand.quoted(r.reason()));
            default -> out().println(r.outcome());
        }
        return switch (r.outcome()) {
            case COMPLETED -> ExitCodes.OK;
            case DEAD -> ExitCodes.JOB_DEAD;
            case TIMED_OUT -> ExitCodes.TIMED_OUT;
            default -> ExitCodes.NO;
        };
    }
}
