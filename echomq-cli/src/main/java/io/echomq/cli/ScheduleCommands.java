package io.echomq.cli;

import io.echomq.queue.MissedFires;
import io.echomq.queue.QueueClient;
import io.echomq.queue.Schedule;
import io.echomq.queue.ScheduleInfo;
import io.echomq.queue.ScheduleSpec;
import io.echomq.queue.Schedules;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code emq schedule}: a queue's recurring schedules, stored in Redis, fired by the queue's workers
 * or by {@code emq scheduler}. Each subcommand checks its whole input (the cron expression, the
 * zone, the interval, the policy) before it connects: bad input exits 2 with one line and touches
 * nothing.
 *
 * <pre>
 * emq schedule add reports nightly '{"kind":"daily"}' --cron '0 2 * * *' --zone Europe/Berlin --missed once
 * emq schedule add reports beat ping --every 30s                # nightly next=2026-12-02T01:00:00Z version=1
 * emq schedule list reports      # one schedule per line: id, spec, zone, next, missed, payload
 * emq schedule next reports nightly --count 3
 * emq schedule remove reports nightly                           # REMOVED
 * </pre>
 */
@Command(name = "schedule", mixinStandardHelpOptions = true,
        description = "Recurring schedules of a queue: add (or replace), list, next fire times, remove.",
        subcommands = {ScheduleCommands.Add.class, ScheduleCommands.ListSchedules.class, ScheduleCommands.Next.class,
            ScheduleCommands.Remove.class})
final class ScheduleCommands {

    private ScheduleCommands() {
    }

    /** What every schedule subcommand takes: help, the Redis URL and the queue's name. */
    abstract static class Subcommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        HelpOption help;
        @Mixin
        RedisOptions redis;
        @Parameters(index = "0", paramLabel = "<queue>", parameterConsumer = DashValue.class,
                description = "The queue's name (a plain or a sharded queue).")
        String queue;

        PrintWriter out() {
            return spec.commandLine().getOut();
        }

        /**
         * Connects, and refuses a queue that is not stored unless {@code create}.
         *
         * @throws IllegalArgumentException (exit code 2) if the queue is not stored and not {@code create}
         */
        QueueClient connectStored(boolean create, String createHint) {
            QueueClient client = redis.connectQueue();
            if (!create) {
                try {
                    QueueLookup.requireStored(client, queue, createHint);
                } catch (RuntimeException e) {
                    client.close();
                    throw e;
                }
            }
            return client;
        }

