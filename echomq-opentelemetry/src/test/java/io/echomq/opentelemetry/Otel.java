package io.echomq.opentelemetry;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** One OpenTelemetry SDK whose spans go to an in-memory exporter, as a process of a test would have it. */
final class Otel implements AutoCloseable {
    final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    final OpenTelemetrySdk sdk;

    Otel(SpanProcessor... more) {
        var tracer = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter));
        for (SpanProcessor p : more) {
            tracer.addSpanProcessor(p);
        }
        sdk = OpenTelemetrySdk.builder().setTracerProvider(tracer.build()).build();
    }

    List<SpanData> spans() {
        return exporter.getFinishedSpanItems();
    }

    List<SpanData> named(String name) {
        return spans().stream().filter(s -> s.getName().equals(name)).toList();
    }

    /** @return the span as JSON: what the page's sample shows (ids, kind, parent, attributes, status) */
    static String json(SpanData s) {
        Map<String, Object> attrs = new TreeMap<>();
        s.getAttributes().forEach((k, v) -> attrs.put(k.getKey(), v));
        String a = attrs.entrySet().stream()
                .map(e -> "    \"" + e.getKey() + "\": " + (e.getValue() instanceof String v ? "\"" + v + "\"" : e.getValue()))
                .collect(Collectors.joining(",\n"));
        return "{\n  \"name\": \"" + s.getName() + "\",\n  \"kind\": \"" + s.getKind() + "\",\n  \"traceId\": \""
                + s.getTraceId() + "\",\n  \"spanId\": \"" + s.getSpanId() + "\",\n  \"parentSpanId\": \""
                + s.getParentSpanId() + "\",\n  \"status\": \"" + s.getStatus().getStatusCode() + "\",\n"
                + "  \"attributes\": {\n" + a + "\n  }\n}";
    }

    static <T> T attr(SpanData s, AttributeKey<T> key) {
        return s.getAttributes().get(key);
    }

    @Override
    public void close() {
        sdk.close();
    }
}
