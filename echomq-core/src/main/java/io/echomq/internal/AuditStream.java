package io.echomq.internal;

import io.echomq.audit.AuditAction;
import io.echomq.audit.AuditEntry;
import io.echomq.audit.AuditTarget;
import io.echomq.audit.AuditTrail;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAddArgs;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@link AuditTrail} of one engine's server: the wire of the stream {@value AuditTrail#KEY}
 * (docs/protocol.md, "Audit trail").
 *
 * <ol>
 *   <li>Writes a record as {@code XADD emq:audit MAXLEN ~ 10000 * action <a> <queue|lock> <name> who <w>
 *       detail <d>}, after checking who and cutting the detail.</li>
 *   <li>Reads records newest first with {@code XREVRANGE}, in pages of {@value #PAGE}, skipping any
 *       that lacks an action, a who or a target (another writer's, or a damaged one).</li>
 * </ol>
 */
public final class AuditStream implements AuditTrail {
    /** Records per XREVRANGE when a read filters by target. */
    static final int PAGE = 500;

    private final RedisEngine engine;

    /** @param engine the engine whose server keeps the stream; not closed here */
    public AuditStream(RedisEngine engine) {
        this.engine = engine;
    }

    @Override
    public String record(AuditTarget target, AuditAction action, String who, String detail) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(action, "action");
        checkWho(who);
        String d = detail == null ? "" : detail;
        if (d.length() > MAX_DETAIL) {
            d = d.substring(0, MAX_DETAIL - 1) + "…";
        }
        XAddArgs args = XAddArgs.Builder.maxlen(MAX_ENTRIES).approximateTrimming();
        Map<String, String> body = new java.util.LinkedHashMap<>();
        body.put("action", action.wire());
        body.put(target.kind().field(), target.name());
        body.put("who", who);
        body.put("detail", d);
        return RedisEngine.await(engine.commands().xadd(KEY, args, body).toCompletableFuture(), "XADD", KEY);
    }

    static void checkWho(String who) {
        if (who == null || who.isBlank()) {
            throw new IllegalArgumentException("who must not be null or blank: a record says who acted");
        }
        if (who.length() > MAX_WHO) {
            throw new IllegalArgumentException("who is " + who.length() + " characters long; the maximum is " + MAX_WHO);
        }
        for (int i = 0; i < who.length(); i++) {
            if (Character.isISOControl(who.charAt(i))) {
                throw new IllegalArgumentException("who must not contain control characters; found one at index " + i);
            }
        }
    }

    @Override
    public List<AuditEntry> recent(int limit) {
        checkLimit(limit);
        List<AuditEntry> out = new ArrayList<>(Math.min(limit, 64));
        for (StreamMessage<String, String> m : page(null, limit)) {
            AuditEntry e = entry(m);
            if (e != null) {
                out.add(e);
            }
        }
        return out;
    }

    @Override
    public List<AuditEntry> recent(AuditTarget target, int limit) {
        Objects.requireNonNull(target, "target");
        checkLimit(limit);
        List<AuditEntry> out = new ArrayList<>();
        String before = null;   // the oldest id read so far; null before the first page
        int read = 0;
        while (read < MAX_ENTRIES) {
            List<StreamMessage<String, String>> page = page(before, Math.min(PAGE, MAX_ENTRIES - read));
            for (StreamMessage<String, String> m : page) {
                AuditEntry e = entry(m);
                if (e != null && e.target().equals(target)) {
                    out.add(e);
                    if (out.size() == limit) {
                        return out;
                    }
                }
            }
            read += page.size();
            if (page.size() < PAGE) {
                break;
            }
            before = page.get(page.size() - 1).getId();
        }
        return out;
    }

    /** @return up to count records older than {@code before} (all when null), newest first */
    private List<StreamMessage<String, String>> page(String before, int count) {
        Range<String> range = Range.from(Range.Boundary.unbounded(),
                before == null ? Range.Boundary.unbounded() : Range.Boundary.excluding(before));
        return RedisEngine.await(engine.commands().xrevrange(KEY, range, Limit.from(count)).toCompletableFuture(),
                "XREVRANGE", KEY);
    }

    private static void checkLimit(int limit) {
        if (limit < 1 || limit > MAX_READ) {
            throw new IllegalArgumentException("limit must be 1 to " + MAX_READ + ", got " + limit);
        }
    }

    /** @return the record, or null when it lacks an action, a who or a valid target */
    static AuditEntry entry(StreamMessage<String, String> m) {
        Map<String, String> b = m.getBody();
        String action = b.get("action");
        String who = b.get("who");
        if (action == null || who == null) {
            return null;
        }
        AuditTarget target;
        try {
            if (b.containsKey(AuditTarget.Kind.QUEUE.field())) {
                target = AuditTarget.queue(b.get(AuditTarget.Kind.QUEUE.field()));
            } else if (b.containsKey(AuditTarget.Kind.LOCK.field())) {
                target = AuditTarget.lock(b.get(AuditTarget.Kind.LOCK.field()));
            } else {
                return null;
            }
        } catch (IllegalArgumentException notAName) {
            return null;
        }
        String id = m.getId();
        long ms = Long.parseLong(id.substring(0, id.indexOf('-')));
        return new AuditEntry(id, Instant.ofEpochMilli(ms), action, target, who, b.getOrDefault("detail", ""));
    }
}
