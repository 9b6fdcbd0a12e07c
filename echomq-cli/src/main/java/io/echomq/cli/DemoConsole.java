package io.echomq.cli;

import io.echomq.dashboard.ActLog;
import java.io.PrintWriter;
import java.util.List;

/**
 * The demo's printer: act headers, one line per Redis command with its reply, notes, verdicts
 * and the closing summary. Commands and notes are indented; verdicts start at the margin.
 */
final class DemoConsole implements ActLog {
    private static final int COMMAND_WIDTH = 58;

    private final PrintWriter out;

    /** @param out where the demo prints */
    DemoConsole(PrintWriter out) {
        this.out = out;
    }

    /** Prints a line at the margin and flushes, so that progress shows at once. */
    void line(String text) {
        out.println(text);
        out.flush();
    }

    /** Prints the header of act {@code number}, with the seed's claim it demonstrates. */
    void act(int number, String title, String seedSays) {
        out.println();
        out.println("Act " + number + " · " + title);
        out.println("  expected: " + seedSays);
        out.flush();
    }

    /** Prints one command sent by {@code who}, and the reply it got. */
    @Override
    public void command(String who, String command, String reply) {
        String left = "  " + pad(who, 4) + command;
        out.println(pad(left, COMMAND_WIDTH) + " → " + reply);
        out.flush();
    }

    /** Prints an indented remark by {@code who} (blank for none). */
    @Override
    public void note(String who, String text) {
        out.println("  " + pad(who, 4) + text);
        out.flush();
    }

    /** Prints a verdict line at the margin. */
    @Override
    public void verdict(String text) {
        out.println(text);
        out.flush();
    }

    /**
     * Prints one PASS/FAIL line per act and the overall verdict.
     *
     * @return whether every act passed
     */
    boolean summary(List<DemoScenarios.ActResult> results) {
        out.println();
        out.println("Summary");
        boolean all = true;
        for (DemoScenarios.ActResult r : results) {
            out.println("  " + pad("Act " + r.number() + "  " + r.title(), COMMAND_WIDTH + 4) + " " + (r.passed() ? "PASS" : "FAIL"));
            all &= r.passed();
        }
        long failed = results.stream().filter(r -> !r.passed()).count();
        out.println(all ? "All " + results.size() + " acts behaved as expected."
                : failed + " of " + results.size() + " acts did NOT behave as expected.");
        out.flush();
        return all;
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s + " " : s + " ".repeat(width - s.length());
    }
}
