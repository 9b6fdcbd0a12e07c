package io.echomq.cli;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.QueueStats;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code emq queue stats <queue>}. */
@Command(name = "stats",
        description = {"Prints the queue's counts, read in one atomic step, as one line:",
            "  pending=N active=N delayed=N dead=N completed=N failed=N overdue=N paused=0|1",
            "completed and failed count since the queue was created (each retry is a failure); overdue "
                + "counts active jobs whose lease ran out, which the next reap returns; paused is 1 while "
                + "claims are paused (for a sharded queue: any partition)."})
final class QueueStatsCommand extends QueueSubcommand {
    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        QueueStats s;
        List<QueueStats> each = List.of();
        try (QueueClient client = connect()) {
            QueueOperations q = open(client);
            s = q.stats();
            if (q.isSharded()) {
                each = q.partitionStats();
            }
        }
        out().println(describe(s));
        for (int i = 0; i < each.size(); i++) {
            out().println("partition=" + i + " " + describe(each.get(i)));
        }
        return ExitCodes.OK;
    }

    /** @return {@code pending=N active=N delayed=N dead=N completed=N failed=N overdue=N paused=0|1} */
    static String describe(QueueStats s) {
        return "pending=" + s.pending() + " active=" + s.active() + " delayed=" + s.delayed() + " dead=" + s.dead()
                + " completed=" + s.completed() + " failed=" + s.failed() + " overdue=" + s.overdue()
                + " paused=" + (s.paused() ? 1 : 0);
    }
}
