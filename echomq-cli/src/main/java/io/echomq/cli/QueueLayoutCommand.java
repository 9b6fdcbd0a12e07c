package io.echomq.cli;

import io.echomq.queue.LayoutChange;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueLayout;
import io.echomq.queue.QueueOperations;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** {@code emq queue layout <queue> [list|zset]}. */
@Command(name = "layout",
        description = {"Shows or sets where the queue keeps its pending jobs of priority 0. The layout is stored "
            + "with the queue, so every client and worker follows it; our workers read both.",
            "  list  the default: priority 0 waits in the LIST emq:{q}:wait (the cheapest FIFO). A consumer "
                + "that only pops the sorted set emq:{q}:pending (ZPOPMIN) sees none of those jobs.",
            "  zset  every pending job waits in the sorted set emq:{q}:pending, in claim order, so a ZPOPMIN "
                + "consumer gets them all. Enqueues and claims cost O(log n) instead of O(1).",
            "With no layout, prints layout=<list|zset>. With one, stores it and prints "
                + "layout=<list|zset> changed=<yes|no> moved=<n>: switching to zset moves the jobs waiting in "
                + "the LIST into the sorted set in one atomic step, in their order (O(n), the server busy "
                + "meanwhile); switching to list moves nothing. A sharded queue sets every partition."})
final class QueueLayoutCommand extends CreatingQueueSubcommand {
    @Parameters(index = "1", arity = "0..1", paramLabel = "<layout>",
            description = "list or zset; leave it out to show the stored layout.")
    String layout;

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        QueueLayout wanted = null;
        if (layout != null) {
            try {
                wanted = QueueLayout.parse(layout);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "Invalid value for <layout>: '" + layout
                        + "' (expected list or zset)");
            }
        }
        try (QueueClient client = connect()) {
            QueueOperations q = open(client);
            if (wanted == null) {
                out().println("layout=" + q.layout().wireName());
            } else {
                LayoutChange c = q.setLayout(wanted);
                out().println("layout=" + c.layout().wireName() + " changed=" + (c.changed() ? "yes" : "no")
                        + " moved=" + c.moved());
            }
        }
        return ExitCodes.OK;
    }
}
