package io.echomq.queue;

import io.echomq.RedisCommandException;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScriptOutputType;
import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's heartbeat: the record that says which process works a queue, so that tools (the
 * dashboard's workers page, {@code emq queue workers}) can show the live workers. Its duties:
 *
 * <ol>
 *   <li>{@link #beat(Queue)}, at every maintenance tick: one {@code heartbeat-2.lua} call on the
 *       worker's first queue (a plain queue, or partition 0 of a sharded queue, where its
 *       schedules live too), which writes the worker's facts (host, pid, name, concurrency, jobs
 *       in hand) into an expiring HASH and its id into the queue's bounded ZSET of live workers.
 *       One round trip per interval and worker, asynchronous; a failure is logged at DEBUG, since
 *       the maintenance itself reports an outage.</li>
 *   <li>The record lives {@link #ttlMillis(long)}: three intervals, at least a second, so a missed
 *       beat or two do not hide a live worker, and a worker that dies (or is abandoned) drops out
 *       of the set soon after by itself.</li>
 *   <li>{@link #remove()}, at a clean close: removes the record at once, waiting at most the
 *       command timeout; no beat is sent after it.</li>
 * </ol>
 *
 * <p>The keys, fields and bound are in {@code docs/protocol.md} ("Workers' heartbeats").
 * Thread-safe.
 */
final class Heartbeat {
    /** Most live workers one queue's set keeps; past it the ones expiring soonest are dropped. */
    static final int MAX_WORKERS = 1000;
    /** Shortest life of a record, whatever the maintenance interval. */
    static final long MIN_TTL_MS = 1000;

    private static final Logger LOG = LoggerFactory.getLogger(Heartbeat.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final String PID = Long.toString(ProcessHandle.current().pid());

    private final QueueClient client;
    private final String id;
    private final String name;
    private final String concurrency;
    private final IntSupplier inHand;
    private final String ttl;
    private Queue beating;   // guarded by this: the queue the record is on, once a beat was sent
    private boolean removed;   // guarded by this

    /**
     * @param name        the worker's name, as its log lines and threads show it
     * @param concurrency its handlers at most
     * @param inHand      how many jobs it runs now
     * @param intervalMs  its maintenance interval: one beat each
     */
    Heartbeat(String name, QueueClient client, int concurrency, IntSupplier inHand, long intervalMs) {
        this.client = client;
        this.name = name;
        this.concurrency = Integer.toString(concurrency);
        this.inHand = inHand;
        this.ttl = Long.toString(ttlMillis(intervalMs));
        this.id = Host.NAME + "-" + PID + "-" + SEQUENCE.incrementAndGet();
    }

    /** @return how long a record lives without a next beat: three intervals, at least {@value #MIN_TTL_MS} ms */
    static long ttlMillis(long intervalMs) {
        return Math.max(MIN_TTL_MS, 3 * intervalMs);
    }

    /** @return the worker's id in the records: {@code <host>-<pid>-<n>} */
    String id() {
        return id;
    }

    /** Sends one beat on {@code queue}'s keys, unless the record was removed. Never blocks. */
    synchronized void beat(Queue queue) {
        if (removed) {
            return;
        }
        beating = queue;
        try {
            send(queue, ttl, "host", Host.NAME, "pid", PID, "name", name, "concurrency", concurrency,
                    "in_hand", Integer.toString(inHand.getAsInt()))
                    .whenComplete((n, failure) -> {
                        if (failure != null) {
                            LOG.debug("{}: heartbeat failed: {}", name, RedisEngine.unwrap(failure).toString());
                        }
                    });
        } catch (RuntimeException e) {
            LOG.debug("{}: heartbeat failed: {}", name, e.toString());
        }
    }

    /** Removes the record (if a beat was sent), waiting at most the command timeout; sends no beat after. */
    synchronized void remove() {
        if (removed) {
            return;
        }
        removed = true;
        if (beating == null) {
            return;
        }
        try {
            RedisEngine.await(send(beating, "0"), Scripts.HEARTBEAT.label(), beating.name());
        } catch (RedisCommandException | IllegalStateException e) {
            // the record expires by itself within its ttl
            LOG.debug("{}: could not remove the heartbeat: {}", name, e.toString());
        }
    }

    private java.util.concurrent.CompletableFuture<Long> send(Queue queue, String ttlMs, String... fields) {
        String[] args = new String[3 + fields.length];
        args[0] = id;
        args[1] = ttlMs;
        args[2] = Integer.toString(MAX_WORKERS);
        System.arraycopy(fields, 0, args, 3, fields.length);
        String[] keys = {queue.keys().workers(), queue.keys().worker(id)};
        return client.engine().run(Scripts.HEARTBEAT, ScriptOutputType.INTEGER, keys, args);
    }

    /** This machine's name, read once, with every character a key or id should not hold replaced by {@code _}. */
    private static final class Host {
        static final String NAME = read();

        private static String read() {
            String host;
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (java.io.IOException | RuntimeException e) {
                host = "unknown-host";
            }
            String clean = host.replaceAll("[^A-Za-z0-9._-]", "_");
            return clean.isEmpty() ? "unknown-host" : clean.substring(0, Math.min(clean.length(), 64));
        }
    }
}
