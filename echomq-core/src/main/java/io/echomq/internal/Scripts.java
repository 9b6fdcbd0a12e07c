package io.echomq.internal;

import java.util.List;

/** Every Lua script the library runs, each loaded once per JVM. */
public final class Scripts {
    /** Fenced acquire: SET NX PX, then INCR the fence on success. */
    public static final LuaScript ACQUIRE = LuaScript.load("acquire", 2);
    /** Compare-and-delete by token, publishing a release notification. */
    public static final LuaScript RELEASE = LuaScript.load("release", 2);
    /** Compare-and-PEXPIRE by token. */
    public static final LuaScript RENEW = LuaScript.load("renew", 1);
    /** Holder, remaining ttl and last fence in one read. */
    public static final LuaScript INSPECT = LuaScript.load("inspect", 2);
    /** Write a value only if the writer's fence is not older than the stored one. */
    public static final LuaScript FENCED_WRITE = LuaScript.load("fenced-write", 1);

    private Scripts() {
    }

    /** @return every script above, for the header checks in the tests */
    public static List<LuaScript> all() {
        return List.of(ACQUIRE, RELEASE, RENEW, INSPECT, FENCED_WRITE);
    }
}
