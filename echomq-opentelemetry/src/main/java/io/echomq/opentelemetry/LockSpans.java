package io.echomq.opentelemetry;

import io.echomq.lock.LockInstrumentation.AcquireOutcome;
import io.echomq.lock.LockInstrumentation.LockMode;
import io.echomq.lock.Lease;
import io.echomq.lock.LossReason;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The lock spans, made only when {@link EchoMQTracing.Builder#lockSpans(boolean)} asks.
 *
 * <ol>
 *   <li>{@code lock acquire} (INTERNAL), one per {@code tryAcquire}/{@code acquire} call, drawn
 *       after the fact from the call's measured time: {@code echomq.lock.mode} (plain, fenced,
 *       redlock) and {@code echomq.lock.outcome} (acquired, busy, timed_out, error; error sets the
 *       status ERROR). A child of the caller's current context.</li>
 *   <li>{@code lock hold} (INTERNAL), from the grant to the release or the loss, with the mode and
 *       {@code echomq.lock.ended} = {@code released}, or the {@link LossReason} in lower case.</li>
 *   <li>Ends the hold span of a lease that ran out unreleased, which the client never reports:
 *       on a later grant, at most once a second, every open hold whose lease is no longer held
 *       ends, as {@code deadline_passed} or its loss.</li>
 * </ol>
 * No attribute names the resource or the token: the lock's name may be a customer's id.
 */
final class LockSpans {
    static final AttributeKey<String> MODE = AttributeKey.stringKey("echomq.lock.mode");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("echomq.lock.outcome");
    static final AttributeKey<String> ENDED = AttributeKey.stringKey("echomq.lock.ended");
    private static final long SWEEP_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** One held lease's span. */
    private record Hold(Span span, Lease lease) {
    }

    private final Tracer tracer;
    private final Map<Hold, Boolean> open = new ConcurrentHashMap<>();
    private final AtomicLong lastSweep = new AtomicLong(System.nanoTime());

    LockSpans(Tracer tracer) {
        this.tracer = tracer;
    }

    void acquired(LockMode mode, AcquireOutcome outcome, long nanos) {
        Instant end = Instant.now();
        Span span = tracer.spanBuilder("lock acquire").setSpanKind(SpanKind.INTERNAL)
                .setStartTimestamp(end.minusNanos(nanos))
                .setAttribute(MODE, tag(mode)).setAttribute(OUTCOME, outcome.name().toLowerCase(Locale.ROOT))
                .startSpan();
        if (outcome == AcquireOutcome.ERROR) {
            span.setStatus(StatusCode.ERROR, "error");
        }
        span.end(end);
    }

    Object held(LockMode mode, Lease lease) {
        sweep();
        Span span = tracer.spanBuilder("lock hold").setSpanKind(SpanKind.INTERNAL).setAttribute(MODE, tag(mode))
                .startSpan();
        Hold h = new Hold(span, lease);
        open.put(h, Boolean.TRUE);
        return h;
    }

    void ended(Object handle) {
        if (handle instanceof Hold h) {
            end(h, "released");
        }
    }

    /** @return how many open holds whose lease is no longer held it ended */
    int sweep() {
        long now = System.nanoTime();
        long last = lastSweep.get();
        if (now - last < SWEEP_EVERY_NANOS || !lastSweep.compareAndSet(last, now)) {
            return 0;
        }
        return sweepNow();
    }

    int sweepNow() {
        int n = 0;
        for (Hold h : open.keySet()) {
            if (!h.lease().isHeld() && end(h, "deadline_passed")) {
                n++;
            }
        }
        return n;
    }

    /** Ends {@code h} once: as its loss's reason when it was lost, else as {@code otherwise}. */
    private boolean end(Hold h, String otherwise) {
        if (open.remove(h) == null) {
            return false;
        }
        String how = h.lease().lossReason().map(r -> r.name().toLowerCase(Locale.ROOT)).orElse(otherwise);
        h.span().setAttribute(ENDED, how);
        h.span().end();
        return true;
    }

    private static String tag(LockMode mode) {
        return mode.name().toLowerCase(Locale.ROOT);
    }
}
