package io.echomq.cli;

import io.echomq.audit.AuditAction;
import io.echomq.audit.AuditTrail;
import io.echomq.queue.DeleteResult;
import io.echomq.queue.JobState;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.QueueStats;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code emq queue delete <queue> [--force]}. */
@Command(name = "delete",
        description = {"Deletes the queue and every key of it: jobs in every state, counters, dead letters, "
            + "retention settings, idempotency keys; a sharded queue's partitions and partition count too.",
            "Refuses while jobs are active (a worker holds them), changing nothing, unless --force. Stop the "
                + "queue's producers and workers first. Prints deleted keys=<n> active=<n>; notes progress on "
                + "stderr every " + QueueDeleteCommand.PROGRESS_EVERY + " keys.",
            "It first shows how many jobs the queue holds (pending, active, delayed, dead) and the first ids, and "
                + "deletes only when confirmed: --yes, or y at the question Proceed? [y/N] on a terminal; without a "
                + "terminal and without --yes it changes nothing and exits " + ExitCodes.NOT_CONFIRMED + ". "
                + "--dry-run shows the same and changes nothing."})
final class QueueDeleteCommand extends QueueSubcommand {
    /** Progress is noted on stderr after every this many keys. */
    static final long PROGRESS_EVERY = 10_000;

    @Option(names = "--force", description = "Delete even while jobs are active; their workers' completes and "
            + "fails are then refused.")
    boolean force;
    @Mixin
    ConfirmOptions confirm;

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        DeleteResult r;
        try (QueueClient client = connect()) {
            QueueOperations q = open(client);
            QueueStats s = q.stats();
            long jobs = s.pending() + s.active() + s.delayed() + s.dead();
            // Active jobs without --force: the delete refuses by itself, so there is nothing to confirm.
            if (force || s.active() == 0 || confirm.dryRun) {
                Integer refused = confirm.confirm(spec, "delete queue " + queue + " (pending=" + s.pending() + " active="
                        + s.active() + " delayed=" + s.delayed() + " dead=" + s.dead() + ", its settings and the "
                        + "completed jobs it keeps)", jobs, firstIds(q), true);
                if (refused != null) {
                    return refused;
                }
            }
            long[] nextNote = {PROGRESS_EVERY};
            r = q.delete(force, n -> {
                if (n >= nextNote[0]) {
                    err().println(spec.qualifiedName() + ": deleted " + n + " keys so far");
                    err().flush();
                    nextNote[0] = (n / PROGRESS_EVERY + 1) * PROGRESS_EVERY;
                }
            });
            if (r.deleted()) {
                audit(client, AuditAction.DELETED, AuditTrail.jobsDetail(jobs, List.of()) + " (pending=" + s.pending()
                        + " active=" + s.active() + " delayed=" + s.delayed() + " dead=" + s.dead() + "), "
                        + r.keys() + " keys" + (force ? ", --force" : ""));
            }
        }
        if (!r.deleted()) {
            err().println(spec.qualifiedName() + ": queue " + queue + " has " + r.activeJobs() + " active job"
                    + (r.activeJobs() == 1 ? "" : "s") + "; nothing was deleted. Stop its workers, or add --force");
            return ExitCodes.NO;
        }
        out().println("deleted keys=" + r.keys() + " active=" + r.activeJobs());
        return ExitCodes.OK;
    }

    /** @return the ids of the first jobs it would delete: pending first, then active, delayed and dead */
    private static List<String> firstIds(QueueOperations q) {
        List<String> ids = new ArrayList<>();
        for (JobState state : new JobState[] {JobState.PENDING, JobState.ACTIVE, JobState.DELAYED, JobState.DEAD}) {
            int room = ConfirmOptions.SHOWN_IDS - ids.size();
            if (room == 0) {
                break;
            }
            q.list(state, room, null).jobs().forEach(j -> ids.add(j.id()));
        }
        return ids;
    }
}
