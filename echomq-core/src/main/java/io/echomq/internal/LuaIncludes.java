package io.echomq.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The include step of the script loader: a script names the shared parts it uses, and they are
 * inlined before the script is hashed and sent.
 *
 * <ol>
 *   <li>A line {@code --@include <part>} is replaced by the text of {@code includes/<part>.lua}.
 *       Any other line is kept as it is.</li>
 *   <li>A script names each part at most once, and a part includes nothing itself: so every part a
 *       script runs is listed in the script's own text, once, in the order it is inlined.</li>
 *   <li>A part that is missing, named twice, or that names a part itself is a packaging bug:
 *       {@link IllegalStateException}, at class load of {@link Scripts}, naming the script.</li>
 * </ol>
 *
 * <p>The SHA of a script is the SHA-1 of the expanded text, so that {@code EVALSHA} and the
 * {@code EVAL} sent on {@code NOSCRIPT} name the same script on every server.
 */
public final class LuaIncludes {
    /** Folder of the shared parts, relative to {@link LuaScript#FOLDER}. */
    public static final String FOLDER = "includes/";

    private static final Pattern INCLUDE = Pattern.compile("^--@include\\s+([a-z][a-z-]*)\\s*$");

    /** One script after expansion: its text and the parts inlined, in order. */
    public record Expanded(String text, List<String> parts) {
    }

    private LuaIncludes() {
    }

    /**
     * Expands the include lines of {@code source}.
     *
     * @param script the script's name, for messages
     * @param source the script's own text
     * @param reader returns the text of {@code includes/<part>.lua}, or null when there is none
     * @return the expanded text and the parts it inlined
     * @throws IllegalStateException if a part is missing, named twice, or itself names a part
     */
    public static Expanded expand(String script, String source, Function<String, String> reader) {
        List<String> parts = new ArrayList<>();
        StringBuilder out = new StringBuilder(source.length() * 2);
        for (String line : source.split("\n", -1)) {
            String part = partOf(line);
            if (part == null) {
                out.append(line).append('\n');
                continue;
            }
            if (parts.contains(part)) {
                throw new IllegalStateException(script + " includes " + part + " twice");
            }
            String text = reader.apply(part);
            if (text == null) {
                throw new IllegalStateException(script + " includes " + part + ", but " + FOLDER + part
                        + ".lua is not on the class path");
            }
            for (String inner : text.split("\n", -1)) {
                if (partOf(inner) != null) {
                    throw new IllegalStateException(FOLDER + part + ".lua (included by " + script
                            + ") includes " + partOf(inner) + ": a part may not include another; name both in "
                            + script);
                }
            }
            parts.add(part);
            out.append(text.endsWith("\n") ? text : text + "\n");
        }
        out.setLength(out.length() - 1);   // split added one line break too many
        return new Expanded(out.toString(), Collections.unmodifiableList(parts));
    }

    /** @return the part a line {@code --@include <part>} names, or null for any other line */
    public static String partOf(String line) {
        Matcher m = INCLUDE.matcher(line);
        return m.matches() ? m.group(1) : null;
    }
}
