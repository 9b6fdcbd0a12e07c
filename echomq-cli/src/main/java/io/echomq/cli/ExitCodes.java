package io.echomq.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The exit codes of every {@code emq} command, and the usage-help footers that list them.
 *
 * <p>Duties: name each code once; give {@code emq --help} the whole table; give each command a
 * footer with only the codes it can return, in its own words. A command missing from
 * {@link #BY_COMMAND} has no footer to print, so {@link #footer(String)} throws and the help test
 * fails: a new command cannot ship without its list.
 */
final class ExitCodes {
    /** Success, or an answer: RELEASED, RENEWED, held, free, a job id, REMOVED. */
    static final int OK = 0;
    /**
     * The lock is held ({@code nil}), a {@code --wait} ran out, a job could not be removed
     * ({@code LOCKED}, {@code MISSING}) or inspected (no such job), or a demo act failed.
     */
    static final int NO = 1;
    /**
     * Bad input: a missing or invalid option or argument, a malformed URL, or a queue command on a
     * queue that is not stored (without {@code --create}).
     */
    static final int BAD_INPUT = 2;
    /** Redis failed: unreachable, a command or script error, or the server did not start. */
    static final int REDIS_FAILURE = 3;
    /** A bug: an exception nobody expected; the stack trace is printed. */
    static final int INTERNAL_ERROR = 4;
    /** {@code lock release|renew} printed NOT_OWNER: the lease is gone and someone else holds the lock. */
    static final int NOT_OWNER = 5;
    /** {@code lock release|renew} printed EXPIRED: the lease is gone and nobody holds the lock. */
    static final int EXPIRED = 6;
    /** {@code worker --exit-when-idle}: the queue drained, and at least one job went dead during the run. */
    static final int JOBS_DIED = 7;
    /** {@code queue wait}: the job went dead. */
    static final int JOB_DEAD = 8;
    /** {@code queue wait}: the job had not ended within {@code --timeout}. */
    static final int TIMED_OUT = 9;
    /**
     * A destructive command (the queue's and {@code lock takeover}) was not confirmed: no terminal to ask and no
     * {@code --yes}, or an answer other than y. Nothing was changed.
     */
    static final int NOT_CONFIRMED = 10;

    /** Heading of the footer. */
    static final String FOOTER_HEADING = "%nExit codes:%n";

    private static final String[] COMMON = {
        "  2  bad input: a missing or invalid option or argument, a malformed URL",
        "  3  Redis failure: unreachable, wrong password, a command failed",
        "  4  unexpected internal error (a bug; the stack trace is printed)",
    };

    /** The whole table, printed by {@code emq --help}. */
    private static final String[] ALL = {
        "  0  success, or an answer (RELEASED, RENEWED, TAKEN, held, free, REMOVED, a job id,",
        "     PAUSED, RESUMED, CANCELLED, SIGNALLED, COMPLETED);",
        "     worker: it stopped cleanly, and with --exit-when-idle no job went dead",
        "  1  lock acquire: the lock is held, nil was printed (also when --wait ran",
        "     out); lock takeover: REFUSED or ABORTED; queue remove: LOCKED or MISSING; queue inspect: no such job;",
        "     schedule remove: MISSING; schedule next: no such schedule;",
        "     queue cancel: ALREADY_FINISHED or NOT_FOUND;",
        "     queue wait: CANCELLED or NOT_FOUND;",
        "     queue delete: jobs are active and --force was not given;",
        "     demo: an act failed",
        "  2  bad input: a missing or invalid option or argument, a malformed URL,",
        "     or a queue command on a queue that is not stored (add --create",
        "     where the command offers it; the first enqueue creates a queue)",
        "  3  Redis failure: unreachable, wrong password, a command failed, or",
        "     redis-server did not start",
        "  4  unexpected internal error (a bug; the stack trace is printed)",
        "  5  lock release, lock renew: NOT_OWNER, the lease is gone and another",
        "     holds the lock",
        "  6  lock release, lock renew: EXPIRED, the lease is gone and nobody holds",
        "     the lock",
        "  7  worker --exit-when-idle: the queue drained, but a job went dead",
        "  8  queue wait: the job went dead",
        "  9  queue wait: the job had not ended within --timeout",
        " 10  queue dead --retry|--purge, queue delete, queue remove --force, lock",
        "     takeover: not confirmed (no terminal to ask and no --yes, or the answer",
        "     was not y); nothing was changed",
    };

    /** The 2 of a command on an existing queue: a typo of the queue's name is bad input too. */
    private static final String[] NO_SUCH_QUEUE = {
        "  2  bad input: a missing or invalid option or argument, a malformed URL,",
        "     or no such queue (the stored names close to it are suggested)",
    };

    /** A group of commands never connects: without a subcommand it can only print help or refuse. */
    private static final String PARENT_BAD_INPUT = "  2  no subcommand, or an unknown one";

        /** Each command's own codes, besides the common 2, 3 and 4, keyed by its name under emq. */
    private static final Map<String, String[]> BY_COMMAND = new LinkedHashMap<>();

    static {
        String help = "  0  the help was printed";
        BY_COMMAND.put("lock", new String[] {help, PARENT_BAD_INPUT});
        BY_COMMAND.put("lock acquire", new String[] {
            "  0  acquired: OK token=<token> fence=<n> was printed",
            "  1  the lock is held: nil was printed (also when --wait ran out)"});
        String[] gone = {
            "  5  NOT_OWNER: the lease is gone and another holds the lock",
            "  6  EXPIRED: the lease is gone and nobody holds the lock"};
        BY_COMMAND.put("lock release", join(new String[] {"  0  RELEASED"}, gone));
        BY_COMMAND.put("lock renew", join(new String[] {"  0  RENEWED"}, gone));
        BY_COMMAND.put("lock inspect", new String[] {"  0  held … or free … was printed"});
        BY_COMMAND.put("lock takeover", new String[] {
            "  0  TAKEN token=<token> fence=<n> ttl_ms=<ms>, or with --dry-run: DRY-RUN",
            "  1  REFUSED (the lock is free, or its holder or fence changed) or ABORTED",
            "     (the answer was not y); nothing was changed",
            " 10  no terminal to confirm on, and no --yes; nothing was changed"});
        BY_COMMAND.put("queue", new String[] {help, PARENT_BAD_INPUT});
        BY_COMMAND.put("queue enqueue", new String[] {"  0  the job's id was printed (a new or an existing job)"});
        BY_COMMAND.put("queue stats", new String[] {"  0  the counts were printed"});
        BY_COMMAND.put("queue reap", new String[] {"  0  the counts were printed"});
        String notConfirmed = " 10  not confirmed: no terminal to ask and no --yes, or the answer was not y;";
        String nothingChanged = "     nothing was changed";
        BY_COMMAND.put("queue remove", new String[] {
            "  0  REMOVED", "  1  LOCKED (a worker holds it; add --force) or MISSING",
            " 10  --force not confirmed: no terminal to ask and no --yes, or the answer", "     was not y; "
                + "nothing was changed"});
        BY_COMMAND.put("queue dead", new String[] {
            "  0  the dead jobs were listed, redriven or purged (or, with --dry-run,", "     counted)",
            notConfirmed, nothingChanged});
        BY_COMMAND.put("queue inspect", new String[] {"  0  the job (every job named) was printed",
            "  1  no such job (for several ids: one of them; the others were printed)"});
        BY_COMMAND.put("queue show", new String[] {"  0  the settings and state were printed"});
        BY_COMMAND.put("queue errors", new String[] {"  0  the error groups (none or more) were printed"});
        BY_COMMAND.put("schedule", new String[] {help, PARENT_BAD_INPUT});
        BY_COMMAND.put("schedule add", new String[] {"  0  the schedule was stored: <id> next=<time> version=<n>"});
        BY_COMMAND.put("schedule list", new String[] {"  0  the schedules were listed"});
        BY_COMMAND.put("schedule next", new String[] {"  0  the fire times were printed", "  1  no such schedule"});
        BY_COMMAND.put("schedule remove", new String[] {"  0  REMOVED", "  1  MISSING"});
        BY_COMMAND.put("scheduler", new String[] {
            "  0  it stopped cleanly",
            "     (a signal ends it with 130 for SIGINT or 143 for SIGTERM)"});
        BY_COMMAND.put("queue pause", new String[] {"  0  PAUSED or ALREADY_PAUSED"});
        BY_COMMAND.put("queue resume", new String[] {"  0  RESUMED or NOT_PAUSED"});
        BY_COMMAND.put("queue cancel", new String[] {
            "  0  CANCELLED or SIGNALLED", "  1  ALREADY_FINISHED or NOT_FOUND"});
        BY_COMMAND.put("queue list", new String[] {"  0  the page (or, with --all, every page) was printed"});
        BY_COMMAND.put("queue retention", new String[] {"  0  the settings were printed (and stored, with options)"});
        BY_COMMAND.put("queue timeout", new String[] {"  0  timeout=<ms>, timeout=none, CLEARED or NOT_SET"});
        BY_COMMAND.put("queue groups", new String[] {
            "  0  the groups were listed; PAUSED, ALREADY_PAUSED, RESUMED, NOT_PAUSED or group_max=<k>"});
        BY_COMMAND.put("queue limit", new String[] {"  0  limit=<n>/<ms>ms, limit=none, CLEARED or NOT_SET"});
        BY_COMMAND.put("queue cap", new String[] {"  0  cap=<k>, cap=none, CLEARED or NOT_SET"});
        BY_COMMAND.put("queue layout", new String[] {"  0  the layout was printed (and stored, with one given)"});
        BY_COMMAND.put("queue events", new String[] {
            "  0  the kept events were printed",
            "     (with --follow, a signal ends it with 130 for SIGINT or 143 for SIGTERM)"});
        BY_COMMAND.put("queue wait", new String[] {
            "  0  COMPLETED", "  1  CANCELLED or NOT_FOUND", "  8  DEAD", "  9  TIMED_OUT"});
        BY_COMMAND.put("queue workers", new String[] {"  0  the live workers (none or more) were printed"});
        BY_COMMAND.put("queue event-settings", new String[] {"  0  the settings were printed (and stored, with options)"});
        BY_COMMAND.put("queue delete", new String[] {
            "  0  deleted keys=<n> was printed (or, with --dry-run, what it would delete)",
            "  1  jobs are active (add --force); nothing was deleted", notConfirmed, nothingChanged});
        BY_COMMAND.put("worker", new String[] {
            "  0  it stopped cleanly; with --exit-when-idle: the queue drained and no",
            "     job went dead",
            "  7  with --exit-when-idle: the queue drained, but a job went dead",
            "     (a signal ends it with 130 for SIGINT or 143 for SIGTERM)"});
        BY_COMMAND.put("server", new String[] {"  0  the server stopped", "  3  redis-server did not start"});
        BY_COMMAND.put("demo", new String[] {"  0  every act passed", "  1  an act failed",
            "     (with --keep on the embedded server, it then runs until a signal ends it:",
            "     130 for SIGINT, Ctrl-C, or 143 for SIGTERM)"});
        BY_COMMAND.put("dashboard", new String[] {
            "  2  bad input, or the address and port cannot be listened on",
            "  3  Redis failure: unreachable, wrong password, or the embedded",
            "     redis-server did not start",
            "     (it runs until a signal ends it: 130 for SIGINT, Ctrl-C, or 143 for SIGTERM)"});
        BY_COMMAND.put("audit", new String[] {"  0  the records (none or more) were printed"});
        BY_COMMAND.put("top", new String[] {
            "  0  with --once: the frame was printed",
            "     (without it, it runs until a signal ends it: 130 for SIGINT, Ctrl-C, or 143",
            "     for SIGTERM)"});
    }

    private ExitCodes() {
    }

    /**
     * @param command the command's name under emq, words separated by one space ("" for emq itself)
     * @return the footer lines listing the codes this command can return
     * @throws IllegalStateException if the command has no list here
     */
    static String[] footer(String command) {
        if (command.isEmpty()) {
            return ALL.clone();
        }
        String[] own = BY_COMMAND.get(command);
        if (own == null) {
            throw new IllegalStateException("no exit codes listed for 'emq " + command + "'");
        }
        if (List.of(own).contains(PARENT_BAD_INPUT)) {
            return own.clone();
        }
        boolean onStoredQueue = command.equals("worker") || command.equals("scheduler")
                || command.startsWith("schedule ") || (command.startsWith("queue ") && !command.equals("queue enqueue"));
        return merge(onStoredQueue && linesOf(own, BAD_INPUT).isEmpty() ? join(NO_SUCH_QUEUE, own) : own);
    }

    /** @return own lines and the common 2, 3 and 4, in code order; a command's own 2 or 3 replaces the common one */
    private static String[] merge(String[] own) {
        List<String> lines = new ArrayList<>();
        for (int code = 0; code <= NOT_CONFIRMED; code++) {
            List<String> mine = linesOf(own, code);
            lines.addAll(!mine.isEmpty() ? mine : linesOf(COMMON, code));
        }
        return lines.toArray(String[]::new);
    }

    /** @return the lines of {@code code}: its numbered line and the indented lines after it */
    private static List<String> linesOf(String[] table, int code) {
        List<String> out = new ArrayList<>();
        boolean in = false;
        for (String line : table) {
            if (line.matches(" [ 1-9]\\d  .*")) {
                in = line.startsWith(String.format("%3d  ", code));
            }
            if (in) {
                out.add(line);
            }
        }
        return out;
    }

    private static String[] join(String[] a, String[] b) {
        String[] out = new String[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
