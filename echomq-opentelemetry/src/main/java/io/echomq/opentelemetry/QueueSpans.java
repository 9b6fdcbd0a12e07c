package io.echomq.opentelemetry;

import io.echomq.queue.EnqueueResult;
import io.echomq.queue.Job;
import io.echomq.queue.SettleOutcome;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

/**
 * The queue's spans, by OpenTelemetry's messaging semantic conventions.
 *
 * <ol>
 *   <li>{@code send <queue>} (PRODUCER) around one enqueue call: {@code messaging.system} =
 *       {@code echomq}, {@code messaging.destination.name} = the queue,
 *       {@code messaging.operation.type} and {@code messaging.operation.name} = {@code send}, and
 *       {@code messaging.message.id} = the job id for one job or
 *       {@code messaging.batch.message_count} for several. Its context is injected, through the
 *       propagator, into the fields every created job stores.</li>
 *   <li>{@code process <queue>} (CONSUMER) around one attempt: the same system and destination,
 *       operation {@code process}, the job id, {@code messaging.echomq.attempt}, and
 *       {@code messaging.echomq.outcome} (completed, retrying, dead, returned, lease_lost,
 *       cancelled, or settle_failed); its parent is the context extracted from the job's fields.
 *       It is current on the handler's thread while the handler runs.</li>
 *   <li>Failure: an enqueue that throws, or an attempt that retries, dies, loses its lease or
 *       cannot be settled, sets the status ERROR and {@code error.type} (the exception's class, or
 *       the outcome); a thrown exception is recorded as the span's exception event.</li>
 * </ol>
 */
final class QueueSpans {
    static final String SYSTEM = "echomq";
    static final AttributeKey<String> MESSAGING_SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
    static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    static final AttributeKey<Long> BATCH_COUNT = AttributeKey.longKey("messaging.batch.message_count");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("messaging.echomq.attempt");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("messaging.echomq.outcome");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    private static final TextMapSetter<BiConsumer<String, String>> SETTER = (fields, key, value) -> {
        if (fields != null) {
            fields.accept(key, value);
        }
    };

    private static final TextMapGetter<Map<String, String>> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> fields) {
            return fields.keySet();
        }

        @Override
        public String get(Map<String, String> fields, String key) {
            return fields == null ? null : fields.get(key);
        }
    };

    /** One attempt's span and the scope that makes it current on the handler's thread. */
    private static final class Processing {
        final Span span;
        final Scope scope;
        final AtomicBoolean ended = new AtomicBoolean();

        Processing(Span span, Scope scope) {
            this.span = span;
            this.scope = scope;
        }
    }

    private final Tracer tracer;
    private final TextMapPropagator propagator;

    QueueSpans(Tracer tracer, TextMapPropagator propagator) {
        this.tracer = tracer;
        this.propagator = propagator;
    }

    /** @return the send span, started, its context given to {@code fields} */
    Span sendStarting(String queue, int count, BiConsumer<String, String> fields) {
        Span span = tracer.spanBuilder("send " + queue).setSpanKind(SpanKind.PRODUCER)
                .setAttribute(MESSAGING_SYSTEM, SYSTEM).setAttribute(DESTINATION, queue)
                .setAttribute(OPERATION_TYPE, "send").setAttribute(OPERATION_NAME, "send")
                .startSpan();
        if (count > 1) {
            span.setAttribute(BATCH_COUNT, count);
        }
        propagator.inject(Context.current().with(span), fields, SETTER);
        return span;
    }

    void sendEnded(Object handle, List<EnqueueResult> results, Throwable error) {
        if (!(handle instanceof Span span)) {
            return;
        }
        if (results != null && results.size() == 1) {
            span.setAttribute(MESSAGE_ID, results.get(0).id());
        }
        if (error != null) {
            span.recordException(error);
            span.setAttribute(ERROR_TYPE, error.getClass().getName());
            span.setStatus(StatusCode.ERROR, String.valueOf(error.getMessage()));
        }
        span.end();
    }

    /** @return the attempt's span, started and made current on this (the handler's) thread */
    Object processStarting(String queue, Job job, Map<String, String> fields) {
        Context parent = fields.isEmpty() ? Context.root() : propagator.extract(Context.root(), fields, GETTER);
        Span span = tracer.spanBuilder("process " + queue).setSpanKind(SpanKind.CONSUMER).setParent(parent)
                .setAttribute(MESSAGING_SYSTEM, SYSTEM).setAttribute(DESTINATION, queue)
                .setAttribute(OPERATION_TYPE, "process").setAttribute(OPERATION_NAME, "process")
                .setAttribute(MESSAGE_ID, job.id()).setAttribute(ATTEMPT, job.attempt())
                .startSpan();
        return new Processing(span, span.makeCurrent());
    }

    void handlerReturned(Object handle) {
        if (handle instanceof Processing p) {
            p.scope.close();
        }
    }

    void processEnded(Object handle, SettleOutcome outcome, Throwable error) {
        if (!(handle instanceof Processing p) || !p.ended.compareAndSet(false, true)) {
            return;
        }
        String tag = outcome == null ? "settle_failed" : outcome.name().toLowerCase(Locale.ROOT);
        p.span.setAttribute(OUTCOME, tag);
        boolean failed = outcome == null || outcome == SettleOutcome.RETRYING || outcome == SettleOutcome.DEAD
                || outcome == SettleOutcome.LEASE_LOST;
        if (error != null) {
            p.span.recordException(error);
        }
        if (failed) {
            p.span.setAttribute(ERROR_TYPE, error != null ? error.getClass().getName() : tag);
            p.span.setStatus(StatusCode.ERROR, tag);
        }
        p.span.end();
    }
}
