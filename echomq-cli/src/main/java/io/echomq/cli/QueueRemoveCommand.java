package io.echomq.cli;

import io.echomq.audit.AuditAction;
import io.echomq.queue.JobInfo;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.RemoveOutcome;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code emq queue remove <queue> <id> [--force]}. */
@Command(name = "remove",
        description = {"Removes a job wherever it is (pending, active, delayed, dead or done), with its lock "
            + "and idempotency key.",
            "Prints REMOVED (exit code 0), LOCKED (a worker holds the job; nothing changed; exit code 1) or "
                + "MISSING (no such job; exit code 1).",
            "A pending job of priority 0 is found by scanning the queue's wait list on the server (LREM, "
                + "O(n)): fine now and then, not in a loop over a deep queue.",
            "With --force it first shows the job and its state, and acts only when confirmed: --yes, or y at "
                + "the question Proceed? [y/N] on a terminal; without a terminal and without --yes it changes "
                + "nothing and exits " + ExitCodes.NOT_CONFIRMED + ". --dry-run shows the job and changes nothing."})
final class QueueRemoveCommand extends QueueSubcommand {
    @Parameters(index = "1", paramLabel = "<id>", parameterConsumer = DashValue.class, description = "The job id.")
    String id;
    @Option(names = "--force", description = "Remove the job even while a worker holds it; that worker's "
            + "complete or fail is then refused.")
    boolean force;
    @Mixin
    ConfirmOptions confirm;

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        checkJobId(id);
        RemoveOutcome outcome;
        try (QueueClient client = connect()) {
            QueueOperations q = open(client);
            if (force || confirm.dryRun) {
                Optional<JobInfo> job = q.inspect(id);
                Integer refused = confirm.confirm(spec, "remove " + job.map(j -> "the " + j.state() + " job " + j.id())
                        .orElse("no job (there is no " + id + ")") + " of queue " + queue
                        + (force ? ", even while a worker holds it" : ""), job.isPresent() ? 1 : 0, List.of(), false);
                if (refused != null) {
                    return refused;
                }
            }
            outcome = q.remove(id, force);
            if (outcome == RemoveOutcome.REMOVED) {
                audit(client, AuditAction.REMOVED, "job " + id + (force ? " (--force)" : ""));
            }
        }
        out().println(outcome);
        return outcome == RemoveOutcome.REMOVED ? ExitCodes.OK : ExitCodes.NO;
    }
}
