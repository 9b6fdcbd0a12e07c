package io.echomq.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * {@code --yes} and {@code --dry-run}, and the question a destructive command asks before it acts.
 *
 * <p>The command first reads what it would touch (a count and the first ids, read at that moment)
 * and hands it to {@link #confirm}, which shows it on stderr and then: with {@code --dry-run}
 * prints it on stdout and stops (exit code 0, nothing changed); with {@code --yes} lets the command
 * act; on a terminal asks {@code Proceed? [y/N]} and lets it act only on y or yes; without a
 * terminal refuses. A refusal or any other answer changes nothing and exits
 * {@link ExitCodes#NOT_CONFIRMED}, so that a script that forgot {@code --yes} stops rather than
 * destroys.
 */
final class ConfirmOptions {
    /** How many ids are shown before the question. */
    static final int SHOWN_IDS = 10;

    @Option(names = "--yes", description = "Act without asking. Needed where no terminal can be asked (scripts, "
            + "pipes, cron): there, without --yes, nothing is changed and the exit code is "
            + ExitCodes.NOT_CONFIRMED + ".")
    boolean yes;
    @Option(names = "--dry-run", description = "Print what would be touched (the queue, a count and the first "
            + SHOWN_IDS + " ids) and change nothing; exit code 0.")
    boolean dryRun;

    /** Where the question is asked; set by {@link Emq#commandLine}. */
    Terminal terminal = new Terminal(InputStream.nullInputStream(), () -> false);

    /**
     * Where a question can be asked: the standard input, and whether a person is at a terminal.
     *
     * @param in         where the answer is read from; not closed
     * @param attended   whether the standard streams are a terminal
     */
    record Terminal(InputStream in, BooleanSupplier attended) {
        /** @return whether the JVM's standard streams are a terminal (on Java 22+, its console's own say) */
        static boolean console() {
            java.io.Console console = System.console();
            if (console == null) {
                return false;
            }
            try {
                // Java 22+ gives a console even when the streams are redirected; it then says whether it is a terminal
                return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
            } catch (NoSuchMethodException before22) {
                return true;   // before Java 22, System.console() is null unless both streams are a terminal
            } catch (ReflectiveOperationException | RuntimeException e) {
                return false;
            }
        }
    }

    /**
     * Shows what the command would touch, and decides whether it acts.
     *
     * @param spec        the command, for its name and writers
     * @param what        what it would do, as a phrase: "redrive the dead jobs of queue refunds"
     * @param count       how many jobs it would touch, read now
     * @param ids         the first of those jobs' ids, at most {@link #SHOWN_IDS} shown
     * @param askWhenNone whether to ask even when {@code count} is 0 (the action removes more than jobs)
     * @return null when the command should act now; otherwise the exit code to return, nothing changed
     */
    Integer confirm(CommandSpec spec, String what, long count, List<String> ids, boolean askWhenNone) {
        String name = spec.qualifiedName();
        PrintWriter err = spec.commandLine().getErr();
        String touched = what + ": " + count + " job" + (count == 1 ? "" : "s") + shown(count, ids);
        if (dryRun) {
            spec.commandLine().getOut().println("dry-run: would " + touched + "; nothing was changed");
            return ExitCodes.OK;
        }
        if (yes || (count == 0 && !askWhenNone)) {
            return null;
        }
        err.println(name + ": will " + touched);
        if (!terminal.attended().getAsBoolean()) {
            err.println(name + ": refused: no terminal to ask and no --yes; nothing was changed (add --yes to "
                    + "proceed, or --dry-run to see what it would touch)");
            err.flush();
            return ExitCodes.NOT_CONFIRMED;
        }
        err.print("Proceed? [y/N] ");
        err.flush();
        String answer = readLine();
        if (answer != null && (answer.equals("y") || answer.equals("yes"))) {
            return null;
        }
        err.println(name + ": not confirmed; nothing was changed");
        err.flush();
        return ExitCodes.NOT_CONFIRMED;
    }

    private static String shown(long count, List<String> ids) {
        if (ids.isEmpty()) {
            return "";
        }
        List<String> first = ids.size() > SHOWN_IDS ? ids.subList(0, SHOWN_IDS) : ids;
        return (count > first.size() ? " (the first " + first.size() + ": " : " (") + String.join(" ", first) + ")";
    }

    /** @return the answer, trimmed and in lower case, or null at the end of the input */
    private String readLine() {
        try {
            // not closed: the stream is the process's standard input
            String line = new BufferedReader(new InputStreamReader(terminal.in(), StandardCharsets.UTF_8)).readLine();
            return line == null ? null : line.strip().toLowerCase(Locale.ROOT);
        } catch (IOException e) {
            return null;
        }
    }
}
