package io.echomq.cli;

import picocli.CommandLine.Command;

/**
 * {@code emq queue}: enqueue a job and operate a queue from a shell: stats, reap, remove, the dead
 * letters and one job's hash. Each subcommand checks its input before it connects (bad input
 * exits 2 without touching Redis), prints its answer on stdout and notes on stderr.
 *
 * <pre>
 * emq queue enqueue emails '{"to":"ada@example.com"}' --priority 10   # 17
 * emq queue enqueue emails '{"to":"bob@example.com"}' --timeout 60000 # 18: a handler may run 60 s on it
 * emq queue timeout emails 30000                                      # timeout=30000, for jobs without their own
 * emq queue stats emails      # pending=3 active=1 delayed=0 dead=2 completed=40 failed=5 overdue=0 paused=0
 * emq queue pause emails      # PAUSED
 * emq queue cancel emails 17  # SIGNALLED
 * emq queue dead emails       # 12	2024-05-01T12:00:00.123Z	attempts=3	failed on attempt 3 of 3	exit status 1
 * emq queue dead emails --retry                                       # redriven=2
 * emq queue list emails --state dead --limit 50                       # one job per line; next=… on stderr
 * emq queue layout emails zset                                       # layout=zset changed=yes moved=3
 * emq queue delete emails --force                                     # deleted keys=120 active=1
 * emq queue enqueue emails '{}' --group customer-7                      # 19: one at a time per customer
 * emq queue groups emails max 2                                       # group_max=2
 * emq queue groups emails pause customer-7                            # PAUSED
 * </pre>
 */
@Command(name = "queue", mixinStandardHelpOptions = true,
        description = "Enqueue jobs and operate a queue: stats, reap, remove, dead letters, inspect, pause, "
            + "resume, cancel, list, retention, timeout, limit, cap, groups, layout, delete, events, event-settings, wait.",
        subcommands = {QueueEnqueueCommand.class, QueueStatsCommand.class, QueueReapCommand.class,
            QueueRemoveCommand.class, QueueDeadCommand.class, QueueInspectCommand.class, QueuePauseCommand.class,
            QueueResumeCommand.class, QueueCancelCommand.class, QueueListCommand.class,
            QueueRetentionCommand.class, QueueTimeoutCommand.class, QueueLimitCommand.class, QueueCapCommand.class,
            QueueGroupsCommand.class, QueueLayoutCommand.class, QueueDeleteCommand.class,
            QueueEventsCommand.class, QueueEventSettingsCommand.class, QueueWaitCommand.class})
final class QueueCommands {
    private QueueCommands() {
    }
}
