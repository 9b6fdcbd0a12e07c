package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScriptOutputType;

/**
 * The operator's controls of one queue (or one partition) that a running worker reacts to.
 *
 * <ol>
 *   <li>Pauses and resumes claims for every client at once ({@code pause-4.lua}; {@link #pause}),
 *       and reads the flag ({@link #isPaused}, one {@code EXISTS}).</li>
 *   <li>Cancels one job wherever it is ({@code cancel-7.lua}; {@link #cancel}): pending or
 *       delayed, it leaves its set; running, its attempt ends on the server and its holder is told
 *       on the queue's cancel channel; either way its id is added to the queue's record of the
 *       last cancellations.</li>
 * </ol>
 *
 * <p>Together because both are one script each that a worker learns of through pub/sub (the wake
 * channel on a resume, the cancel channel on a cancel) and otherwise by its next claim or renewal.
 * Ids are checked here; a sharded queue routes them first.
 */
final class QueueControl {
    private final long retainCompletedMs;
    private final QueueWire wire;
    private final String[] pauseKeys;
    private final String[] cancelKeys;

    QueueControl(long retainCompletedMs, QueueWire wire) {
        this.retainCompletedMs = retainCompletedMs;
        this.wire = wire;
        QueueKeys k = wire.keys();
        this.pauseKeys = new String[] {k.paused(), k.wake(), k.pending(), k.waitList()};
        this.cancelKeys = new String[] {k.pending(), k.active(), k.delayed(), k.dead(), k.waitList(), k.cancel(),
                k.cancelled()};
    }

    /** @return whether the call changed the state: false when the queue already was so */
    boolean pause(boolean paused) {
        long changed = wire.<Long>await(wire.run(Scripts.PAUSE, ScriptOutputType.INTEGER, pauseKeys,
                paused ? QueueWire.ONE : QueueWire.ZERO, wire.publish()), Scripts.PAUSE.label());
        return changed == 1;
    }

    boolean isPaused() {
        return wire.await(wire.async().exists(wire.keys().paused()).toCompletableFuture(),
                "EXISTS " + wire.keys().paused()) == 1L;
    }

    /** @throws IllegalArgumentException if the id is invalid */
    CancelOutcome cancel(String id) {
        Checks.jobId(id);
        long code = wire.<Long>await(wire.run(Scripts.CANCEL, ScriptOutputType.INTEGER, cancelKeys, wire.prefix(),
                QueueWire.bytes(id), QueueWire.num(retainCompletedMs), wire.publish()),
                Scripts.CANCEL.label());
        return CancelOutcome.ofCode(code);
    }
}
