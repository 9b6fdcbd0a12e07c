package io.echomq.cli;

import io.echomq.audit.AuditAction;
import io.echomq.queue.CancelOutcome;
import io.echomq.queue.QueueClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code emq queue cancel <queue> <id>}. */
@Command(name = "cancel",
        description = {"Cancels a job: a pending or delayed job will not run; a running job's attempt ends "
            + "now and the worker that runs it is told to stop its handler. The job ends in state cancelled.",
            "Prints CANCELLED (it was waiting) or SIGNALLED (it was running), exit code 0; ALREADY_FINISHED "
                + "(done, dead or cancelled before) or NOT_FOUND (no such job), exit code 1.",
            "A pending job of priority 0 is found by scanning the queue's wait list on the server (LREM, "
                + "O(n)): fine now and then, not in a loop over a deep queue."})
final class QueueCancelCommand extends QueueSubcommand {
    @Parameters(index = "1", paramLabel = "<id>", parameterConsumer = DashValue.class, description = "The job id.")
    String id;

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        checkJobId(id);
        CancelOutcome outcome;
        try (QueueClient client = connect()) {
            outcome = open(client).cancel(id);
            if (outcome == CancelOutcome.CANCELLED || outcome == CancelOutcome.SIGNALLED) {
                audit(client, AuditAction.CANCELLED, "job " + id + " (" + outcome + ")");
            }
        }
        out().println(outcome);
        return outcome == CancelOutcome.CANCELLED || outcome == CancelOutcome.SIGNALLED ? ExitCodes.OK : ExitCodes.NO;
    }
}
