package io.echomq.cli;

import io.echomq.queue.DeleteResult;
import io.echomq.queue.QueueClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code emq queue delete <queue> [--force]}. */
@Command(name = "delete",
        description = {"Deletes the queue and every key of it: jobs in every state, counters, dead letters, "
            + "retention settings, idempotency keys; a sharded queue's partitions and partition count too.",
            "Refuses while jobs are active (a worker holds them), changing nothing, unless --force. Stop the "
                + "queue's producers and workers first. Prints deleted keys=<n> active=<n>; notes progress on "
                + "stderr every " + QueueDeleteCommand.PROGRESS_EVERY + " keys."})
final class QueueDeleteCommand extends QueueSubcommand {
    /** Progress is noted on stderr after every this many keys. */
    static final long PROGRESS_EVERY = 10_000;

    @Option(names = "--force", description = "Delete even while jobs are active; their workers' completes and "
            + "fails are then refused.")
    boolean force;

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        DeleteResult r;
        try (QueueClient client = connect()) {
            long[] nextNote = {PROGRESS_EVERY};
            r = open(client).delete(force, n -> {
                if (n >= nextNote[0]) {
                    err().println(spec.qualifiedName() + ": deleted " + n + " keys so far");
                    err().flush();
                    nextNote[0] = (n / PROGRESS_EVERY + 1) * PROGRESS_EVERY;
                }
            });
        }
        if (!r.deleted()) {
            err().println(spec.qualifiedName() + ": queue " + queue + " has " + r.activeJobs() + " active job"
                    + (r.activeJobs() == 1 ? "" : "s") + "; nothing was deleted. Stop its workers, or add --force");
            return ExitCodes.NO;
        }
        out().println("deleted keys=" + r.keys() + " active=" + r.activeJobs());
        return ExitCodes.OK;
    }
}
