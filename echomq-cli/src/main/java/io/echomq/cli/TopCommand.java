package io.echomq.cli;

import io.echomq.RedisUrl;
import io.echomq.queue.JobInfo;
import io.echomq.queue.JobPage;
import io.echomq.queue.JobState;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueDirectory;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.QueueStats;
import io.echomq.queue.ThroughputHistory;
import io.echomq.queue.ThroughputMinute;
import io.echomq.queue.WorkerDirectory;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code emq top [--interval D] [--once] [--max N]}: every queue of the server, one line each, redrawn in place.
 *
 * <p>Duties: find the queues ({@link QueueDirectory}, a SCAN walk), read each one's counts, last minute's
 * throughput, oldest pending job and flow control, and print them as a table; on a terminal clear the screen before
 * each frame, elsewhere print frames one after another (or one with {@code --once}). Per queue and frame it costs
 * the stats script, one throughput read, one listing of one pending job with its inspect, and the flow settings:
 * nothing that grows with the queue's length.
 */
@Command(name = "top",
        description = {"Shows every queue of the server, one line each, refreshed in place until Ctrl-C:",
            "  QUEUE PENDING ACTIVE DELAYED DEAD DONE/MIN FAILED/MIN OLDEST STATE",
            "DONE/MIN and FAILED/MIN are the last whole minute's, as workers record them (- before any); OLDEST is "
                + "how long the next job to be claimed has waited, on the server's clock (- when none waits); STATE "
                + "is paused, throttled (a handler's back-off holds claims, the rate limit's window is full, or so is the "
                + "concurrency cap), or ok. "
                + "The queues are found by a SCAN of the keyspace once per frame; at most --max are shown, and a "
                + "last line says how many more there are. Without a terminal, or with --once, frames are printed "
                + "one after another instead."})
