package io.echomq.queue;

import io.echomq.internal.QueueKeys;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The listing of one queue's (or one partition's) jobs by state, a page per call.
 *
 * <ol>
 *   <li>Sends {@code list-2.lua} with the state's sorted set, the wait LIST (read for pending
 *       only) and the decoded cursor ({@link ListCursor}).</li>
 *   <li>Decodes its reply into {@link JobSummary}s and the next cursor; drops a done-index entry
 *       whose hash has expired (it is no longer kept), and a cancellation record's entry whose
 *       hash is in another state (a foreign writer reused the id); a cancelled entry with no hash is
 *       kept, since the record is what keeps it listable.</li>
 * </ol>
 *
 * <p>The page is read in one script, so it is one atomic snapshot; the walk over pages is not,
 * and what it guarantees is {@code list-2.lua}'s (docs/queue.md, "Listing jobs"). Arguments are
 * checked by the caller, except the cursor, which is parsed here.
 */
final class QueueListing {
    private static final int PER_ENTRY = 7;

    private final QueueWire wire;
    private final String idPrefix;

    QueueListing(QueueWire wire, String idPrefix) {
        this.wire = wire;
        this.idPrefix = idPrefix;
    }

    /** @throws IllegalArgumentException if the cursor is malformed or belongs to another state's listing */
    JobPage list(JobState state, int limit, String cursor) {
        return page(state, limit, ListCursor.parse(cursor, state));
    }

    /** One page from a parsed cursor; the next cursor is in the plain form (no partition). */
    JobPage page(JobState state, int limit, ListCursor at) {
        QueueKeys k = wire.keys();
        String[] keys = {setOf(k, state), k.waitList()};
        List<Object> r = wire.await(wire.run(Scripts.LIST, ScriptOutputType.MULTI, keys, wire.prefix(),
                QueueWire.num(limit), state == JobState.PENDING ? QueueWire.ONE : QueueWire.ZERO,
                QueueWire.bytes(at.kind()), QueueWire.bytes(at.score()), QueueWire.bytes(at.id()),
                QueueWire.bytes(at.prev())), Scripts.LIST.label());
        String kind = QueueWire.text(r.get(0));
        Optional<String> next = kind == null || kind.isEmpty() ? Optional.empty()
                : Optional.of(new ListCursor(kind, nz(QueueWire.text(r.get(1))), QueueWire.text(r.get(2)),
                        nz(QueueWire.text(r.get(3)))).text());
        List<JobSummary> jobs = new ArrayList<>();
        for (int i = 4; i + PER_ENTRY <= r.size(); i += PER_ENTRY) {
            String hashState = QueueWire.text(r.get(i + 2));
            if (state == JobState.DONE && !"done".equals(hashState)) {
                continue;   // its hash expired (or was removed): no longer kept
            }
            if (state == JobState.CANCELLED && hashState != null && !"cancelled".equals(hashState)) {
                continue;   // a foreign writer reused the id: not cancelled now
            }
            String score = QueueWire.text(r.get(i + 1));
            jobs.add(new JobSummary(idPrefix + QueueWire.text(r.get(i)), state,
                    number(r.get(i + 3), 0), (int) Math.max(-1000, Math.min(1000, number(r.get(i + 4), 0))),
                    score == null || score.isEmpty() ? OptionalLong.empty() : OptionalLong.of(scoreOf(score)),
                    optional(r.get(i + 5)), optional(r.get(i + 6))));
        }
        return new JobPage(jobs, next);
    }

    static String setOf(QueueKeys k, JobState state) {
        return switch (state) {
            case PENDING -> k.pending();
            case ACTIVE -> k.active();
            case DELAYED -> k.delayed();
            case DEAD -> k.dead();
            case DONE -> k.done();
            case CANCELLED -> k.cancelled();
        };
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }

    private static long scoreOf(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            // a foreign producer's own score: a fraction, or Redis's inf / -inf
            return s.endsWith("inf") ? (s.startsWith("-") ? Long.MIN_VALUE : Long.MAX_VALUE) : (long) Double.parseDouble(s);
        }
    }

    /** @return the field as a long; {@code absent} when it is absent, -1 when it is not an integer */
    private static long number(Object field, long absent) {
        String s = QueueWire.text(field);
        if (s == null) {
            return absent;
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static OptionalLong optional(Object field) {
        long v = number(field, Long.MIN_VALUE);
        return v == Long.MIN_VALUE || v < 0 ? OptionalLong.empty() : OptionalLong.of(v);
    }
}
