package io.echomq;

import io.echomq.server.RawRedis;
import io.echomq.server.RedisServer;
import java.util.List;

/**
 * Asks a test server whether it knows a command, with {@code COMMAND INFO}, the way the library
 * decides: tests choose their expectations by what the server can do, never by a version number
 * (Valkey 8 reports {@code redis_version:7.2.4}; a product name says nothing about a command).
 */
public final class Capabilities {
    private Capabilities() {
    }

    /**
     * @param server the server to ask (directly, not routed: {@code COMMAND INFO} has no key)
     * @param command a command name, for example {@code "spublish"}
     * @return whether the server describes the command
     * @throws RuntimeException if the server cannot be reached (from {@link RawRedis})
     */
    public static boolean knows(RedisServer server, String command) {
        try (RawRedis raw = RawRedis.connect(server.host(), server.port())) {
            return raw.call("COMMAND", "INFO", command) instanceof List<?> reply
                    && !reply.isEmpty() && reply.get(0) != null;
        }
    }
}
