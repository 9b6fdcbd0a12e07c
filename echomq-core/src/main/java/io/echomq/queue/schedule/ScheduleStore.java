package io.echomq.queue;

import io.echomq.internal.LuaScript;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The schedules of one queue in Redis: the four schedule scripts and the listing reads, each
 * decoded, nothing decided. Keys are under the queue's own prefix, so they share its cluster slot:
 * {@code emq:{q}:schedules} (ZSET, id → next fire time) and {@code emq:{q}:schedule:<id>} (HASH).
 */
final class ScheduleStore {
    /** The eight hash fields schedule-due-1 returns, in its order. */
    static final String[] FIELDS = {"spec", "zone", "payload", "missed", "max_missed", "priority", "max_attempts",
            "version"};

    private final RedisEngine engine;
    private final StatefulConnection<String, byte[]> conn;
    private final QueueKeys keys;
    private final byte[] prefix;
    private final String[] schedulesKey;
    private final String resource;

    /**
     * @param engine the client's engine, whose binary connection carries the scripts
     * @param keys   the keys of the queue that keeps the schedules
     */
    ScheduleStore(RedisEngine engine, QueueKeys keys) {
        this.engine = engine;
        this.conn = engine.binary();
        this.keys = keys;
        this.prefix = keys.prefix().getBytes(StandardCharsets.UTF_8);
        this.schedulesKey = new String[] {keys.schedules()};
        this.resource = keys.queue();
    }

    /** A due schedule as schedule-due-1 read it: the stored fire time and version, and its raw fields. */
    record Due(String id, String fireText, long fire, byte[][] fields) {
        String text(int i) {
            return fields[i] == null ? null : new String(fields[i], StandardCharsets.UTF_8);
        }

        String version() {
            return text(7);
        }
    }

    /** What one schedule-due-1 call answered. */
    record DueRead(long now, long nextMs, List<Due> due) {
    }

    CompletableFuture<DueRead> due(int limit) {
        return this.<List<Object>>run(Scripts.SCHEDULE_DUE, prefix, QueueWire.num(limit)).thenApply(r -> {
            List<Due> out = new ArrayList<>();
            for (int i = 2; i + 9 < r.size(); i += 10) {
                byte[][] f = new byte[8][];
                for (int j = 0; j < 8; j++) {
                    f[j] = (byte[]) r.get(i + 2 + j);
                }
                String fire = QueueWire.text(r.get(i + 1));
                out.add(new Due(QueueWire.text(r.get(i)), fire, (long) Double.parseDouble(fire), f));
            }
            return new DueRead((Long) r.get(0), (Long) r.get(1), out);
        });
    }

    /** @return {next fire time text ('inf' for none), version} */
    CompletableFuture<List<Object>> upsert(Schedule s, long next) {
        return run(Scripts.SCHEDULE_UPSERT, prefix, QueueWire.bytes(s.id()), QueueWire.bytes(s.spec().text()),
                QueueWire.bytes(s.spec().zone().getId()), next < 0 ? new byte[0] : QueueWire.num(next), s.rawPayload(),
                QueueWire.bytes(s.missed().text()), QueueWire.num(s.maxMissed()), QueueWire.num(s.priority()), QueueWire.num(s.maxAttempts()));
    }

    CompletableFuture<Long> remove(String id) {
        return run(Scripts.SCHEDULE_REMOVE, ScriptOutputType.INTEGER, prefix, QueueWire.bytes(id));
    }

    /** @return 1 ADVANCED or 0 MOVED */
    CompletableFuture<Long> advance(Due d, long next) {
        return run(Scripts.SCHEDULE_ADVANCE, ScriptOutputType.INTEGER, prefix, QueueWire.bytes(d.id()), QueueWire.bytes(d.fireText()),
                QueueWire.bytes(d.version() == null ? "" : d.version()), next < 0 ? new byte[0] : QueueWire.num(next));
    }

    /** @return every schedule id with its stored next fire time (empty for none), by next fire time */
    List<ScoredValue<byte[]>> ids() {
        return ids(-1);
    }

    /** @return the first {@code limit} schedule ids by next fire time (every one for -1) */
    List<ScoredValue<byte[]>> ids(long limit) {
        long stop = limit < 0 ? -1 : limit - 1;
        return RedisEngine.await(RedisEngine.async(conn).zrangeWithScores(keys.schedules(), 0, stop).toCompletableFuture(),
                "ZRANGE " + keys.schedules(), resource);
    }

    /** @return how many schedules are stored */
    long count() {
        return RedisEngine.await(RedisEngine.async(conn).zcard(keys.schedules()).toCompletableFuture(),
                "ZCARD " + keys.schedules(), resource);
    }

    /** @return the stored next fire time of one schedule (infinite: never again), or null when it has none */
    Double score(String id) {
        return RedisEngine.await(RedisEngine.async(conn).zscore(keys.schedules(), QueueWire.bytes(id)).toCompletableFuture(),
                "ZSCORE " + keys.schedules(), resource);
    }

    /** @return the fields {@link #FIELDS} of one schedule's hash, or null when it has none */
    byte[][] fields(String id) {
        List<io.lettuce.core.KeyValue<String, byte[]>> h = RedisEngine.await(RedisEngine.async(conn)
                .hmget(keys.schedule(id), FIELDS).toCompletableFuture(), "HMGET " + keys.schedule(id), resource);
        if (!h.get(0).hasValue()) {
            return null;
        }
        byte[][] out = new byte[FIELDS.length][];
        for (int i = 0; i < out.length; i++) {
            out[i] = h.get(i).hasValue() ? h.get(i).getValue() : null;
        }
        return out;
    }

    /** @return the next fire time of a stored score as text: empty for inf */
    static Optional<Instant> nextOf(String score) {
        return score.contains("inf") ? Optional.empty() : nextOf(Double.parseDouble(score));
    }

    /** @return the next fire time of a stored score: empty for inf */
    static Optional<Instant> nextOf(double score) {
        return Double.isInfinite(score) ? Optional.empty() : Optional.of(Instant.ofEpochMilli((long) score));
    }

    String resource() {
        return resource;
    }

    private <T> CompletableFuture<T> run(LuaScript script, byte[]... args) {
        return engine.run(conn, script, ScriptOutputType.MULTI, schedulesKey, args);
    }

    private <T> CompletableFuture<T> run(LuaScript script, ScriptOutputType type, byte[]... args) {
        return engine.run(conn, script, type, schedulesKey, args);
    }
}
