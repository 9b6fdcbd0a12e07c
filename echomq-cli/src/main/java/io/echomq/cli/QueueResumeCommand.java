package io.echomq.cli;

import io.echomq.audit.AuditAction;
import io.echomq.queue.QueueClient;
import picocli.CommandLine.Command;

/** {@code emq queue resume <queue>}. */
@Command(name = "resume",
        description = {"Resumes claims of a paused queue and wakes its idle workers at once.",
            "Prints RESUMED, or NOT_PAUSED when it was not paused (exit code 0 either way)."})
final class QueueResumeCommand extends QueueSubcommand {
    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        boolean changed;
        try (QueueClient client = connect()) {
            changed = open(client).resume();
            if (changed) {
                audit(client, AuditAction.RESUMED, null);
            }
        }
        out().println(changed ? "RESUMED" : "NOT_PAUSED");
        return ExitCodes.OK;
    }
}
