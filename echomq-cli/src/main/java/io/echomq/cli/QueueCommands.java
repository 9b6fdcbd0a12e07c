package io.echomq.cli;

import picocli.CommandLine.Command;

/**
 * {@code emq queue}: enqueue a job and operate a queue from a shell: stats, reap, remove, the dead
 * letters and one job's hash. Each subcommand checks its input before it connects (bad input
 * exits 2 without touching Redis), prints its answer on stdout and notes on stderr. Every one but
 * enqueue refuses a queue that is not stored (exit code 2, naming the close stored queues) unless
 * it offers and is given --create; the destructive ones act only when confirmed (--yes, or y on a
 * terminal; exit code 10 otherwise).
 *
 * <pre>
 * emq queue enqueue emails '{"to":"ada@example.com"}' --priority 10   # 17
 * emq queue enqueue emails '{"to":"bob@example.com"}' --timeout 60000 # 18: a handler may run 60 s on it
 * emq queue timeout emails 30000                                      # timeout=30000, for jobs without their own
 * emq queue stats emails      # pending=3 active=1 delayed=0 dead=2 completed=40 failed=5 overdue=0 paused=0 limit=none cap=none throttled=no
 * emq queue pause emails      # PAUSED
 * emq queue cancel emails 17  # SIGNALLED
 * emq queue dead emails       # 12	2024-05-01T12:00:00.123Z	attempts=3	failed on attempt 3 of 3	exit status 1
 * emq queue dead emails --retry --yes                                 # redriven=2
 * emq queue list emails --state dead --limit 50                       # one job per line; next=… on stderr
 * emq queue layout emails zset                                       # layout=zset changed=yes moved=3
 * emq queue delete emails --force --yes                               # deleted keys=120 active=1
 * emq queue enqueue emails '{}' --group customer-7                      # 19: one at a time per customer
 * emq queue groups emails max 2                                       # group_max=2
 * emq queue groups emails pause customer-7                            # PAUSED
 * emq queue workers emails     # vm-7111-1 host=vm pid=7111 name=emq-worker-emails-1 concurrency=8 in_hand=3 …
 * </pre>
 */
@Command(name = "queue", mixinStandardHelpOptions = true,
        description = {"Enqueue jobs and operate a queue: stats, reap, remove, dead letters, inspect, pause, "
            + "resume, cancel, list, retention, timeout, limit, cap, groups, workers, layout, delete, events, "
            + "event-settings, wait.",
            "Every subcommand but enqueue refuses a queue that is not stored, with exit code 2 and the stored "
                + "queues close to its name (no such queue 'paymnets'; did you mean 'payments'?), and writes "
                + "nothing. The first enqueue creates a queue; the subcommands that store a setting take --create "
                + "to start on a new one.",
            "dead --retry, dead --purge, delete and remove --force show what they would touch (the count and "
                + "the first ids) and act only with --yes, or on y at Proceed? [y/N] on a terminal; without a "
                + "terminal and without --yes they change nothing and exit 10. --dry-run shows it and changes "
                + "nothing."},
        subcommands = {QueueEnqueueCommand.class, QueueStatsCommand.class, QueueReapCommand.class,
            QueueRemoveCommand.class, QueueDeadCommand.class, QueueInspectCommand.class, QueuePauseCommand.class,
            QueueResumeCommand.class, QueueCancelCommand.class, QueueListCommand.class,
            QueueRetentionCommand.class, QueueTimeoutCommand.class, QueueLimitCommand.class, QueueCapCommand.class,
            QueueGroupsCommand.class, QueueWorkersCommand.class, QueueLayoutCommand.class, QueueDeleteCommand.class,
            QueueEventsCommand.class, QueueEventSettingsCommand.class, QueueWaitCommand.class,
            QueueErrorsCommand.class, QueueShowCommand.class})
final class QueueCommands {
    private QueueCommands() {
    }
}
