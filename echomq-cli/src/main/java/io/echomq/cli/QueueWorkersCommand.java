package io.echomq.cli;

import io.echomq.queue.QueueClient;
import io.echomq.queue.WorkerDirectory;
import io.echomq.queue.WorkerInfo;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code emq queue workers <queue>}: the queue's live workers, from their heartbeats. */
@Command(name = "workers",
        description = {"Prints the queue's live workers, one line each, by host, pid and name:",
            "  <id> host=H pid=N name=W concurrency=N in_hand=N since_beat_ms=N started=<ISO-8601> "
                + "paused=<yes|no> jobs=<id,id,...|->",
            "then workers=N on stderr. <id> (<host>-<pid>-<n>) is unique to one worker, whatever its name (emq "
                + "worker --name). Each running worker records a heartbeat on its queue (a sharded "
                + "queue's on partition 0) when its jobs in hand, their ids or its paused state change (at most "
                + "once per maintenance interval, 2 s by default) and at least every five maintenance "
                + "intervals (10 s by default); in_hand, paused (its last claim found the queue paused) and jobs "
                + "(the ids of the jobs it holds, at most 100, sorted) are as of that beat. A worker that stopped "
                + "without closing is left out once its record expires (30 s by default)."})
final class QueueWorkersCommand extends QueueSubcommand {
    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        List<WorkerInfo> workers;
        try (QueueClient client = connect()) {
            open(client);
            workers = WorkerDirectory.of(client).list(queue);
        }
        for (WorkerInfo w : workers) {
            out().println(describe(w));
        }
        out().flush();
        err().println("workers=" + workers.size());
        return ExitCodes.OK;
    }

    /**
     * @return {@code <id> host=H pid=N name=W concurrency=N in_hand=N since_beat_ms=N started=<ISO-8601>
     *     paused=<yes|no> jobs=<id,id,...|->}
     */
    static String describe(WorkerInfo w) {
        return w.id() + " host=" + w.host() + " pid=" + w.pid() + " name=" + w.name() + " concurrency="
                + w.concurrency() + " in_hand=" + w.inHand() + " since_beat_ms=" + w.sinceBeat().toMillis()
                + " started=" + w.startedAt() + " paused=" + (w.paused() ? "yes" : "no") + " jobs="
                + (w.jobIds().isEmpty() ? "-" : String.join(",", w.jobIds()));
    }
}
