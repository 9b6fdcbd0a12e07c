package io.echomq.cli;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueEvent;
import io.echomq.queue.QueueEvents;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code emq queue events <queue> [--follow] [--from ID] [--partition i]}: prints the queue's
 * events, one a line, in the stable format {@link #line} documents.
 *
 * <p>Without {@code --follow} it prints what the stream keeps after {@code --from} (default: all)
 * and exits; with it, it then waits for new events until SIGINT or SIGTERM ({@link StopSignals}).
 */
@Command(name = "events",
        description = {"Prints the queue's events (docs/protocol.md, \"Events\"), one a line:",
            "  <stream-id> <event> <job-id> <attempt> [<field>=<value>]...",
            "for example: 1764625000000-0 retrying 42 1 reason=boom delay_ms=1000. A value holding a space, a "
                + "quote, '=', a backslash or a control character is printed in double quotes with \\\", \\\\, "
                + "\\n, \\r and \\t escaped. When events after the last one printed were trimmed by the stream's "
                + "cap before they could be read, a line <first-kept-id> gap - 0 after=<last-id> first=<first-kept-id> "
                + "comes first, and a note goes to stderr.",
            "Without --follow, prints the events the stream keeps after --from and exits; with --follow, goes on "
                + "with new ones until SIGINT or SIGTERM. To resume later, pass the last stream id printed to --from.",
            "Events are switched on or off, and capped, per queue: see emq queue event-settings."})
final class QueueEventsCommand extends QueueSubcommand {
    @Mixin
    CreateOption createOption;
    @Option(names = "--follow", description = "Wait for new events after the kept ones, until stopped.")
    boolean follow;
    @Option(names = "--from", paramLabel = "<id>", description = "Start after this stream id <ms>-<seq>; 0 for "
            + "the oldest kept (the default without --follow); $ for new events only (the default with --follow).")
    String from;
    @Option(names = "--partition", paramLabel = "<i>", description = "For a sharded queue: read partition i "
            + "(its events are kept per partition, in <queue>#<i>).")
    Integer partition;
    private final CountDownLatch stop = new CountDownLatch(1);

    @Override
    public Integer call() throws InterruptedException {
        QueueArgs.checkQueue(spec, queue);
        if (partitions != null) {
            throw new ParameterException(spec.commandLine(), "--partitions does not apply: a sharded queue keeps "
                    + "its events per partition; name one with --partition <i>");
        }
        String name = queue;
        if (partition != null) {
            name = queue + "#" + QueueArgs.inRange(spec, "--partition", partition, 0,
                    io.echomq.queue.ShardedQueue.MAX_PARTITIONS - 1, "");
        }
        String start = from != null ? from : follow ? "$" : "0";
        if (!start.equals("$") && !start.equals("0") && !start.matches("\\d{1,20}-\\d{1,20}")) {
            throw new ParameterException(spec.commandLine(), "Invalid value for --from: '" + start
                    + "' is not a stream id <ms>-<seq>, 0 or $");
        }
        if (!createOption.create) {
            try (QueueClient client = connect()) {
                QueueLookup.requireStored(client, queue, "--create");
            }
        }
        int signal = 0;
        try (QueueEvents events = redis.openEvents(name, start);
             StopSignals signals = follow ? StopSignals.install(n -> stop.countDown(), stop::countDown) : null) {
            while (stop.getCount() > 0) {
                QueueEvent e = events.next(follow ? Duration.ofMillis(500) : Duration.ZERO);
                if (e == null) {
                    if (!follow) {
                        break;
                    }
                    continue;
                }
                if (e.isGap()) {
                    err().println(spec.qualifiedName() + ": events after " + e.fields().get("after")
                            + " were trimmed by the stream's cap before they were read; going on from "
                            + e.fields().get("first"));
                    err().flush();
                }
                out().println(line(e));
                out().flush();
            }
            signal = signals == null ? 0 : signals.firstSignal();
        }
        return signal > 0 ? 128 + signal : ExitCodes.OK;
    }

    /** Stops a running {@code --follow}, as a signal does (tests). */
    void stop() {
        stop.countDown();
    }

    /**
     * @return the event as one line: {@code <stream-id> <event> <job-id> <attempt>}, then each
     *     other field as {@code <field>=<value>} in the stream's order ({@code -} for an empty job id)
     */
    static String line(QueueEvent e) {
        StringBuilder b = new StringBuilder();
        b.append(e.streamId()).append(' ').append(e.event()).append(' ')
                .append(e.jobId().isEmpty() ? "-" : quoted(e.jobId())).append(' ').append(e.attempt());
        for (Map.Entry<String, String> f : e.fields().entrySet()) {
            String k = f.getKey();
            if (!k.equals("event") && !k.equals("id") && !k.equals("attempt")) {
                b.append(' ').append(quoted(k)).append('=').append(quoted(f.getValue()));
            }
        }
        return b.toString();
    }

    /** @return {@code s} as it is, or in double quotes with escapes when it could split the line */
    static String quoted(String s) {
        boolean plain = !s.isEmpty();
        for (int i = 0; i < s.length() && plain; i++) {
            char c = s.charAt(i);
            plain = !(Character.isWhitespace(c) || Character.isISOControl(c) || c == '"' || c == '\\' || c == '=');
        }
        if (plain) {
            return s;
        }
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (Character.isISOControl(c)) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
