package io.echomq.cli;

import io.echomq.audit.AuditEntry;
import io.echomq.audit.AuditTarget;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueEventSettings;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.QueueRetention;
import io.echomq.queue.QueueStats;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;

/** {@code emq queue show <queue>}: the queue's settings and state, one {@code key=value} per line. */
@Command(name = "show",
        description = {"Prints what is set on the queue and whether its claims are held back now, one key=value per "
            + "line:",
            "  partitions=N        1, or a sharded queue's count",
            "  paused=0|1",
            "  throttled=no|hold|rate|cap, then the reason in words for hold, rate and cap",
            "  limit=N/Nms|none    the rate limit (emq queue limit)",
            "  started-in-window=N the claims its window counts now (0 without a limit)",
            "  cap=N|none          the concurrency cap (emq queue cap), then active=N",
            "  timeout=Nms|none    the default timeout of a handler (emq queue timeout)",
            "  layout=list|zset    (emq queue layout)",
            "  retention=done-max=N done-age=Nms dead-max=N dead-age=Nms, or none when the queue stores none",
            "  events=on|off max=N enqueued=on|off (emq queue event-settings)",
            "  last-action=<when> <action> by <who>, or none: the newest audit record of the queue (emq audit)",
            "Counts are emq queue stats'; its workers, emq queue workers'."})
final class QueueShowCommand extends QueueSubcommand {
    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        PrintWriter out = out();
        try (QueueClient client = connect()) {
            QueueOperations q = open(client);
            QueueStats s = q.stats();
            Throttle t = Throttle.of(q.flowControl(), s);
            out.println("partitions=" + q.partitions());
            out.println("paused=" + (s.paused() ? 1 : 0));
            out.println("throttled=" + t.kind() + (t.words().isEmpty() ? "" : " (" + t.words() + ")"));
            out.println("limit=" + t.limitText());
            out.println("started-in-window=" + t.startedInWindow());
            out.println("cap=" + t.capText() + " active=" + s.active());
            out.println("timeout=" + q.defaultTimeout().map(d -> d.toMillis() + "ms").orElse("none"));
            out.println("layout=" + q.layout().wireName());
            Optional<QueueRetention> r = q.retention();
            out.println("retention=" + r.map(x -> "done-max=" + x.doneMax() + " done-age=" + x.doneAge().toMillis()
                    + "ms dead-max=" + x.deadMax() + " dead-age=" + x.deadAge().toMillis() + "ms").orElse("none"));
            QueueEventSettings e = QueueEventSettings.read(client, q.isSharded() ? queue + "#0" : queue);
            out.println("events=" + (e.enabled() ? "on" : "off") + " max=" + e.maxLength() + " enqueued="
                    + (e.enqueued() ? "on" : "off"));
            List<AuditEntry> last = client.auditTrail().recent(AuditTarget.queue(queue), 1);
            out.println("last-action=" + (last.isEmpty() ? "none" : last.get(0).at() + " " + last.get(0).action() + " by "
                    + last.get(0).who()));
        }
        return ExitCodes.OK;
    }
}
