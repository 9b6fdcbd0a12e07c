package io.echomq.cli;

import io.echomq.audit.AuditAction;
import io.echomq.audit.AuditTrail;
import io.echomq.queue.DeadJob;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import java.time.Instant;
import java.util.List;
import java.util.function.IntSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code emq queue dead <queue> [--limit n] [--retry | --purge]}. */
@Command(name = "dead",
        description = {"Lists the dead jobs, oldest death first, one per line, tab-separated:",
            "  <id>  <died-at, ISO-8601 UTC>  attempts=<n>  <reason>  <first line of the last error>",
            "Notes on stderr how many are not listed when there are more than --limit. The text form shows only "
                + "an error's first line and says so on stderr; --format json or csv prints the columns id, died_at, "
                + "attempts, reason and last_error with the whole error, and emq queue inspect <queue> <id>... each "
                + "job's error of every kept attempt.",
            "--retry moves ALL dead jobs back to pending with a fresh budget of attempts and prints "
                + "redriven=N; --purge deletes them all and prints purged=N. Both first show the count of dead "
                + "jobs and the first ids, and act only when confirmed: --yes, or y at the question Proceed? "
                + "[y/N] on a terminal; without a terminal and without --yes they change nothing and exit "
                + ExitCodes.NOT_CONFIRMED + ". --dry-run prints the count and ids and changes nothing. Jobs "
                + "that die while the question waits are moved too. Both work in batches of "
                + QueueDeadCommand.DEAD_BATCH + " until a batch moves none, and note progress on stderr every "
                + QueueDeadCommand.PROGRESS_EVERY + " jobs. A dead entry without a job hash or payload cannot be redriven; "
                + "it stays dead."})
final class QueueDeadCommand extends QueueSubcommand {
    /** Jobs per redrive or purge call of {@code emq queue dead --retry|--purge}. */
    static final int DEAD_BATCH = 1000;
    /** {@code emq queue dead --retry|--purge} reports progress on stderr after every this many jobs. */
    static final long PROGRESS_EVERY = 10_000;

    @Option(names = "--limit", paramLabel = "<n>", defaultValue = "100",
            description = "Most jobs listed, 1.." + Queue.MAX_BATCH + " (not used by --retry and --purge). "
                + "Default: ${DEFAULT-VALUE}.")
    int limit;
    @Option(names = "--retry", description = "Redrive all dead jobs to pending.")
    boolean retry;
    @Option(names = "--purge", description = "Delete all dead jobs for good.")
    boolean purge;
    @Mixin
    ConfirmOptions confirm;
    @Mixin
    FormatOption format;

    /** The columns of {@code --format json|csv}. */
    static final List<String> COLUMNS = List.of("id", "died_at", "attempts", "reason", "last_error");

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        if (retry && purge) {
            throw new ParameterException(spec.commandLine(), "--retry and --purge are mutually exclusive");
        }
        QueueArgs.inRange(spec, "--limit", limit, 1, Queue.MAX_BATCH, "");
        try (QueueClient client = connect()) {
            QueueOperations q = open(client);
            List<String> ids = List.of();
            if (retry || purge) {
                ids = q.dead(ConfirmOptions.SHOWN_IDS).stream().map(DeadJob::id).toList();
                Integer refused = confirm.confirm(spec, (retry ? "redrive" : "purge") + " the dead jobs of queue "
                        + queue, q.stats().dead(), ids, false);
                if (refused != null) {
                    return refused;
                }
            }
            if (retry || purge) {
                long moved = retry ? drain("redriven", () -> (int) q.redrive(DEAD_BATCH))
                        : drain("purged", () -> (int) q.purgeDead(DEAD_BATCH));
                out().println((retry ? "redriven=" : "purged=") + moved);
                if (moved > 0) {
                    audit(client, retry ? AuditAction.REDRIVEN : AuditAction.PURGED,
                            AuditTrail.jobsDetail(moved, ids));
                }
            } else {
                list(q);
            }
        }
        return ExitCodes.OK;
    }

    private void list(QueueOperations q) {
        List<DeadJob> jobs = q.dead(limit);
        if (format.text()) {
            boolean shortened = false;
            for (DeadJob j : jobs) {
                out().println(line(j));
                shortened |= j.lastError().strip().contains("\n");
            }
            if (shortened) {
                err().println(spec.qualifiedName() + ": errors are shortened to their first line; --format json or "
                        + "csv prints them whole");
            }
        } else {
            Rows rows = format.rows(out(), COLUMNS);
            for (DeadJob j : jobs) {
                rows.row(j.id(), Instant.ofEpochMilli(j.diedAtMillis()).toString(), j.attempts(), j.reason(),
                        j.lastError());
            }
            rows.end();
        }
        if (jobs.size() == limit) {
            long total = q.stats().dead();
            if (total > jobs.size()) {
                err().println(spec.qualifiedName() + ": listed the oldest " + jobs.size() + " of " + total
                        + " dead jobs (see --limit)");
            }
        }
    }

    /** Calls {@code batch} until it moves nothing; returns the total, noting progress on stderr. */
    private long drain(String verb, IntSupplier batch) {
        long total = 0;
        long nextNote = PROGRESS_EVERY;
        for (int moved = batch.getAsInt(); moved > 0; moved = batch.getAsInt()) {
            total += moved;
            if (total >= nextNote) {
                err().println(spec.qualifiedName() + ": " + verb + " " + total + " so far");
                err().flush();
                nextNote = (total / PROGRESS_EVERY + 1) * PROGRESS_EVERY;
            }
        }
        return total;
    }

    /** @return the listing line of one dead job */
    static String line(DeadJob j) {
        String firstError = j.lastError().lines().findFirst().orElse("");
        return j.id() + '\t' + Instant.ofEpochMilli(j.diedAtMillis()) + "\tattempts=" + j.attempts() + '\t'
                + oneField(j.reason()) + '\t' + oneField(firstError);
    }

    /** @return {@code text} with tabs and line breaks turned into spaces, so it stays one column */
    private static String oneField(String text) {
        return text.replaceAll("[\\t\\r\\n]+", " ").strip();
    }
}
