package io.echomq.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The include step of the script loader: a script names the shared parts it uses, a part names
 * the parts it uses, and they are inlined before the script is hashed and sent.
 *
 * <ol>
 *   <li>A line {@code --@include <part>} in a script is replaced by the text of
 *       {@code includes/<part>.lua}, preceded by the parts that part includes, each first
 *       preceded by its own: a part stands after every part it needs, so each function it calls is
 *       defined above it (Lua binds a {@code local} only below its definition). A part's own
 *       include lines are dropped from its text. Any other line is kept as it is.</li>
 *   <li>Each part is inlined once per script, where it is first reached; a later line or part
 *       that names it again adds nothing.</li>
 *   <li>A part that is missing, a file (script or part) that names a part twice, and parts that
 *       include each other in a cycle are packaging bugs: {@link IllegalStateException}, at class
 *       load of {@link Scripts}, naming the script, the file and, for a cycle, every part in it.</li>
 * </ol>
 *
 * <p>The SHA of a script is the SHA-1 of the expanded text, so that {@code EVALSHA} and the
 * {@code EVAL} sent on {@code NOSCRIPT} name the same script on every server.
 */
public final class LuaIncludes {
    /** Folder of the shared parts, relative to {@link LuaScript#FOLDER}. */
    public static final String FOLDER = "includes/";

    private static final Pattern INCLUDE = Pattern.compile("^--@include\\s+([a-z][a-z-]*)\\s*$");

    /**
     * One script after expansion.
     *
     * @param text the Lua the server runs
     * @param parts every part inlined, the nested ones too, in the order of their text
     */
    public record Expanded(String text, List<String> parts) {
    }

    private LuaIncludes() {
    }

    /**
     * Expands the include lines of {@code source}, and those of the parts it includes.
     *
     * @param script the script's name, for messages
     * @param source the script's own text
     * @param reader returns the text of {@code includes/<part>.lua}, or null when there is none
     * @return the expanded text and the parts it inlined
     * @throws IllegalStateException if a part is missing, a file names a part twice, or parts
     *     include each other in a cycle
     */
    public static Expanded expand(String script, String source, Function<String, String> reader) {
        Expansion e = new Expansion(script, reader);
        StringBuilder out = e.out;
        List<String> named = new ArrayList<>();
        for (String line : source.split("\n", -1)) {
            String part = partOf(line);
            if (part == null) {
                out.append(line).append('\n');
            } else {
                once(named, part, script);
                e.inline(part, script);
            }
        }
        out.setLength(out.length() - 1);   // split added one line break too many
        return new Expanded(out.toString(), Collections.unmodifiableList(e.parts));
    }

    /** @return the part a line {@code --@include <part>} names, or null for any other line */
    public static String partOf(String line) {
        Matcher m = INCLUDE.matcher(line);
        return m.matches() ? m.group(1) : null;
    }

    private static void once(List<String> named, String part, String file) {
        if (named.contains(part)) {
            throw new IllegalStateException(file + " includes " + part + " twice");
        }
        named.add(part);
    }

    private static String file(String part) {
        return FOLDER + part + ".lua";
    }

    /** The state of one script's expansion: what it wrote, and which parts are done or under way. */
    private static final class Expansion {
        private final String script;
        private final Function<String, String> reader;
        private final StringBuilder out = new StringBuilder(4096);
        private final List<String> parts = new ArrayList<>();
        private final Set<String> done = new HashSet<>();
        private final Deque<String> open = new ArrayDeque<>();   // the chain of parts being expanded

        Expansion(String script, Function<String, String> reader) {
            this.script = script;
            this.reader = reader;
        }

        /** Writes {@code part} after the parts it needs, unless this script has it already. */
        void inline(String part, String includer) {
            if (done.contains(part)) {
                return;
            }
            if (open.contains(part)) {
                throw new IllegalStateException(script + ": the parts include each other in a cycle: "
                        + cycle(part));
            }
            String text = reader.apply(part);
            if (text == null) {
                throw new IllegalStateException(script + ": " + includer + " includes " + part + ", but "
                        + file(part) + " is not on the class path");
            }
            List<String> named = new ArrayList<>();
            StringBuilder own = new StringBuilder(text.length() + 1);
            for (String line : text.split("\n", -1)) {
                String inner = partOf(line);
                if (inner == null) {
                    own.append(line).append('\n');
                } else {
                    once(named, inner, file(part));
                }
            }
            open.addLast(part);
            for (String inner : named) {
                inline(inner, file(part));
            }
            open.removeLast();
            own.setLength(own.length() - 1);   // split added one line break too many
            out.append(own).append(own.isEmpty() || own.charAt(own.length() - 1) != '\n' ? "\n" : "");
            done.add(part);
            parts.add(part);
        }

        /** @return the cycle that reaches {@code part} again, as {@code includes/a.lua -> ... -> includes/a.lua} */
        private String cycle(String part) {
            List<String> chain = new ArrayList<>(open);
            List<String> loop = new ArrayList<>(chain.subList(chain.indexOf(part), chain.size()));
            loop.add(part);
            return loop.stream().map(LuaIncludes::file).collect(Collectors.joining(" -> "));
        }
    }
}
