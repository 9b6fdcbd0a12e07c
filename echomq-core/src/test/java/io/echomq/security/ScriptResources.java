package io.echomq.security;

import io.echomq.internal.LuaIncludes;
import io.echomq.internal.LuaScript;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The Lua files on the class path, listed from the resource folders themselves (not from
 * {@code Scripts}), so that a script added without a test that runs it is found.
 */
final class ScriptResources {
    private static final Pattern FILE = Pattern.compile("([a-z][a-z-]*)-(\\d+)\\.lua");

    private ScriptResources() {
    }

    /** @return every script, as {@code <side>/<name>-<numKeys>.lua}, of every side folder */
    static Set<String> scripts() {
        Set<String> out = new TreeSet<>();
        for (String side : List.of(LuaScript.LOCK, LuaScript.QUEUE, LuaScript.CLIENT)) {
            for (String name : names(side)) {
                out.add(side + "/" + name);
            }
        }
        return out;
    }

    /** @return every script of the resources, loaded (its includes inlined) */
    static List<LuaScript> loaded() {
        return scripts().stream().map(path -> {
            String side = path.substring(0, path.indexOf('/'));
            Matcher m = FILE.matcher(path.substring(path.indexOf('/') + 1));
            if (!m.matches()) {
                throw new IllegalStateException(path + " is not named <name>-<numKeys>.lua");
            }
            return LuaScript.load(side, m.group(1), Integer.parseInt(m.group(2)));
        }).toList();
    }

    /** @return every shared part, as {@code includes/<part>.lua} */
    static Set<String> parts() {
        Set<String> out = new TreeSet<>();
        for (String name : names(LuaIncludes.FOLDER.replace("/", ""))) {
            out.add(LuaIncludes.FOLDER + name);
        }
        return out;
    }

    /** @return the text of {@code <folder>/<file>} under the scripts' root */
    static String text(String path) {
        try {
            return Files.readString(root().resolve(path));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Set<String> names(String folder) {
        try (Stream<Path> files = Files.list(root().resolve(folder))) {
            Set<String> out = new TreeSet<>();
            files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".lua")).forEach(out::add);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path root() {
        try {
            return Path.of(LuaScript.class.getResource(LuaScript.FOLDER).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
