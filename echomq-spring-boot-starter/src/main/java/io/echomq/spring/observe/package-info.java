/**
 * Meters and traces for the starter's clients: the {@link io.echomq.spring.observe.EchoMQInstrumentation}
 * both clients are built with, Micrometer's meters
 * ({@link io.echomq.spring.observe.EchoMQMetricsAutoConfiguration}) and OpenTelemetry's spans
 * ({@link io.echomq.spring.observe.EchoMQTracingAutoConfiguration}), each when its module and its
 * registry or SDK bean are there. {@code docs/spring.md}, "Metrics and traces", is the guide.
 */
package io.echomq.spring.observe;
