package io.echomq.cli;

import io.echomq.queue.FairGroups;
import io.echomq.queue.GroupCount;
import io.echomq.queue.GroupKeys;
import io.echomq.queue.GroupPage;
import io.echomq.queue.QueueClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** {@code emq queue groups <queue> [list | pause <group> | resume <group> | max [<k>]]}: fair groups. */
@Command(name = "groups",
        description = {"Operates the queue's fair groups (jobs enqueued with --group): claims take the groups in "
            + "turn, and at most k of one group's jobs run at once.",
            "list (the default): one line per group, '<group> waiting=<n> active=<n> paused=<yes|no>', at most "
                + "about --limit per page; when more follow, the last line on stderr is next=<cursor>: pass it to "
                + "--cursor for the next page.",
            "pause <group>: no claim serves the group until it is resumed; prints PAUSED or ALREADY_PAUSED. "
                + "resume <group>: prints RESUMED or NOT_PAUSED.",
            "max: prints group_max=<k> (1 when none is stored); max <k>: stores the per-group concurrency k >= 1 "
                + "and prints it. A sharded queue keeps groups per partition; settings go to every partition."})
final class QueueGroupsCommand extends CreatingQueueSubcommand {
    @Parameters(index = "1", arity = "0..1", paramLabel = "<action>", parameterConsumer = DashValue.class,
            description = "list, pause, resume or max. Default: list.")
    String action;
    @Parameters(index = "2", arity = "0..1", paramLabel = "<arg>", parameterConsumer = DashValue.class,
            description = "The group (pause, resume) or k (max).")
    String arg;
    @Option(names = "--limit", paramLabel = "<n>", defaultValue = "100",
            description = "list: about how many groups per page, 1.." + FairGroups.MAX_PAGE + ". Default: 100.")
    long limit;
    @Option(names = "--cursor", paramLabel = "<cursor>", description = "list: the next=<cursor> of the page before.")
    String cursor;

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        String act = action == null ? "list" : action;
        switch (act) {
            case "list" -> {
                noArg(act);
                int n = (int) QueueArgs.inRange(spec, "--limit", limit, 1, FairGroups.MAX_PAGE, "");
                if (cursor != null && !cursor.matches("[0-9]{1,4}:[wap]:[0-9]{1,20}")) {
                    throw new ParameterException(spec.commandLine(), "Invalid value for --cursor: '" + cursor
                            + "' is not a next=<cursor> this command printed");
                }
                try (QueueClient client = connect()) {
                    GroupPage page = open(client).groups().list(cursor, n);
                    for (GroupCount c : page.groups()) {
                        out().println(c.group() + " waiting=" + c.waiting() + " active=" + c.active()
                                + " paused=" + (c.paused() ? "yes" : "no"));
                    }
                    page.nextCursor().ifPresent(next -> err().println("next=" + next));
                }
            }
            case "pause", "resume" -> {
                String group = group(act);
                try (QueueClient client = connect()) {
                    FairGroups groups = open(client).groups();
                    if (act.equals("pause")) {
                        out().println(groups.pause(group) ? "PAUSED" : "ALREADY_PAUSED");
                    } else {
                        out().println(groups.resume(group) ? "RESUMED" : "NOT_PAUSED");
                    }
                }
            }
            case "max" -> {
                Integer k = arg == null ? null : (int) QueueArgs.inRange(spec, "<k>", number(arg), 1, Integer.MAX_VALUE, "");
                try (QueueClient client = connect()) {
                    FairGroups groups = open(client).groups();
                    if (k != null) {
                        groups.setMax(k);
                    }
                    out().println("group_max=" + groups.max());
                }
            }
            default -> throw new ParameterException(spec.commandLine(), "Invalid value for <action>: '" + act
                    + "' is not list, pause, resume or max");
        }
        return ExitCodes.OK;
    }

    private void noArg(String act) {
        if (arg != null) {
            throw new ParameterException(spec.commandLine(), act + " takes no <arg>, was given '" + arg + "'");
        }
    }

    private String group(String act) {
        if (arg == null) {
            throw new ParameterException(spec.commandLine(), act + " needs a <group>");
        }
        try {
            return GroupKeys.check(arg);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for <group>: " + e.getMessage());
        }
    }

    private long number(String text) {
        if (!text.matches("-?[0-9]{1,10}")) {
            throw new ParameterException(spec.commandLine(), "Invalid value for <k>: '" + text + "' is not a whole number");
        }
        return Long.parseLong(text);
    }
}
