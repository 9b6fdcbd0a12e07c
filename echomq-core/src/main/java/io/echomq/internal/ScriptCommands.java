package io.echomq.internal;

import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Redis commands a set of scripts can run, read from their Lua text: what an ACL user needs to
 * run them.
 *
 * <ol>
 *   <li>Every {@code redis.call(} and {@code redis.pcall(}, and every {@code redis.call,} passed to
 *       Lua's {@code pcall}, outside comments, is one call. Its first argument names the command.</li>
 *   <li>A string literal names the command itself.</li>
 *   <li>A local variable names each string literal assigned to it in the script
 *       ({@code local publish = 'PUBLISH'} then {@code publish = 'SPUBLISH'}: both).</li>
 *   <li>A choice {@code <condition> and 'A' or 'B'} names both literals.</li>
 *   <li>A line that ends with {@link #CHECKED} names no command: its call runs the commands it was
 *       asked to check, the ones the other scripts name.</li>
 *   <li>Anything else cannot be read: {@link IllegalStateException}, naming the script and the call,
 *       so that a script whose commands no one can list is a packaging bug, found by the tests.</li>
 * </ol>
 */
public final class ScriptCommands {
    /**
     * The end of a line whose call runs a command named by the caller: the permission probe's, which
     * runs each command it is asked to check, and so needs no command of its own.
     */
    public static final String CHECKED = "-- runs the commands it checks";

    private static final Pattern CALL = Pattern.compile("redis\\.p?call\\s*[(,]\\s*");
    private static final Pattern LITERAL = Pattern.compile("^'([A-Za-z|]+)'|^\"([A-Za-z|]+)\"");
    private static final Pattern IDENT = Pattern.compile("^([A-Za-z_][A-Za-z0-9_]*)\\s*,");
    private static final Pattern CHOICE = Pattern.compile("^[^,()]*\\)?\\s+and\\s+'([A-Za-z]+)'\\s+or\\s+'([A-Za-z]+)'\\s*,");

    private ScriptCommands() {
    }

    /**
     * Reads the commands of the given scripts.
     *
     * @return each command, lowercase, mapped to the files of the scripts that run it, in name order
     * @throws IllegalStateException if a call's command cannot be read (see the class comment)
     */
    public static Map<String, Set<String>> of(Collection<LuaScript> scripts) {
        Map<String, Set<String>> out = new TreeMap<>();
        for (LuaScript s : scripts) {
            for (String c : of(s.path(), s.body())) {
                out.computeIfAbsent(c, k -> new TreeSet<>()).add(s.path());
            }
        }
        return out;
    }

    /**
     * Reads the commands of one script's expanded text.
     *
     * @param name the script's name, for messages
     * @param lua the text, its includes inlined
     * @return the commands, lowercase, in name order
     * @throws IllegalStateException if a call's command cannot be read (see the class comment)
     */
    public static Set<String> of(String name, String lua) {
        String code = withoutComments(lua);
        Set<String> out = new TreeSet<>();
        String[] lines = lua.split("\n", -1);
        String[] codeLines = code.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (!lines[i].endsWith(CHECKED)) {
                readCalls(name, code, codeLines[i], out);
            }
        }
        return out;
    }

    private static void readCalls(String name, String code, String line, Set<String> out) {
        Matcher m = CALL.matcher(line);
        while (m.find()) {
            String rest = line.substring(m.end()) + "\n";
            Matcher lit = LITERAL.matcher(rest);
            Matcher id = IDENT.matcher(rest);
            Matcher choice = CHOICE.matcher(rest);
            if (lit.find()) {
                out.add(lower(lit.group(1) != null ? lit.group(1) : lit.group(2)));
            } else if (choice.find()) {
                out.add(lower(choice.group(1)));
                out.add(lower(choice.group(2)));
            } else if (id.find()) {
                Set<String> assigned = assignedTo(code, id.group(1));
                if (assigned.isEmpty()) {
                    throw unreadable(name, rest);
                }
                out.addAll(assigned);
            } else {
                throw unreadable(name, rest);
            }
        }
    }

    private static Set<String> assignedTo(String code, String variable) {
        Set<String> out = new TreeSet<>();
        Matcher m = Pattern.compile("(?<![A-Za-z0-9_.])" + Pattern.quote(variable) + "\\s*=\\s*'([A-Za-z]+)'\\s*(?:\\n|end\\b)")
                .matcher(code);
        while (m.find()) {
            out.add(lower(m.group(1)));
        }
        return out;
    }

    private static IllegalStateException unreadable(String name, String rest) {
        int end = rest.indexOf('\n');
        return new IllegalStateException(name + ": the command of a call cannot be read: redis.call("
                + (end < 0 ? rest : rest.substring(0, end)));
    }

    private static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }

    /** @return the text with every {@code --} comment removed, strings kept (a quote opens and closes a string) */
    static String withoutComments(String lua) {
        StringBuilder out = new StringBuilder(lua.length());
        for (String line : lua.split("\n", -1)) {
            char quote = 0;
            int cut = line.length();
            for (int i = 0; i < line.length(); i++) {
                char c = line.charAt(i);
                if (quote != 0) {
                    if (c == '\\') {
                        i++;
                    } else if (c == quote) {
                        quote = 0;
                    }
                } else if (c == '\'' || c == '"') {
                    quote = c;
                } else if (c == '-' && i + 1 < line.length() && line.charAt(i + 1) == '-') {
                    cut = i;
                    break;
                }
            }
            out.append(line, 0, cut).append('\n');
        }
        return out.toString();
    }
}