final class TopCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    HelpOption help;
    @Mixin
    RedisOptions redis;

    @Option(names = "--interval", paramLabel = "D", defaultValue = "2s",
            description = "Time between frames, 500ms..1m (2s, 500ms, PT5S). Default: ${DEFAULT-VALUE}.")
    String interval;
    @Option(names = "--once", description = "Print one frame and exit.")
    boolean once;
    @Option(names = "--max", paramLabel = "N", defaultValue = "50",
            description = "Most queues shown, 1..1000, in name order. Default: ${DEFAULT-VALUE}.")
    int max;

    /** One queue's line of a frame. */
    record Row(String name, QueueStats stats, long donePerMin, long failedPerMin, Duration oldest, String state) {
    }

    @Override
    public Integer call() throws InterruptedException {
        Duration every = interval(spec, interval);
        QueueArgs.inRange(spec, "--max", max, 1, 1000, "");
        boolean terminal = System.console() != null && !once;
        String where = RedisUrl.redact(redis.effectiveUrl());
        try (QueueClient client = redis.connectQueue()) {
            while (true) {
                String frame = frame(client, where);
                PrintWriter out = spec.commandLine().getOut();
                if (terminal) {
                    out.print("\033[H\033[2J");
                }
                out.print(frame);
                out.flush();
                if (once) {
                    return ExitCodes.OK;
                }
                if (!terminal) {
                    out.println();
                }
                Thread.sleep(every.toMillis());   // Ctrl-C ends the JVM, and the view with it
            }
        }
    }

    /**
     * @return {@code --interval}: {@code 500ms}, {@code 2s}, {@code 1m} or an ISO-8601 duration, 500 ms..1 minute
     * @throws ParameterException (exit code 2) otherwise
     */
    static Duration interval(CommandSpec spec, String text) {
        Duration d = QueueArgs.duration(text);
        if (d == null) {
            throw new ParameterException(spec.commandLine(), "Invalid value for --interval: '" + text
                    + "' is no duration; use 500ms, 2s, 1m or an ISO-8601 duration such as PT5S");
        }
        if (d.compareTo(Duration.ofMillis(500)) < 0 || d.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new ParameterException(spec.commandLine(), "Invalid value for --interval: '" + text
                    + "' must be 500ms..1m");
        }
        return d;
    }

    /** @return one frame: a header line, the table's head, one line per queue, and how many more */
    String frame(QueueClient client, String where) {
        Instant now = WorkerDirectory.of(client).serverTime();
        SortedSet<String> names = QueueDirectory.of(client).names();
        ThroughputHistory history = ThroughputHistory.of(client);
        List<Row> rows = new ArrayList<>();
        for (String name : names) {
            if (rows.size() == max) {
                break;
            }
            QueueOperations q;
            try {
                q = client.open(name);
            } catch (IllegalStateException | IllegalArgumentException gone) {
                continue;   // deleted or reshaped since the walk
            }
            rows.add(row(name, q, history, now));
        }
        StringBuilder b = new StringBuilder();
        b.append("emq top  ").append(where).append("  ").append(now).append("  ").append(names.size())
                .append(names.size() == 1 ? " queue" : " queues").append('\n');
        if (names.isEmpty()) {
            return b.append("no queue on this server yet: the first enqueue creates one\n").toString();
        }
        int width = Math.max(5, rows.stream().mapToInt(r -> r.name().length()).max().orElse(5));
        String format = "%-" + width + "s %8s %7s %8s %6s %9s %11s %8s  %s%n";
        b.append(String.format(format, "QUEUE", "PENDING", "ACTIVE", "DELAYED", "DEAD", "DONE/MIN", "FAILED/MIN",
                "OLDEST", "STATE"));
        for (Row r : rows) {
            QueueStats s = r.stats();
            b.append(String.format(format, r.name(), s.pending(), s.active(), s.delayed(), s.dead(),
                    r.donePerMin() < 0 ? "-" : Long.toString(r.donePerMin()),
                    r.failedPerMin() < 0 ? "-" : Long.toString(r.failedPerMin()), age(r.oldest()), r.state()));
        }
        if (names.size() > rows.size()) {
            b.append("… and ").append(names.size() - rows.size()).append(" more (--max)\n");
        }
        return b.toString();
    }

    private static Row row(String name, QueueOperations q, ThroughputHistory history, Instant now) {
        QueueStats stats = q.stats();
        List<ThroughputMinute> minutes = history.lastMinutes(name, 1).minutes();
        long done = minutes.isEmpty() ? -1 : minutes.get(minutes.size() - 1).completed();
        long failed = minutes.isEmpty() ? -1 : minutes.get(minutes.size() - 1).failed();
        return new Row(name, stats, done, failed, oldestPending(q, now), state(q, stats));
    }

    /** @return how long the next job to be claimed has waited, or null when none waits */
    static Duration oldestPending(QueueOperations q, Instant now) {
        JobPage page = q.list(JobState.PENDING, 1, null);
        if (page.jobs().isEmpty()) {
            return null;
        }
        Optional<JobInfo> job = q.inspect(page.jobs().get(0).id());
        String created = job.map(j -> j.field("created_at")).orElse(null);
        if (created == null || !created.matches("\\d{1,15}")) {
            return null;   // claimed or removed since the listing, or written by another tool
        }
        return Duration.ofMillis(Math.max(0, now.toEpochMilli() - Long.parseLong(created)));
    }

    /** @return paused, throttled (why) or ok */
    static String state(QueueOperations q, QueueStats stats) {
        if (stats.paused()) {
            return "paused";
        }
        Throttle t = Throttle.of(q.flowControl(), stats);
        return t.none() ? "ok" : "throttled (" + t.words() + ")";
    }

    /** @return {@code -}, or the age as {@code 850ms}, {@code 12s}, {@code 4m05s} or {@code 3h07m} */
    static String age(Duration d) {
        if (d == null) {
            return "-";
        }
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + "ms";
        }
        long s = TimeUnit.MILLISECONDS.toSeconds(ms);
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return String.format("%dm%02ds", s / 60, s % 60);
        }
        return String.format("%dh%02dm", s / 3600, s % 3600 / 60);
    }
}
