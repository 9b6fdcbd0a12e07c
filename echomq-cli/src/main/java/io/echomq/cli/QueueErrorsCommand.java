package io.echomq.cli;

import io.echomq.queue.ErrorGroup;
import io.echomq.queue.ErrorGroups;
import io.echomq.queue.QueueClient;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code emq queue errors <queue> [--limit n] [--format text|json|csv]}. */
@Command(name = "errors",
        description = {"Lists the queue's top errors: its failed attempts grouped by the first line of their "
            + "error (for a Java handler: the exception's class and message), the most frequent first, one "
            + "per line, tab-separated:",
            "  <count>  <first seen, ISO-8601 UTC>  <last seen, ISO-8601 UTC>  <first line>",
            "Each failed attempt counts, retries included, as the failed counter counts them. The queue keeps "
                + "the " + ErrorGroups.MAX_GROUPS + " most recently seen groups (for a sharded queue: per "
                + "partition, summed here). --format json and csv print the columns count, first_seen, "
                + "last_seen and error. A job's own errors, one per attempt: emq queue inspect <queue> <id>..."})
final class QueueErrorsCommand extends QueueSubcommand {
    /** The columns of {@code --format json|csv}. */
    static final List<String> COLUMNS = List.of("count", "first_seen", "last_seen", "error");

    @Option(names = "--limit", paramLabel = "<n>", defaultValue = "20",
            description = "Most groups listed, 1.." + ErrorGroups.MAX_GROUPS + ". Default: ${DEFAULT-VALUE}.")
    int limit;
    @Mixin
    FormatOption format;

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        QueueArgs.inRange(spec, "--limit", limit, 1, ErrorGroups.MAX_GROUPS, "");
        List<ErrorGroup> groups;
        try (QueueClient client = connect()) {
            open(client);
            groups = ErrorGroups.of(client).top(queue, limit);
        }
        if (format.text()) {
            for (ErrorGroup g : groups) {
                out().println(g.count() + "\t" + g.firstSeen() + '\t' + g.lastSeen() + '\t' + g.fingerprint().replace('\t', ' '));
            }
        } else {
            Rows rows = format.rows(out(), COLUMNS);
            for (ErrorGroup g : groups) {
                rows.row(g.count(), g.firstSeen().toString(), g.lastSeen().toString(), g.fingerprint());
            }
            rows.end();
        }
        return ExitCodes.OK;
    }
}
