package io.echomq.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Where the server's time goes during one phase of a bench, from two {@code INFO commandstats}
 * replies taken before and after it. Its duties:
 *
 * <ol>
 *   <li>{@link #parse}: the {@code cmdstat_<name>:calls=<n>,usec=<n>,…} lines of a reply, by
 *       command name ({@code client|setinfo} in Redis 7 stays one name);</li>
 *   <li>{@link #delta}: what each command added between two replies (a command that appears only
 *       in the later one counts from zero);</li>
 *   <li>{@link #rows}: the commands with the most server time, as calls and µs per job;</li>
 *   <li>{@link #scriptOverheadUsec}: the scripts' exclusive time, their {@code usec} minus that of
 *       the commands they ran.</li>
 * </ol>
 *
 * <p>The exclusive arithmetic holds because Redis counts a command that a script runs in that
 * command's own {@code cmdstat} line and also inside the {@code usec} of the {@code EVALSHA}
 * that ran it. Every command that is not a script call nor one of {@link #DIRECT} (what a client
 * sends for itself: connection set-up, pub/sub, INFO) is taken to have run inside a script, which
 * is true of the queue path: its work is all scripts. A client that sent data commands of its
 * own during the phase would make the overhead look smaller by their time.
 */
final class CommandStats {
    /** One command's counters: calls and server microseconds. */
    record Stat(long calls, long usec) {
    }

    /** One printed row: a command, or the script overhead, per job. */
    record Row(String name, double callsPerJob, double usecPerJob) {
    }

    /** Calls of a script; their usec includes the commands they ran. */
    static final Set<String> SCRIPTS = Set.of("eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro");

    /** Commands a client sends for itself, never from inside a script. */
    static final Set<String> DIRECT = Set.of("info", "ping", "hello", "select", "auth", "client", "client|setinfo",
            "client|setname", "client|id", "client|list", "client|getname", "subscribe", "unsubscribe", "psubscribe",
            "punsubscribe", "ssubscribe", "sunsubscribe", "script", "script|load", "script|exists", "script|flush",
            "config", "config|get", "config|set", "config|resetstat", "command", "command|docs", "command|count",
            "flushall", "flushdb", "scan", "unlink", "dbsize", "quit", "reset");

    /** The label of the scripts' exclusive time in {@link #rows}. */
    static final String OVERHEAD = "script overhead (Lua and call conversion)";

    private CommandStats() {
    }

    /**
     * @param info an {@code INFO commandstats} reply (other sections and lines are skipped)
     * @return calls and usec by command name, in the reply's order
     * @throws IllegalArgumentException if a {@code cmdstat_} line lacks {@code calls} or {@code usec}
     */
    static Map<String, Stat> parse(String info) {
        Map<String, Stat> out = new LinkedHashMap<>();
        for (String line : info.split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            int colon = line.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("not a commandstats line: " + line);
            }
            String name = line.substring("cmdstat_".length(), colon);
            long calls = -1;
            long usec = -1;
            for (String field : line.substring(colon + 1).trim().split(",")) {
                if (field.startsWith("calls=")) {
                    calls = Long.parseLong(field.substring("calls=".length()));
                } else if (field.startsWith("usec=")) {
                    usec = Long.parseLong(field.substring("usec=".length()));
                }
            }
            if (calls < 0 || usec < 0) {
                throw new IllegalArgumentException("no calls= or usec= in: " + line);
            }
            out.put(name, new Stat(calls, usec));
        }
        return out;
    }

    /** @return what each command of {@code after} added since {@code before}; commands with no new call left out */
    static Map<String, Stat> delta(Map<String, Stat> before, Map<String, Stat> after) {
        Map<String, Stat> out = new LinkedHashMap<>();
        after.forEach((name, a) -> {
            Stat b = before.getOrDefault(name, new Stat(0, 0));
            long calls = a.calls() - b.calls();
            if (calls > 0) {
                out.put(name, new Stat(calls, Math.max(0, a.usec() - b.usec())));
            }
        });
        return out;
    }

    /**
     * @param delta one phase's {@link #delta}
     * @return the scripts' usec minus the usec of the commands they ran (never below 0)
     */
    static long scriptOverheadUsec(Map<String, Stat> delta) {
        long scripts = 0;
        long inner = 0;
        for (Map.Entry<String, Stat> e : delta.entrySet()) {
            if (SCRIPTS.contains(e.getKey())) {
                scripts += e.getValue().usec();
            } else if (!DIRECT.contains(e.getKey())) {
                inner += e.getValue().usec();
            }
        }
        return Math.max(0, scripts - inner);
    }

    /**
     * @param delta one phase's {@link #delta}
     * @param jobs the jobs of the phase, at least 1
     * @param top how many commands to list
     * @return the {@code top} commands by usec, per job, then the script overhead per job
     * @throws IllegalArgumentException if {@code jobs} is under 1
     */
    static List<Row> rows(Map<String, Stat> delta, long jobs, int top) {
        if (jobs < 1) {
            throw new IllegalArgumentException("jobs must be >= 1, was " + jobs);
        }
        List<Map.Entry<String, Stat>> sorted = new ArrayList<>(delta.entrySet());
        sorted.sort(Comparator.comparingLong((Map.Entry<String, Stat> e) -> e.getValue().usec()).reversed());
        List<Row> out = new ArrayList<>();
        for (Map.Entry<String, Stat> e : sorted.subList(0, Math.min(top, sorted.size()))) {
            out.add(new Row(e.getKey(), e.getValue().calls() / (double) jobs, e.getValue().usec() / (double) jobs));
        }
        long scriptCalls = 0;
        for (String s : SCRIPTS) {
            scriptCalls += delta.getOrDefault(s, new Stat(0, 0)).calls();
        }
        out.add(new Row(OVERHEAD, scriptCalls / (double) jobs, scriptOverheadUsec(delta) / (double) jobs));
        return out;
    }

    /** @return a row as the bench prints it: name, calls/job, µs/job */
    static String format(Row r) {
        return String.format(Locale.ROOT, "  %-44s %10.3f %10.2f", r.name(), r.callsPerJob(), r.usecPerJob());
    }
}
