package io.echomq.cli;

import io.echomq.audit.AuditAction;
import io.echomq.queue.FlowControl;
import io.echomq.queue.QueueClient;
import java.util.OptionalInt;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** {@code emq queue cap <queue> [<k> | off]}: the queue's concurrency cap. */
@Command(name = "cap",
        description = {"Shows, sets or clears the queue's concurrency cap: at most <k> jobs active at once, "
            + "across every worker process. A claim takes a job only while fewer than <k> leases are held; a "
            + "completed, failed, returned or reaped lease frees its place. It is stored with the queue "
            + "(emq:{q}:flow) and applies from the next claim on; jobs already running are not touched.",
            "With no value, prints cap=<k>, or cap=none. With <k>, stores it and prints cap=<k>. With off, "
                + "removes it and prints CLEARED, or NOT_SET when none was stored. A sharded queue stores it in "
                + "every partition, and each partition enforces it on its own: K partitions run at most K x <k>."})
final class QueueCapCommand extends CreatingQueueSubcommand {
    @Parameters(index = "1", arity = "0..1", paramLabel = "<k>", parameterConsumer = DashValue.class,
            description = "The most jobs active at once, 1.." + FlowControl.MAX_CAP + ". Or off.")
    String capText;   // read as text, so that a help request after it is never a conversion error

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        Integer cap = capText == null || capText.equals("off") ? null : parse();
        try (QueueClient client = connect()) {
            FlowControl flow = open(client).flowControl();
            if ("off".equals(capText)) {
                boolean cleared = flow.clearConcurrencyCap();
                if (cleared) {
                    audit(client, AuditAction.CAP_CLEARED, null);
                }
                out().println(cleared ? "CLEARED" : "NOT_SET");
            } else if (cap != null) {
                flow.setConcurrencyCap(cap);
                audit(client, AuditAction.CAP_SET, "cap " + cap);
                out().println("cap=" + cap);
            } else {
                OptionalInt stored = flow.concurrencyCap();
                out().println("cap=" + (stored.isPresent() ? Integer.toString(stored.getAsInt()) : "none"));
            }
        }
        return ExitCodes.OK;
    }

    private int parse() {
        long k;
        try {
            k = Long.parseLong(capText);
        } catch (NumberFormatException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for <k>: '" + capText
                    + "' is not a whole number of jobs, nor off");
        }
        return (int) QueueArgs.inRange(spec, "<k>", k, 1, FlowControl.MAX_CAP, " jobs");
    }
}
