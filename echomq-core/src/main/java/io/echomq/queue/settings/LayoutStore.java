package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScriptOutputType;
import java.util.List;

/**
 * A queue's pending layout in Redis, the STRING {@code emq:{q}:layout} ({@link QueueLayout}).
 *
 * <ol>
 *   <li>Reads it back ({@link #read}, one {@code GET}): {@code zset} is the ZSET layout, anything
 *       else (or no key) the LIST layout, as the scripts read it ({@code includes/layout.lua}).</li>
 *   <li>Sets it ({@link #write}, {@code layout-4.lua}): a switch to the ZSET layout moves the jobs
 *       waiting in the LIST into the ZSET in the same atomic step, keeping the claim order.</li>
 *   <li>Does both for the partitions a queue spans ({@link #read(List)}, {@link #write(List,
 *       QueueLayout)}): a plain queue's one, a sharded queue's partition by partition, one call
 *       each.</li>
 * </ol>
 *
 * <p>One role, the layout's reads and writes, apart from the facades, which hand the static pair
 * the lines to their partitions.
 */
final class LayoutStore {
    private final QueueWire wire;
    private final String[] keys;

    LayoutStore(QueueWire wire) {
        this.wire = wire;
        QueueKeys k = wire.keys();
        this.keys = new String[] {k.layout(), k.pending(), k.waitList(), k.seq()};
    }


    /** @return the layout of a plain queue, or of a sharded queue: ZSET only when every partition has it */
    static QueueLayout read(List<QueueWire> span) {
        for (QueueWire w : span) {
            if (new LayoutStore(w).read() == QueueLayout.LIST) {
                return QueueLayout.LIST;
            }
        }
        return QueueLayout.ZSET;
    }

    /** @throws IllegalArgumentException if layout is null */
    static LayoutChange write(List<QueueWire> span, QueueLayout layout) {
        Checks.notNull(layout, "layout");
        boolean changed = false;
        long moved = 0;
        for (QueueWire w : span) {
            LayoutChange c = new LayoutStore(w).write(layout);
            changed |= c.changed();
            moved += c.moved();
        }
        return new LayoutChange(layout, changed, moved);
    }


    QueueLayout read() {
        byte[] v = wire.await(wire.async().get(wire.keys().layout()).toCompletableFuture(),
                "GET " + wire.keys().layout());
        return v != null && "zset".equals(QueueWire.text(v)) ? QueueLayout.ZSET : QueueLayout.LIST;
    }

    LayoutChange write(QueueLayout layout) {
        List<Object> reply = wire.await(wire.run(Scripts.LAYOUT, ScriptOutputType.MULTI, keys,
                QueueWire.bytes(layout.wireName())), Scripts.LAYOUT.label());
        return new LayoutChange(layout, (Long) reply.get(0) == 1L, (Long) reply.get(1));
    }
}
