package io.echomq.cli;

import io.echomq.audit.AuditAction;
import io.echomq.queue.QueueClient;
import picocli.CommandLine.Command;

/** {@code emq queue pause <queue>}. */
@Command(name = "pause",
        description = {"Pauses claims of the queue for every worker and client: no job is claimed until a "
            + "resume. Running jobs go on and settle as usual; enqueues are kept. A sharded queue is paused "
            + "partition by partition.",
            "Prints PAUSED, or ALREADY_PAUSED when it was paused before (exit code 0 either way)."})
final class QueuePauseCommand extends CreatingQueueSubcommand {
    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        boolean changed;
        try (QueueClient client = connect()) {
            changed = open(client).pause();
            if (changed) {
                audit(client, AuditAction.PAUSED, null);
            }
        }
        out().println(changed ? "PAUSED" : "ALREADY_PAUSED");
        return ExitCodes.OK;
    }
}
