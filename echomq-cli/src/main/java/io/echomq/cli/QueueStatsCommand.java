package io.echomq.cli;

import io.echomq.queue.FlowControl;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.QueueStats;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code emq queue stats <queue>}. */
@Command(name = "stats",
        description = {"Prints the queue's counts, read in one atomic step, and its flow control, as one line:",
            "  pending=N active=N delayed=N dead=N completed=N failed=N overdue=N paused=0|1 limit=N/Nms|none "
                + "cap=N|none throttled=no|hold|rate|cap",
            "completed and failed count since the queue was created (each retry is a failure); overdue "
                + "counts active jobs whose lease ran out, which the next reap returns; paused is 1 while "
                + "claims are paused (for a sharded queue: any partition). limit and cap are the stored rate limit "
                + "and concurrency cap (emq queue limit, emq queue cap); throttled says whether a claim made now "
                + "is held back, and by what: a handler's back-off (hold), a full rate-limit window (rate) or a "
                + "full cap (cap), read after the counts. A sharded queue's partitions follow, one line each, "
                + "with their counts only."})
final class QueueStatsCommand extends QueueSubcommand {
    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        QueueStats s;
        List<QueueStats> each = List.of();
        String flow;
        try (QueueClient client = connect()) {
            QueueOperations q = open(client);
            s = q.stats();
            flow = flow(q.flowControl(), s);
            if (q.isSharded()) {
                each = q.partitionStats();
            }
        }
        out().println(describe(s) + " " + flow);
        for (int i = 0; i < each.size(); i++) {
            out().println("partition=" + i + " " + describe(each.get(i)));
        }
        return ExitCodes.OK;
    }

    /** @return {@code limit=N/Nms|none cap=N|none throttled=no|hold|rate|cap} */
    static String flow(FlowControl flow, QueueStats s) {
        Throttle t = Throttle.of(flow, s);
        return "limit=" + t.limitText() + " cap=" + t.capText() + " throttled=" + t.kind();
    }

    /** @return {@code pending=N active=N delayed=N dead=N completed=N failed=N overdue=N paused=0|1} */
    static String describe(QueueStats s) {
        return "pending=" + s.pending() + " active=" + s.active() + " delayed=" + s.delayed() + " dead=" + s.dead()
                + " completed=" + s.completed() + " failed=" + s.failed() + " overdue=" + s.overdue()
                + " paused=" + (s.paused() ? 1 : 0);
    }
}
