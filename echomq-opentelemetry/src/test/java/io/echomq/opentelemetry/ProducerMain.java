package io.echomq.opentelemetry;

import io.echomq.queue.QueueClient;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;

/**
 * The producing process of {@link CrossProcessTest}: its own OpenTelemetry SDK and its own queue
 * client; it enqueues one job inside a request span and prints
 * {@code SENT <trace id> <send span id> <job id>}. Nothing but Redis joins it to the worker.
 *
 * <p>Arguments: the Redis URL, the queue.
 */
public final class ProducerMain {
    private ProducerMain() {
    }

    public static void main(String[] args) {
        try (Otel otel = new Otel();
             QueueClient client = QueueClient.builder().redisUrl(args[0])
                     .instrumentation(EchoMQTracing.builder(otel.sdk).build()).build()) {
            Span request = otel.sdk.getTracer("producer").spanBuilder("POST /orders").startSpan();
            String id;
            try (Scope ignored = request.makeCurrent()) {
                id = client.queue(args[1]).enqueue("{\"order\":7}");
            } finally {
                request.end();
            }
            var send = otel.named("send " + args[1]).get(0);
            System.out.println("SENT " + send.getTraceId() + " " + send.getSpanId() + " " + id);
            System.out.println(Otel.json(send).replace('\n', ' '));
        }
    }
}
