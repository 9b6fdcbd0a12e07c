package io.echomq.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * One atomic operation: the Lua resource {@code io/echomq/lua/<side>/<name>-<numKeys>.lua} with
 * its shared parts inlined ({@link LuaIncludes}), its declared key count and its SHA-1, computed
 * locally over the expanded text so that {@code EVALSHA} can be tried before the server has ever
 * seen the script.
 */
public final class LuaScript {
    /** Class-path folder that holds every script, in one subfolder per side. */
    public static final String FOLDER = "/io/echomq/lua/";
    /** Subfolder of the lock scripts. */
    public static final String LOCK = "lock";
    /** Subfolder of the queue scripts. */
    public static final String QUEUE = "queue";
    /** Subfolder of the scripts every client runs, whatever its side: the permission probe. */
    public static final String CLIENT = "client";

    private final String side;
    private final String name;
    private final int numKeys;
    private final String source;
    private final LuaIncludes.Expanded expanded;
    private final String sha;
    private final String label;   // built once: it names the call on every hot-path await

    private LuaScript(String side, String name, int numKeys, String source) {
        this.side = side;
        this.name = name;
        this.label = "EVALSHA " + name + "-" + numKeys;
        this.numKeys = numKeys;
        this.source = source;
        this.expanded = LuaIncludes.expand(path(), source, LuaScript::readPart);
        this.sha = sha1Hex(expanded.text());
    }

    /**
     * Loads {@code <side>/<name>-<numKeys>.lua} from the class path and inlines its parts.
     *
     * @param side {@link #LOCK}, {@link #QUEUE} or {@link #CLIENT}
     * @throws IllegalStateException if the resource or one of its parts is missing or unreadable,
     *     a file names a part twice, or parts include each other in a cycle (a packaging bug)
     */
    public static LuaScript load(String side, String name, int numKeys) {
        String file = side + "/" + name + "-" + numKeys + ".lua";
        String text = read(file);
        if (text == null) {
            throw new IllegalStateException("Lua script " + FOLDER + file + " is not on the class path");
        }
        return new LuaScript(side, name, numKeys, text);
    }

    /** @return the text of {@code includes/<part>.lua}, or null when there is none */
    static String readPart(String part) {
        return read(LuaIncludes.FOLDER + part + ".lua");
    }

    private static String read(String file) {
        try (InputStream in = LuaScript.class.getResourceAsStream(FOLDER + file)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read Lua file " + file, e);
        }
    }

    /** @return the operation name, for example {@code acquire} */
    public String name() {
        return name;
    }

    /** @return the side the script belongs to: {@link #LOCK}, {@link #QUEUE} or {@link #CLIENT} */
    public String side() {
        return side;
    }

    /** @return how many KEYS the script declares */
    public int numKeys() {
        return numKeys;
    }

    /** @return the file name, {@code <name>-<numKeys>.lua} */
    public String fileName() {
        return name + "-" + numKeys + ".lua";
    }

    /** @return the path under {@link #FOLDER}, {@code <side>/<name>-<numKeys>.lua} */
    public String path() {
        return side + "/" + fileName();
    }

    /**
     * @return the name of this script's call in messages and exceptions, {@code EVALSHA <name>-<numKeys>},
     *     for example {@code EVALSHA claim-8}
     */
    public String label() {
        return label;
    }

    /** @return the file's own text, include lines unexpanded */
    public String source() {
        return source;
    }

    /** @return the shared parts inlined, those the parts include too, in the order of the text */
    public List<String> parts() {
        return expanded.parts();
    }

    /** @return the Lua the server runs: the file with its parts inlined */
    public String body() {
        return expanded.text();
    }

    /** @return the lowercase hex SHA-1 of {@link #body()}, as {@code SCRIPT LOAD} would answer */
    public String sha() {
        return sha;
    }

    @Override
    public String toString() {
        return path();
    }

    private static String sha1Hex(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JVM", e);
        }
    }
}
