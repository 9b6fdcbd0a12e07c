package io.echomq.cli;

import io.echomq.queue.JobErrors;
import io.echomq.queue.JobPage;
import io.echomq.queue.JobState;
import io.echomq.queue.JobSummary;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code emq queue list <queue> [--state s] [--limit n] [--after cursor | --all]}. */
@Command(name = "list",
        description = {"Lists the jobs in one state, in that state's order, one per line, tab-separated:",
            "  <id>  <state>  attempts=<n>  priority=<p>  <where>  claimed=<time|->  finished=<time|->",
            "where <where> is score=<pending score> (score=- for a priority-0 job in the wait list) for pending, "
                + "and the time of the state's score for the others: the lease deadline (active), the due time "
                + "(delayed), the time of death (dead), of completion (done) or of the cancel (cancelled). Times are ISO-8601 UTC.",
            "Active jobs add two columns, joined from the workers' heartbeats (emq queue workers): "
                + "running_for=<seconds>s (since the job's last claim, by the server's clock) and worker=<name>@<id> "
                + "(the worker that listed the job at its last beat; - for a job claimed since, or by a worker that "
                + "records no heartbeat).",
            "Orders: pending in claim order; active by running time, longest first, within each page (pages follow "
                + "the lease deadline); delayed by due time; dead, done and cancelled oldest first; cancelled lists "
                + "the last 10,000 cancels the queue records. "
                + "A sharded queue lists its partitions one after the other. Only a queue with stored retention "
                + "settings (emq queue retention) keeps and lists done jobs; for another, --state done says so on stderr.",
            "When more jobs follow, the last line on stderr is next=<cursor>: pass it to --after for the next "
                + "page. stdout holds only jobs, so '| wc -l' counts them. A job that stays in the state for the "
                + "whole walk is listed exactly once (docs/queue.md, \"Listing jobs\").",
            "--format json or csv prints the columns id, state, attempts, priority, score, claimed_at, finished_at "
                + "and last_error (the whole error, read from each listed job's hash in one round trip a page; empty when it has none): "
                + "score is the number the set holds (empty for a priority-0 job in the wait list), times are "
                + "ISO-8601 UTC."})
final class QueueListCommand extends QueueSubcommand {
    /** What a cursor may hold: checked before connecting; the queue checks its form before it reads. */
    private static final Pattern CURSOR = Pattern.compile("[A-Za-z0-9_,.+-]{1,4000}");

    @Option(names = "--state", paramLabel = "<state>", defaultValue = "pending",
            description = "pending, active, delayed, dead, done or cancelled. Default: ${DEFAULT-VALUE}.")
    String state;
    @Option(names = "--limit", paramLabel = "<n>", defaultValue = "100",
            description = "Most jobs per page, 1.." + Queue.MAX_BATCH + ". Default: ${DEFAULT-VALUE}.")
    int limit;
    @Option(names = "--after", paramLabel = "<cursor>",
            description = "Start after the page that printed next=<cursor>.")
    String after;
    @Option(names = "--all", description = "Follow the cursor to the end: every page of --limit jobs, no next= line.")
    boolean all;
    @Mixin
    FormatOption format;

    /** The columns of {@code --format json|csv}. */
    static final List<String> COLUMNS = List.of("id", "state", "attempts", "priority", "score", "claimed_at",
            "finished_at", "last_error");

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        JobState s;
        try {
            s = JobState.parse(state);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--state': " + e.getMessage());
        }
        QueueArgs.inRange(spec, "--limit", limit, 1, Queue.MAX_BATCH, "");
        if (after != null && !CURSOR.matcher(after).matches()) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--after': not a cursor "
                    + "that emq queue list printed");
        }
        try (QueueClient client = connect()) {
            QueueOperations q = open(client);
            if (s == JobState.DONE && after == null && q.retention().isEmpty()) {
                err().println(spec.qualifiedName() + ": queue " + queue + " keeps no completed jobs: a completed "
                        + "job keeps no hash unless the queue's retention asks (emq queue retention " + queue
                        + " --done-max <n>)");
            }
            ActiveJobs active = s == JobState.ACTIVE ? ActiveJobs.read(client, queue) : null;
            String cursor = after;
            Rows rows = format.text() ? null : format.rows(out(), COLUMNS);
            do {
                JobPage page = q.list(s, limit, cursor);
                Map<String, String> errors = rows == null ? Map.of()
                        : JobErrors.lastErrors(q, page.jobs().stream().map(JobSummary::id).toList());
                for (JobSummary j : active == null ? page.jobs() : ActiveJobs.longestFirst(page.jobs())) {
                    if (rows == null) {
                        out().println(active == null ? line(j) : line(j) + active.columns(j));
                    } else {
                        String error = errors.get(j.id());
                        rows.row(j.id(), j.state().wireName(), j.attempts(), j.priority(),
                                j.score().isPresent() ? j.score().getAsLong() : null, iso(j.claimedAt()),
                                iso(j.finishedAt()), error);
                    }
                }
                out().flush();
                cursor = page.next().orElse(null);
            } while (all && cursor != null);
            if (rows != null) {
                rows.end();
            }
            if (cursor != null) {
                err().println("next=" + cursor);
            }
        }
        return ExitCodes.OK;
    }

    /** @return the listing line of one job */
    static String line(JobSummary j) {
        String where = j.state() == JobState.PENDING
                ? "score=" + (j.score().isPresent() ? Long.toString(j.score().getAsLong()) : "-")
                : time(j.score());
        return j.id() + '\t' + j.state().wireName() + "\tattempts=" + j.attempts() + "\tpriority=" + j.priority()
                + '\t' + where + "\tclaimed=" + time(j.claimedAt()) + "\tfinished=" + time(j.finishedAt());
    }

    private static String iso(OptionalLong ms) {
        return ms.isPresent() ? Instant.ofEpochMilli(ms.getAsLong()).toString() : null;
    }

    private static String time(OptionalLong ms) {
        return ms.isPresent() ? Instant.ofEpochMilli(ms.getAsLong()).toString() : "-";
    }
}
