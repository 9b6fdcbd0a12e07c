package io.echomq.queue;

import io.echomq.RedisCommandException;
import io.echomq.internal.Checks;
import io.echomq.internal.EngineConnector;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reader of one queue's events stream {@code emq:{q}:events} (docs/protocol.md, "Events"),
 * from any process.
 *
 * <ol>
 *   <li>Reads with {@code XREAD BLOCK} on its own connections ({@link #open} connects them; a
 *       blocked read never holds up a client's commands), at most a second per call.</li>
 *   <li>Delivers events one by one, to a caller that pulls them ({@link #next}) or to a listener
 *       on its own thread ({@link #listen}), in stream order.</li>
 *   <li>Resumes: {@link #lastId()} is the last event handed out; a reader opened with it, or the
 *       same reader after a failed read or a reconnect, goes on with the event after it.</li>
 *   <li>Detects gaps: after each read it fetches the stream's first id, in the same pipeline. When
 *       the id the read started after is older than that first id, the entry it names was trimmed
 *       by the cap, and with it maybe later ones the reader never saw: it hands out a
 *       {@link QueueEvent#GAP} notice first ({@link QueueEventListener#onGap}), never a silent skip.
 *       A reader that started from the stream's beginning ({@code "0"}) or from an empty stream
 *       has seen nothing that could be trimmed, and its first read reports no gap.</li>
 * </ol>
 *
 * <p>A listener's exception is logged (the first at WARN with its stack trace, later ones at
 * DEBUG) and never stops the reader; a failed read is logged and retried from the same id.
 * Not thread-safe for {@link #next}: one caller pulls, or one listener listens.
 */
public final class QueueEvents implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(QueueEvents.class);
    private static final Pattern STREAM_ID = Pattern.compile("\\d{1,20}-\\d{1,20}");
    private static final int BATCH = 100;
    private static final long MAX_BLOCK_MS = 1000;

    private final RedisEngine engine;
    private final RedisClusterAsyncCommands<String, byte[]> commands;
    private final String key;
    private final String queue;
    private final ArrayDeque<QueueEvent> ready = new ArrayDeque<>();
    private String cursor;              // the last id read: the next read starts after it
    private boolean cursorSeen;         // whether cursor names an entry this reader could have lost to a trim
    private volatile String delivered;  // the last id handed out
    private volatile boolean closed;
    private Thread thread;              // guarded by this
    private boolean listenerFailed;

    private QueueEvents(RedisEngine engine, QueueKeys keys, String from) {
        this.engine = engine;
        this.commands = RedisEngine.async(engine.binary());
        this.key = keys.prefix() + "events";
        this.queue = keys.queue();
        if (from == null || from.equals("$")) {
            List<StreamMessage<String, byte[]>> last = RedisEngine.await(commands.xrevrange(key, Range.create("-", "+"),
                    Limit.from(1)).toCompletableFuture(), "XREVRANGE", queue);
            cursor = last.isEmpty() ? "0-0" : last.get(0).getId();
            cursorSeen = !last.isEmpty();
        } else if (from.equals("0") || from.equals("0-0")) {
            cursor = "0-0";
            cursorSeen = false;
        } else {
            cursor = from;
            cursorSeen = true;
        }
        delivered = cursor;
    }

    /**
     * Connects to Redis and opens a reader of queue {@code queue}'s events (for one partition of a
     * sharded queue, name it {@code <q>#<i>}).
     *
     * @param redisUrl as {@link QueueClient#create} takes it
     * @param from     null or {@code "$"}: only events written from now on; {@code "0"}: from the
     *                 oldest event the stream keeps; a stream id {@code <ms>-<seq>}: the events after
     *                 it (a {@link #lastId()} kept from an earlier reader)
     * @throws IllegalArgumentException if the URL or queue name is invalid, or {@code from} is
     *     none of the above
     * @throws RedisCommandException if Redis cannot be reached
     */
    public static QueueEvents open(String redisUrl, String queue, String from) {
        return open(redisUrl, null, queue, from);
    }

    /**
     * As {@link #open(String, String, String)}, trusting for TLS ({@code rediss://}) the CA
     * certificates in {@code trustedCertificates}, as {@code QueueClient.Builder.trustedCertificates} does.
     *
     * @param trustedCertificates a PEM file of CA certificates, or null for the JVM's trust store
     * @throws IllegalArgumentException also if the PEM file is unreadable or holds no certificate
     */
    public static QueueEvents open(String redisUrl, java.nio.file.Path trustedCertificates, String queue,
                                   String from) {
        Checks.notNull(redisUrl, "redisUrl");
        java.nio.file.Path trust = trustedCertificates == null ? null
                : io.echomq.internal.TlsTrust.check(trustedCertificates);
        QueueKeys keys = QueueKeys.of(queue);
        if (from != null && !from.equals("$") && !from.equals("0") && !STREAM_ID.matcher(from).matches()) {
            throw new IllegalArgumentException("from must be $, 0 or a stream id <ms>-<seq>, was '" + from + "'");
        }
        RedisEngine engine = EngineConnector.connect(redisUrl, RedisEngine.DEFAULT_COMMAND_TIMEOUT, trust);
        try {
            return new QueueEvents(engine, keys, from);
        } catch (RuntimeException e) {
            engine.close();
            throw e;
        }
    }

    /**
     * @return the next event, a gap notice first where one is due; null when none was written
     *     within {@code timeout}
     * @throws IllegalArgumentException if timeout is null or negative
     * @throws IllegalStateException if the reader is closed
     * @throws RedisCommandException if the read failed; the next call reads from the same place
     */
    public QueueEvent next(Duration timeout) {
        Checks.notNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (ready.isEmpty()) {
            if (closed) {
                throw new IllegalStateException("the events reader of queue " + queue + " is closed");
            }
            long left = Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
            read(Math.min(left, MAX_BLOCK_MS));
            if (ready.isEmpty() && System.nanoTime() - deadline >= 0) {
                return null;
            }
        }
        QueueEvent e = ready.poll();
        if (!e.isGap()) {
            delivered = e.streamId();
        }
        return e;
    }

    /** One XREAD (BLOCK blockMs; 0 would block forever, so at least 1) and the first id, pipelined. */
    private void read(long blockMs) {
        RedisFuture<List<StreamMessage<String, byte[]>>> got = commands.xread(
                XReadArgs.Builder.block(Math.max(1, blockMs)).count(BATCH), XReadArgs.StreamOffset.from(key, cursor));
        RedisFuture<List<StreamMessage<String, byte[]>>> first = commands.xrange(key, Range.create("-", "+"),
                Limit.from(1));
        List<StreamMessage<String, byte[]>> entries = RedisEngine.await(got.toCompletableFuture(), "XREAD", queue);
        List<StreamMessage<String, byte[]>> head = RedisEngine.await(first.toCompletableFuture(), "XRANGE", queue);
        if (entries == null || entries.isEmpty()) {
            return;
        }
        if (cursorSeen && !head.isEmpty() && compare(head.get(0).getId(), cursor) > 0) {
            ready.add(new QueueEvent(head.get(0).getId(), QueueEvent.GAP, "", 0,
                    Map.of("event", QueueEvent.GAP, "after", cursor, "first", head.get(0).getId())));
        }
        for (StreamMessage<String, byte[]> m : entries) {
            ready.add(decode(m));
        }
        cursor = entries.get(entries.size() - 1).getId();
        cursorSeen = true;
    }

    static QueueEvent decode(StreamMessage<String, byte[]> m) {
        Map<String, String> fields = new LinkedHashMap<>();
        m.getBody().forEach((k, v) -> fields.put(k, v == null ? "" : new String(v, StandardCharsets.UTF_8)));
        long attempt;
        try {
            attempt = Long.parseLong(fields.getOrDefault("attempt", "0"));
        } catch (NumberFormatException e) {
            attempt = 0;
        }
        return new QueueEvent(m.getId(), fields.getOrDefault("event", ""), fields.getOrDefault("id", ""), attempt,
                Collections.unmodifiableMap(fields));
    }

    /** @return the order of two stream ids {@code <ms>-<seq>} */
    static int compare(String a, String b) {
        int da = a.indexOf('-');
        int db = b.indexOf('-');
        int c = Long.compareUnsigned(Long.parseUnsignedLong(a.substring(0, da)), Long.parseUnsignedLong(b.substring(0, db)));
        return c != 0 ? c : Long.compareUnsigned(Long.parseUnsignedLong(a.substring(da + 1)),
                Long.parseUnsignedLong(b.substring(db + 1)));
    }

    /**
     * @return the stream id of the last event handed out (by {@link #next} or to the listener), or
     *     the position the reader was opened at; open a reader with it to resume after it
     */
    public String lastId() {
        return delivered;
    }

    /**
     * Starts the reader's thread, which tells {@code listener} every event until {@link #close}.
     *
     * @throws IllegalArgumentException if listener is null
     * @throws IllegalStateException if the reader already listens or is closed
     */
    public synchronized void listen(QueueEventListener listener) {
        Checks.notNull(listener, "listener");
        if (thread != null || closed) {
            throw new IllegalStateException("the events reader of queue " + queue + " already listens or is closed");
        }
        thread = new Thread(() -> loop(listener), "emq-events-" + queue);
        thread.setDaemon(true);
        thread.start();
    }

    private void loop(QueueEventListener listener) {
        boolean readFailed = false;
        while (!closed) {
            QueueEvent e;
            try {
                e = next(Duration.ofMillis(MAX_BLOCK_MS));
                readFailed = false;
            } catch (RuntimeException failure) {
                if (closed) {
                    return;
                }
                if (!readFailed) {
                    LOG.warn("reading the events of queue {} failed; retrying from {}", queue, cursor, failure);
                }
                readFailed = true;
                pause();
                continue;
            }
            if (e != null) {
                deliver(listener, e);
            }
        }
    }

    private void deliver(QueueEventListener listener, QueueEvent e) {
        try {
            if (e.isGap()) {
                listener.onGap(e);
            } else {
                listener.onEvent(e);
            }
        } catch (RuntimeException failure) {
            if (!listenerFailed) {
                listenerFailed = true;
                LOG.warn("an events listener of queue {} threw; ignored (further failures are logged at DEBUG)",
                        queue, failure);
            } else {
                LOG.debug("an events listener of queue {} threw; ignored", queue, failure);
            }
        }
    }

    /** The wait before a failed read is tried again, so that a server that is down is not hammered. */
    private static void pause() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the listener's thread, if any, and closes the reader's connections. Idempotent. */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            t = thread;
        }
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(MAX_BLOCK_MS + RedisEngine.DEFAULT_COMMAND_TIMEOUT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        engine.close();
    }
}
