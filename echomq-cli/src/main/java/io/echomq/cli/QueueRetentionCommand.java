package io.echomq.cli;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.QueueRetention;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code emq queue retention <queue> [--done-max n] [--done-age ms] [--dead-max n] [--dead-age ms]}. */
@Command(name = "retention",
        description = {"Shows or sets how many completed and dead jobs the queue keeps, and for how long. The "
            + "settings are stored with the queue, so every client and worker applies them.",
            "With no option, prints the stored settings (or the defaults, noting on stderr that none are stored):",
            "  done-max=<n> done-age=<ms> dead-max=<n> dead-age=<ms>",
            "With options, changes those (the others keep their stored value, or the default) and prints the "
                + "result. Sets over a cap shrink over the next completes and deaths."})
final class QueueRetentionCommand extends CreatingQueueSubcommand {
    @Option(names = "--done-max", paramLabel = "<n>", description = "Most completed jobs kept, 0.."
            + QueueRetention.MAX_COUNT + " (0 keeps none). Default: " + QueueRetention.DEFAULT_DONE_MAX + ".")
    Long doneMax;
    @Option(names = "--done-age", paramLabel = "<ms>", description = "How long a completed job is kept, in ms. "
            + "Default: 3600000 (1 h) once any setting is stored.")
    Long doneAge;
    @Option(names = "--dead-max", paramLabel = "<n>", description = "Most dead jobs kept, 0.."
            + QueueRetention.MAX_COUNT + ". Default: " + QueueRetention.DEFAULT_DEAD_MAX + ".")
    Long deadMax;
    @Option(names = "--dead-age", paramLabel = "<ms>", description = "How long a dead job is kept after its "
            + "death, in ms. Default: 15552000000 (180 days).")
    Long deadAge;

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        long maxAge = QueueRetention.MAX_AGE.toMillis();
        if (doneMax != null) {
            QueueArgs.inRange(spec, "--done-max", doneMax, 0, QueueRetention.MAX_COUNT, "");
        }
        if (deadMax != null) {
            QueueArgs.inRange(spec, "--dead-max", deadMax, 0, QueueRetention.MAX_COUNT, "");
        }
        if (doneAge != null) {
            QueueArgs.inRange(spec, "--done-age", doneAge, 0, maxAge, " milliseconds");
        }
        if (deadAge != null) {
            QueueArgs.inRange(spec, "--dead-age", deadAge, 0, maxAge, " milliseconds");
        }
        boolean change = doneMax != null || deadMax != null || doneAge != null || deadAge != null;
        try (QueueClient client = connect()) {
            QueueOperations q = open(client);
            Optional<QueueRetention> stored = q.retention();
            QueueRetention r = stored.orElse(QueueRetention.defaults());
            if (change) {
                r = doneMax != null ? r.withDoneMax(doneMax) : r;
                r = deadMax != null ? r.withDeadMax(deadMax) : r;
                r = doneAge != null ? r.withDoneAge(Duration.ofMillis(doneAge)) : r;
                r = deadAge != null ? r.withDeadAge(Duration.ofMillis(deadAge)) : r;
                q.setRetention(r);
            } else if (stored.isEmpty()) {
                err().println(spec.qualifiedName() + ": queue " + queue + " stores no settings: completed jobs "
                        + "are kept as each client's retainCompleted says (by default not at all: deleted at "
                        + "completion) and not listed; these are the values storing a setting starts from");
            }
            out().println("done-max=" + r.doneMax() + " done-age=" + r.doneAge().toMillis() + " dead-max="
                    + r.deadMax() + " dead-age=" + r.deadAge().toMillis());
        }
        return ExitCodes.OK;
    }
}
