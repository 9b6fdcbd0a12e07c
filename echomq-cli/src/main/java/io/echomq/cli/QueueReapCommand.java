package io.echomq.cli;

import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.ReapResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code emq queue reap <queue> [--limit n]}. */
@Command(name = "reap",
        description = {"Returns expired leases to pending, or to dead when the job has spent its attempts, "
            + "on the server's clock. Workers do this by themselves; this is for queues without workers.",
            "Prints returned=N dead=M."})
final class QueueReapCommand extends QueueSubcommand {
    @Option(names = "--limit", paramLabel = "<n>", defaultValue = "1000",
            description = "Most expired leases handled, 1.." + Queue.MAX_BATCH + ". Default: ${DEFAULT-VALUE}.")
    int limit;

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        QueueArgs.inRange(spec, "--limit", limit, 1, Queue.MAX_BATCH, "");
        ReapResult r;
        try (QueueClient client = connect()) {
            r = open(client).reap(limit);
        }
        out().println("returned=" + r.returned() + " dead=" + r.dead());
        return ExitCodes.OK;
    }
}
