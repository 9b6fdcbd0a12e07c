package io.echomq.cli;

import io.echomq.audit.AuditAction;
import io.echomq.queue.FlowControl;
import io.echomq.queue.QueueClient;
import io.echomq.queue.RateLimit;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** {@code emq queue limit <queue> [<n>/<window> | off]}: the queue's rate limit. */
@Command(name = "limit",
        description = {"Shows, sets or clears the queue's rate limit: at most <n> jobs started in any <window>, "
            + "counted by every claim on the server's clock, whatever worker process makes it. A worker held by "
            + "it sleeps until the window lets a job in. It is stored with the queue (emq:{q}:flow) and applies "
            + "from the next claim on.",
            "With no value, prints limit=<n>/<ms>ms, or limit=none. With <n>/<window>, stores it and prints it "
                + "the same way. With off, removes it and prints CLEARED, or NOT_SET when none was stored. A "
                + "sharded queue stores it in every partition, and each partition enforces it on its own: K "
                + "partitions start at most K x <n> per window."})
final class QueueLimitCommand extends CreatingQueueSubcommand {
    private static final Pattern LIMIT = Pattern.compile("([0-9]{1,9})/([0-9]{1,12})(ms|s|m|h)?");

    @Parameters(index = "1", arity = "0..1", paramLabel = "<n>/<window>", parameterConsumer = DashValue.class,
            description = "<n> jobs (1.." + RateLimit.MAX_JOBS + ") per <window>: a whole number of ms, s, m or h "
                + "(ms when no unit is given), at most one day; for example 50/1s or 600/1m. Or off.")
    String limitText;   // read as text, so that a help request after it is never a conversion error

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        RateLimit limit = limitText == null || limitText.equals("off") ? null : parse();
        try (QueueClient client = connect()) {
            FlowControl flow = open(client).flowControl();
            if ("off".equals(limitText)) {
                boolean cleared = flow.clearRateLimit();
                if (cleared) {
                    audit(client, AuditAction.RATE_LIMIT_CLEARED, null);
                }
                out().println(cleared ? "CLEARED" : "NOT_SET");
            } else if (limit != null) {
                flow.setRateLimit(limit);
                audit(client, AuditAction.RATE_LIMIT_SET, "limit " + limit);
                out().println("limit=" + limit);
            } else {
                out().println("limit=" + flow.rateLimit().map(RateLimit::toString).orElse("none"));
            }
        }
        return ExitCodes.OK;
    }

    private RateLimit parse() {
        Matcher m = LIMIT.matcher(limitText);
        if (!m.matches()) {
            throw new ParameterException(spec.commandLine(), "Invalid value for <n>/<window>: '" + limitText
                    + "' is not <n>/<window> (for example 50/1s) or off");
        }
        long n = QueueArgs.inRange(spec, "<n>", Long.parseLong(m.group(1)), 1, RateLimit.MAX_JOBS, " jobs");
        long amount = Long.parseLong(m.group(2));
        String unit = m.group(3) == null ? "ms" : m.group(3);
        long ms = switch (unit) {
            case "h" -> amount > 24 ? Long.MAX_VALUE : amount * 3_600_000L;
            case "m" -> amount > 1440 ? Long.MAX_VALUE : amount * 60_000L;
            case "s" -> amount > 86_400 ? Long.MAX_VALUE : amount * 1000L;
            default -> amount;
        };
        if (ms < 1 || ms > RateLimit.MAX_WINDOW.toMillis()) {
            throw new ParameterException(spec.commandLine(), "Invalid value for <window>: '" + amount + unit
                    + "' is outside 1 ms..1 day");
        }
        return new RateLimit((int) n, Duration.ofMillis(ms));
    }
}
