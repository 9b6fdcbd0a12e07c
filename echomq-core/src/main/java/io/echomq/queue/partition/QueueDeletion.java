package io.echomq.queue;

import io.echomq.internal.QueueKeys;
import io.echomq.internal.Scripts;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Deleting one queue (or one partition) with every key of it.
 *
 * <ol>
 *   <li>The atomic first step, {@code delete-9.lua}: refuse while jobs are active unless forced,
 *       else drop the sets, counters and settings at once, so nothing can be claimed any more.</li>
 *   <li>Then the rest, which only the prefix names (job hashes, lock subkeys, idempotency keys):
 *       {@code SCAN MATCH emq:{q}:*} and {@code UNLINK} in batches of {@link #BATCH}, telling the
 *       caller the running count after each batch.</li>
 * </ol>
 *
 * <p>The second step is not atomic: producers and workers should be stopped first. A job enqueued
 * while it runs may lose its hash, or leave one behind (docs/queue.md, "Deleting a queue").
 */
final class QueueDeletion {
    /** Keys per SCAN page and per UNLINK. */
    static final int BATCH = 1000;

    private final QueueWire wire;

    QueueDeletion(QueueWire wire) {
        this.wire = wire;
    }

    /** @return how many jobs are active now (ZCARD active) */
    long active() {
        return wire.await(wire.async().zcard(wire.keys().active()).toCompletableFuture(), "ZCARD active");
    }

    DeleteResult delete(boolean force, LongConsumer progress) {
        QueueKeys k = wire.keys();
        String[] keys = {k.active(), k.pending(), k.waitList(), k.delayed(), k.dead(), k.done(), k.seq(), k.stats(),
            k.retention()};
        List<Long> r = wire.await(wire.run(Scripts.DELETE, ScriptOutputType.MULTI, keys,
                QueueWire.bytes(force ? "1" : "0")), Scripts.DELETE.label());
        if (r.get(0) == 0) {
            return new DeleteResult(false, r.get(1), 0);
        }
        long deleted = r.get(2);
        ScanArgs match = ScanArgs.Builder.matches(glob(k.prefix()) + "*").limit(BATCH);
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = wire.await(wire.async().scan(cursor, match).toCompletableFuture(), "SCAN");
            List<String> found = page.getKeys();
            if (!found.isEmpty()) {
                deleted += wire.<Long>await(wire.async().unlink(found.toArray(String[]::new)).toCompletableFuture(),
                        "UNLINK");
                progress.accept(deleted);
            }
            cursor = page;
        } while (!cursor.isFinished());
        return new DeleteResult(true, r.get(1), deleted);
    }

    /** @return {@code s} with the glob characters of SCAN MATCH escaped, so a queue name matches itself only */
    static String glob(String s) {
        StringBuilder b = new StringBuilder(s.length() + 8);
        for (char c : s.toCharArray()) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                b.append('\\');
            }
            b.append(c);
        }
        return b.toString();
    }
}
