package io.echomq.cli;

import io.echomq.audit.AuditEntry;
import io.echomq.audit.AuditTarget;
import io.echomq.audit.AuditTrail;
import io.echomq.queue.QueueClient;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code emq audit [--queue <q> | --lock <resource>]}: the server's record of operator actions. */
@Command(name = "audit",
        description = {"Lists what operators did, newest first, one record per line, tab-separated:",
            "  <when, ISO-8601 UTC>  <action>  queue <name>|lock <name>  <who>  <detail>",
            "The actions are paused, resumed, redriven, purged, deleted, cancelled, removed, rate-limit-set, "
                + "rate-limit-cleared, cap-set, cap-cleared and taken-over, as emq and the dashboard record them "
                + "(who: 'emq <user>@<host> pid <pid>' or 'dashboard from <address>'); the time is the server's. "
                + "The server keeps about " + AuditTrail.MAX_ENTRIES + " records (" + AuditTrail.KEY + "), the "
                + "oldest dropped first; a record outlives what it is about, a deleted queue included. "
                + "--format json and csv print the columns id, at, action, kind, name, who and detail."})
final class AuditCommand implements Callable<Integer> {
    /** The columns of {@code --format json|csv}. */
    static final List<String> COLUMNS = List.of("id", "at", "action", "kind", "name", "who", "detail");

    @Spec
    CommandSpec spec;
    @Mixin
    HelpOption help;
    @Mixin
    RedisOptions redis;
    @Mixin
    FormatOption format;
    @ArgGroup(exclusive = true)
    Target target;
    @Option(names = "--limit", paramLabel = "<n>", defaultValue = "20",
            description = "Most records listed, 1.." + AuditTrail.MAX_READ + ". Default: ${DEFAULT-VALUE}.")
    int limit;

    /** Whose records: one queue's or one lock's; every record when neither is given. */
    static final class Target {
        @Option(names = "--queue", paramLabel = "<queue>", description = "Only the records about this queue "
                + "(it need not exist any more).")
        String queue;
        @Option(names = "--lock", paramLabel = "<resource>", description = "Only the records about this lock.")
        String lock;
    }

    @Override
    public Integer call() {
        QueueArgs.inRange(spec, "--limit", limit, 1, AuditTrail.MAX_READ, "");
        AuditTarget only = null;
        try {
            if (target != null) {
                only = target.queue != null ? AuditTarget.queue(target.queue) : AuditTarget.lock(target.lock);
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '"
                    + (target.queue != null ? "--queue" : "--lock") + "': " + e.getMessage());
        }
        List<AuditEntry> entries;
        try (QueueClient client = redis.connectQueue()) {
            AuditTrail trail = client.auditTrail();
            entries = only == null ? trail.recent(limit) : trail.recent(only, limit);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (format.text()) {
            for (AuditEntry e : entries) {
                out.println(e.at() + "\t" + e.action() + '\t' + e.target() + '\t' + e.who() + '\t'
                        + e.detail().replaceAll("[\\t\\r\\n]+", " "));
            }
        } else {
            Rows rows = format.rows(out, COLUMNS);
            for (AuditEntry e : entries) {
                rows.row(e.id(), e.at().toString(), e.action(), e.target().kind().field(), e.target().name(), e.who(),
                        e.detail());
            }
            rows.end();
        }
        out.flush();
        return ExitCodes.OK;
    }
}