        /** @return the id, checked as the core checks it */
        String checkId(String id) {
            try {
                return Schedule.checkId(id);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "Invalid value for <id>: " + e.getMessage());
            }
        }
    }

    /** {@code emq schedule add <queue> <id> <payload> (--every D | --cron E) [options]}. */
    @Command(name = "add",
            description = {"Adds a schedule, or replaces the one with that id, and prints its next fire time.",
                "Replacing a schedule with the same timing keeps its next fire time, so nothing due is skipped."})
    static final class Add extends Subcommand {
        @Mixin
        CreateOption createOption;
        @Parameters(index = "1", paramLabel = "<id>", description = "The schedule's id: 1..200 bytes, no blanks, '{' or '}'.")
        String id;
        @Parameters(index = "2", paramLabel = "<payload>", parameterConsumer = DashValue.class,
                description = "The payload of every job it fires, as text.")
        String payload;

        @ArgGroup(exclusive = true, multiplicity = "1")
        Timing timing;

        /** Exactly one of the two kinds. */
        static final class Timing {
            @Option(names = "--every", paramLabel = "<interval>",
                    description = "A fixed interval: 500ms, 30s, 5m, 2h, 1d or an ISO-8601 duration (PT5M); at least "
                        + "100 ms. Fires at every multiple of it since the epoch (UTC).")
            String every;
            @Option(names = "--cron", paramLabel = "<expression>",
                    description = "A cron expression: 5 fields (minute hour day-of-month month day-of-week) or 6 "
                        + "(seconds first), read in --zone.")
            String cron;
        }

        @Option(names = "--zone", paramLabel = "<zone>", defaultValue = "UTC",
                description = "The time zone of a --cron expression, e.g. Europe/Berlin (default: ${DEFAULT-VALUE}).")
        String zone;
        @Option(names = "--missed", paramLabel = "<policy>", defaultValue = "skip",
                description = "What to do with fire times missed by more than 60 s (no scheduler was running): skip, "
                    + "once (one job for all of them) or all (each, oldest first, at most --max-missed). "
                    + "Default: ${DEFAULT-VALUE}.")
        String missed;
        @Option(names = "--max-missed", paramLabel = "<n>", defaultValue = "10",
                description = "The most missed fire times --missed all fires, 1.." + Schedule.MAX_MISSED
                    + " (default: ${DEFAULT-VALUE}).")
        int maxMissed;
        @Option(names = "--priority", paramLabel = "<p>", defaultValue = "0",
                description = "Priority of every job fired, -1000..1000 (default: ${DEFAULT-VALUE}).")
        int priority;
        @Option(names = "--max-attempts", paramLabel = "<n>", defaultValue = "0",
                description = "Attempts of every job fired, 1..1000; 0 for the default (3).")
        int maxAttempts;

        @Override
        public Integer call() {
            QueueArgs.checkQueue(spec, queue);
            checkId(id);
            if (payload == null || payload.isEmpty()) {
                throw new ParameterException(spec.commandLine(), "<payload> must not be empty");
            }
            ScheduleSpec when = timing.every != null ? ScheduleSpec.every(interval(timing.every))
                    : ScheduleSpec.cron(timing.cron, zone);
            Schedule s = Schedule.of(id, when, payload).withMissed(MissedFires.parse(missed)).withMaxMissed(maxMissed)
                    .withPriority(priority);
            if (maxAttempts != 0) {
                s = s.withMaxAttempts(maxAttempts);
            }
            try (QueueClient client = connectStored(createOption.create, "--create")) {
                ScheduleInfo info = client.schedules(queue).upsert(s);
                out().println(id + " next=" + info.nextFire().map(Instant::toString).orElse("never") + " version="
                        + info.version());
            }
            return ExitCodes.OK;
        }

        /** @return {@code 30s}, {@code 5m}, … or an ISO-8601 duration ({@link QueueArgs#duration}) */
        static Duration interval(String text) {
            Duration d = QueueArgs.duration(text);
            if (d == null) {
                throw new IllegalArgumentException("--every '" + text + "' is no interval: use 500ms, 30s, 5m, 2h, 1d "
                        + "or an ISO-8601 duration such as PT5M");
            }
            return d;
        }
    }

    /** {@code emq schedule list <queue>}. */
    @Command(name = "list", description = {"Lists the queue's schedules, earliest next fire time first, one per line:",
        "<id> <spec> zone=<zone> next=<time|never> missed=<policy> payload=<text>"})
    static final class ListSchedules extends Subcommand {
        @Override
        public Integer call() {
            QueueArgs.checkQueue(spec, queue);
            try (QueueClient client = connectStored(false, null)) {
                for (ScheduleInfo i : client.schedules(queue).list()) {
                    Schedule s = i.schedule();
                    out().println(s.id() + "\t" + s.spec().text() + "\tzone=" + s.spec().zone().getId() + "\tnext="
                            + i.nextFire().map(Instant::toString).orElse("never") + "\tmissed=" + s.missed().text()
                            + (s.missed() == MissedFires.ALL ? "/" + s.maxMissed() : "") + "\tpayload=" + s.payloadUtf8());
                }
            }
            return ExitCodes.OK;
        }
    }

    /** {@code emq schedule next <queue> <id> [--count n]}. */
    @Command(name = "next", description = "Prints a schedule's next fire times, one per line (exit 1: no such schedule).")
    static final class Next extends Subcommand {
        @Parameters(index = "1", paramLabel = "<id>", description = "The schedule's id.")
        String id;
        @Option(names = "--count", paramLabel = "<n>", defaultValue = "5",
                description = "How many, 1.." + Schedules.MAX_NEXT + " (default: ${DEFAULT-VALUE}).")
        int count;

        @Override
        public Integer call() {
            QueueArgs.checkQueue(spec, queue);
            checkId(id);
            QueueArgs.inRange(spec, "--count", count, 1, Schedules.MAX_NEXT, "");
            try (QueueClient client = connectStored(false, null)) {
                Schedules schedules = client.schedules(queue);
                if (schedules.get(id).isEmpty()) {
                    spec.commandLine().getErr().println("no schedule " + id + " in queue " + queue);
                    return ExitCodes.NO;
                }
                List<Instant> times = schedules.next(id, count);
                times.forEach(t -> out().println(t));
            }
            return ExitCodes.OK;
        }
    }

    /** {@code emq schedule remove <queue> <id>}. */
    @Command(name = "remove", description = "Removes a schedule; jobs it fired stay. Prints REMOVED, or MISSING (exit 1).")
    static final class Remove extends Subcommand {
        @Parameters(index = "1", paramLabel = "<id>", description = "The schedule's id.")
        String id;

        @Override
        public Integer call() {
            QueueArgs.checkQueue(spec, queue);
            checkId(id);
            try (QueueClient client = connectStored(false, null)) {
                boolean removed = client.schedules(queue).remove(id);
                out().println(removed ? "REMOVED" : "MISSING");
                return removed ? ExitCodes.OK : ExitCodes.NO;
            }
        }
    }
}
