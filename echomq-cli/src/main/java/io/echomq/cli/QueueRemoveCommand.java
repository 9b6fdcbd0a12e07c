package io.echomq.cli;

import io.echomq.queue.QueueClient;
import io.echomq.queue.RemoveOutcome;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code emq queue remove <queue> <id> [--force]}. */
@Command(name = "remove",
        description = {"Removes a job wherever it is (pending, active, delayed, dead or done), with its lock "
            + "and idempotency key.",
            "Prints REMOVED (exit code 0), LOCKED (a worker holds the job; nothing changed; exit code 1) or "
                + "MISSING (no such job; exit code 1).",
            "A pending job of priority 0 is found by scanning the queue's wait list on the server (LREM, "
                + "O(n)): fine now and then, not in a loop over a deep queue."})
final class QueueRemoveCommand extends QueueSubcommand {
    @Parameters(index = "1", paramLabel = "<id>", parameterConsumer = DashValue.class, description = "The job id.")
    String id;
    @Option(names = "--force", description = "Remove the job even while a worker holds it; that worker's "
            + "complete or fail is then refused.")
    boolean force;

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        checkJobId(id);
        RemoveOutcome outcome;
        try (QueueClient client = connect()) {
            outcome = open(client).remove(id, force);
        }
        out().println(outcome);
        return outcome == RemoveOutcome.REMOVED ? ExitCodes.OK : ExitCodes.NO;
    }
}
