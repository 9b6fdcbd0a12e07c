package io.echomq.opentelemetry;

import io.echomq.observe.Instrumentation;
import io.echomq.lock.Lease;
import io.echomq.lock.LossReason;
import io.echomq.queue.EnqueueResult;
import io.echomq.queue.Job;
import io.echomq.queue.SettleOutcome;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * OpenTelemetry spans for EchoMQ: the {@link Instrumentation} to give to the queue (and, for lock
 * spans, the lock) clients' builders.
 *
 * <pre>{@code
 * EchoMQTracing tracing = EchoMQTracing.builder(openTelemetry).build();
 * QueueClient queues = QueueClient.builder().redisUrl(url).instrumentation(tracing).build();
 * }</pre>
 *
 * <p>The spans follow OpenTelemetry's messaging semantic conventions:
 * <ul>
 *   <li>{@code send <queue>}, kind PRODUCER, one per enqueue call, a child of the caller's current
 *       context; its context goes into every job the call creates as the W3C {@code traceparent}
 *       and {@code tracestate} fields of the job hash;</li>
 *   <li>{@code process <queue>}, kind CONSUMER, one per attempt a worker runs, a child of the
 *       context found in the job's hash (the enqueue's, or one another language's producer wrote),
 *       or a new trace when there is none; it is the current context while the handler runs, so
 *       the handler's own spans are its children. A failed attempt sets the status ERROR, records
 *       the exception and {@code error.type}; every attempt records its settle outcome;</li>
 *   <li>with {@link Builder#lockSpans(boolean)}: {@code lock acquire} (INTERNAL, one per acquire
 *       call, with its mode and outcome) and {@code lock hold} (INTERNAL, from grant to release or
 *       loss). Off by default.</li>
 * </ul>
 * The attributes are listed on {@link QueueSpans} and {@link LockSpans}, and in
 * {@code docs/observability.md}.
 *
 * <p>Thread-safe and stateless but for the open lock spans. Like any {@link Instrumentation},
 * whatever it (or the SDK's processors and exporters) throws is caught by the clients, logged once
 * per method, and never fails a job or a lock.
 */
public final class EchoMQTracing implements Instrumentation {
    /** The instrumentation scope name of every span. */
    public static final String SCOPE = "io.echomq";

    private final QueueSpans queues;
    private final LockSpans locks;   // null when lock spans are off
    private final Set<String> fields;

    private EchoMQTracing(Builder b) {
        Tracer tracer = b.openTelemetry.getTracer(SCOPE);
        this.queues = new QueueSpans(tracer, b.propagator);
        this.locks = b.lockSpans ? new LockSpans(tracer) : null;
        this.fields = Set.copyOf(b.propagator.fields());
    }

    /**
     * @param openTelemetry whose tracer makes the spans ({@code GlobalOpenTelemetry.get()}, or your SDK)
     * @return a builder: W3C trace context in the job hash, no lock spans
     * @throws NullPointerException if it is null
     */
    public static Builder builder(OpenTelemetry openTelemetry) {
        return new Builder(Objects.requireNonNull(openTelemetry, "openTelemetry"));
    }

    /** How to build an {@link EchoMQTracing}. */
    public static final class Builder {
        private final OpenTelemetry openTelemetry;
        private TextMapPropagator propagator = W3CTraceContextPropagator.getInstance();
        private boolean lockSpans;

        private Builder(OpenTelemetry openTelemetry) {
            this.openTelemetry = openTelemetry;
        }

        /**
         * @param on whether to make {@code lock acquire} and {@code lock hold} spans; default false
         *     (a busy lock makes many short spans)
         * @return this builder
         */
        public Builder lockSpans(boolean on) {
            this.lockSpans = on;
            return this;
        }

        /**
         * The propagator that writes the context into the job hash and reads it back. The default,
         * W3C trace context ({@code traceparent}, {@code tracestate}), is the one other languages'
         * producers and workers are documented to use; change it only if every producer does.
         * Its field names must follow the core's rules for extra job fields (lower case, none of
         * the protocol's own); others are neither written nor read.
         *
         * @param propagator the propagator
         * @return this builder
         * @throws NullPointerException if it is null
         */
        public Builder propagator(TextMapPropagator propagator) {
            this.propagator = Objects.requireNonNull(propagator, "propagator");
            return this;
        }

        /** @return the instrumentation, to give to each client's builder */
        public EchoMQTracing build() {
            return new EchoMQTracing(this);
        }
    }

    // ------------------------------------------------------------------ queues

    @Override
    public Object enqueueStarting(String queue, int count, BiConsumer<String, String> fields) {
        return queues.sendStarting(queue, count, fields);
    }

    @Override
    public void enqueueEnded(Object handle, List<EnqueueResult> results, Throwable error) {
        queues.sendEnded(handle, results, error);
    }

    @Override
    public Set<String> jobFields() {
        return fields;
    }

    @Override
    public Object jobStarting(String queue, Job job, Map<String, String> fields) {
        return queues.processStarting(queue, job, fields);
    }

    @Override
    public void handlerReturned(Object handle, Throwable error) {
        queues.handlerReturned(handle);
    }

    @Override
    public void jobEnded(Object handle, SettleOutcome outcome, Throwable error) {
        queues.processEnded(handle, outcome, error);
    }

    // ------------------------------------------------------------------ locks

    @Override
    public void lockAcquire(LockMode mode, AcquireOutcome outcome, long nanos) {
        if (locks != null) {
            locks.acquired(mode, outcome, nanos);
        }
    }

    @Override
    public Object leaseHeld(LockMode mode, Lease lease) {
        return locks == null ? null : locks.held(mode, lease);
    }

    @Override
    public void leaseEnded(Object handle) {
        if (locks != null) {
            locks.ended(handle);
        }
    }

    @Override
    public void leaseLost(LockMode mode, LossReason reason) {
        // the hold span ends at leaseEnded, which follows; the reason is not tied to a lease here
    }

    @Override
    public String toString() {
        return "EchoMQTracing[lockSpans=" + (locks != null) + ", fields=" + fields + "]";
    }
}
