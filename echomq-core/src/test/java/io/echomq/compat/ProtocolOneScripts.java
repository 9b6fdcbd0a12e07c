package io.echomq.compat;

import io.echomq.internal.LuaIncludes;
import io.echomq.server.RawRedis;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A client of wire protocol 1: runs the scripts of that protocol (test resources under
 * {@code io/echomq/previous/lua/}, see the README there) with {@code EVAL}, expanded by the same
 * include rule, as a client written from that protocol page would.
 */
final class ProtocolOneScripts {
    private static final String FOLDER = "/io/echomq/previous/lua/";

    private final RawRedis redis;

    ProtocolOneScripts(RawRedis redis) {
        this.redis = redis;
    }

    /**
     * @param path a script under the protocol-1 folder, for example {@code lock/acquire-2.lua}
     * @param keys the script's KEYS
     * @param args the script's ARGV
     * @return the server's reply
     * @throws RawRedis.ErrorReply when the script fails
     */
    Object run(String path, List<String> keys, String... args) {
        String text = LuaIncludes.expand(path, read(path), part -> read(LuaIncludes.FOLDER + part + ".lua")).text();
        List<String> cmd = new ArrayList<>();
        cmd.add("EVAL");
        cmd.add(text);
        cmd.add(Integer.toString(keys.size()));
        cmd.addAll(keys);
        cmd.addAll(List.of(args));
        return redis.call(cmd.toArray(new String[0]));
    }

    private static String read(String path) {
        try (InputStream in = ProtocolOneScripts.class.getResourceAsStream(FOLDER + path)) {
            if (in == null) {
                throw new IllegalArgumentException("no protocol-1 script " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
