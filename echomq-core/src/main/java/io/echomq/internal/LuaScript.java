package io.echomq.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One atomic operation: the Lua body of the resource {@code io/echomq/lua/<name>-<numKeys>.lua},
 * its declared key count and its SHA-1, computed locally so that {@code EVALSHA} can be tried
 * before the server has ever seen the script.
 */
public final class LuaScript {
    /** Class-path folder that holds every script. */
    public static final String FOLDER = "/io/echomq/lua/";

    private final String name;
    private final int numKeys;
    private final String body;
    private final String sha;

    private LuaScript(String name, int numKeys, String body) {
        this.name = name;
        this.numKeys = numKeys;
        this.body = body;
        this.sha = sha1Hex(body);
    }

    /**
     * Loads {@code <name>-<numKeys>.lua} from the class path.
     *
     * @throws IllegalStateException if the resource is missing or unreadable (a packaging bug)
     */
    public static LuaScript load(String name, int numKeys) {
        String file = name + "-" + numKeys + ".lua";
        try (InputStream in = LuaScript.class.getResourceAsStream(FOLDER + file)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + FOLDER + file + " is not on the class path");
            }
            return new LuaScript(name, numKeys, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read Lua script " + file, e);
        }
    }

    /** @return the operation name, for example {@code acquire} */
    public String name() {
        return name;
    }

    /** @return how many KEYS the script declares */
    public int numKeys() {
        return numKeys;
    }

    /** @return the file name, {@code <name>-<numKeys>.lua} */
    public String fileName() {
        return name + "-" + numKeys + ".lua";
    }

    /** @return the Lua source */
    public String body() {
        return body;
    }

    /** @return the lowercase hex SHA-1 of the body, as {@code SCRIPT LOAD} would answer */
    public String sha() {
        return sha;
    }

    @Override
    public String toString() {
        return fileName();
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
