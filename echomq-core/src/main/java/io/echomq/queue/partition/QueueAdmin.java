package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.LuaScript;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScriptOutputType;
import java.util.List;

/**
 * The operator's writes on one queue (or one partition), which no worker makes.
 *
 * <ol>
 *   <li>Removes one job wherever it is ({@code remove-5.lua}; {@link #remove}).</li>
 *   <li>Moves dead jobs back to pending with a fresh budget ({@code redrive-5.lua};
 *       {@link #redrive}).</li>
 *   <li>Deletes dead jobs for good ({@code purge-1.lua}; {@link #purge}).</li>
 * </ol>
 *
 * <p>Redrive and purge share their ARGV layout (prefix, limit, redrive's publish mode, then the
 * optional ids) and so one encoder. Limits and id lists are checked by the callers.
 */
final class QueueAdmin {
    private final QueueWire wire;
    private final String[] removeKeys;
    private final String[] redriveKeys;
    private final String[] purgeKeys;

    QueueAdmin(QueueWire wire) {
        this.wire = wire;
        QueueKeys k = wire.keys();
        this.removeKeys = new String[] {k.pending(), k.active(), k.delayed(), k.dead(), k.waitList()};
        this.redriveKeys = new String[] {k.dead(), k.pending(), k.seq(), k.wake(), k.waitList()};
        this.purgeKeys = new String[] {k.dead()};
    }

    /** @throws IllegalArgumentException if the id is invalid */
    RemoveOutcome remove(String id, boolean force) {
        Checks.jobId(id);
        long code = wire.<Long>await(wire.run(Scripts.REMOVE, ScriptOutputType.INTEGER, removeKeys, wire.prefix(),
                QueueWire.bytes(id), force ? QueueWire.ONE : QueueWire.ZERO), Scripts.REMOVE.label());
        return code == 1 ? RemoveOutcome.REMOVED : code == 0 ? RemoveOutcome.LOCKED : RemoveOutcome.MISSING;
    }

    /** @return how many of the named dead jobs, or (with no ids) of the {@code limit} oldest, were moved */
    long redrive(int limit, List<String> ids) {
        return deadOp(Scripts.REDRIVE, redriveKeys, ids, wire.prefix(), QueueWire.num(limit), wire.publish());
    }

    /** @return how many of the named dead jobs, or (with no ids) of the {@code limit} oldest, were deleted */
    long purge(int limit, List<String> ids) {
        return deadOp(Scripts.PURGE, purgeKeys, ids, wire.prefix(), QueueWire.num(limit));
    }

    private long deadOp(LuaScript script, String[] k, List<String> ids, byte[]... fixed) {
        byte[][] args = new byte[fixed.length + ids.size()][];
        System.arraycopy(fixed, 0, args, 0, fixed.length);
        for (int i = 0; i < ids.size(); i++) {
            args[fixed.length + i] = QueueWire.bytes(ids.get(i));
        }
        return wire.<Long>await(wire.run(script, ScriptOutputType.INTEGER, k, args), script.label());
    }
}
