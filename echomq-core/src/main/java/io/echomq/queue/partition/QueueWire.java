package io.echomq.queue;

import io.echomq.internal.LuaScript;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * One queue's line to Redis, shared by the parts a {@link Queue} delegates to.
 *
 * <ol>
 *   <li>Holds what every call of the queue sends: its keys, its key prefix as bytes, and the
 *       publish mode ({@code PUBLISH}, or {@code SPUBLISH} on a Redis 7 cluster) by which the
 *       scripts wake workers.</li>
 *   <li>Sends a script on the client's binary connection ({@link #run}) and awaits a reply,
 *       naming the command and the queue in a failure ({@link #await}).</li>
 *   <li>Converts between Java strings and the UTF-8 bytes on the wire ({@link #bytes}, {@link #text}).</li>
 * </ol>
 *
 * <p>Kept apart so that each part states only its own scripts' KEYS, ARGV and replies, and none
 * of them opens a connection or reads the publish mode again.
 */
final class QueueWire {
    static final byte[] ONE = {'1'};
    static final byte[] ZERO = {'0'};

    private final QueueKeys keys;
    private final RedisEngine engine;
    private final StatefulConnection<String, byte[]> conn;   // opened when the client is built
    private final byte[] prefix;
    private final byte[] publish;

    QueueWire(QueueKeys keys, RedisEngine engine) {
        this.keys = keys;
        this.engine = engine;
        this.conn = engine.binary();
        this.prefix = bytes(keys.prefix());
        this.publish = bytes(engine.publishMode());
    }

    QueueKeys keys() {
        return keys;
    }

    /** @return the queue's name, as failures name it */
    String name() {
        return keys.queue();
    }

    /** @return the key prefix {@code emq:{q}:}, every script's ARGV[1] */
    byte[] prefix() {
        return prefix;
    }

    /** @return the publish mode the scripts that ready jobs take */
    byte[] publish() {
        return publish;
    }

    /** @return a binary connection of its own, for a blocking read that must not hold up the shared one; the caller closes it */
    StatefulConnection<String, byte[]> openBinary() {
        return engine.openBinary();
    }

    /** @return the asynchronous commands of the binary connection, for the reads that are no script */
    RedisClusterAsyncCommands<String, byte[]> async() {
        return RedisEngine.async(conn);
    }

    <T> CompletableFuture<T> run(LuaScript script, ScriptOutputType type, String[] k, byte[]... args) {
        return engine.run(conn, script, type, k, args);
    }

    /** @return the value of {@code call}; a failure becomes a {@link io.echomq.RedisCommandException} naming {@code command} */
    <T> T await(CompletableFuture<T> call, String command) {
        return RedisEngine.await(call, command, name());
    }

    /** @return {@code n} in decimal ASCII, as the scripts read a number from ARGV */
    static byte[] num(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String text(Object o) {
        return o == null ? null : new String((byte[]) o, StandardCharsets.UTF_8);
    }
}
