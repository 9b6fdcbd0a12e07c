/**
 * Micrometer meters for EchoMQ's locks and queues: {@link io.echomq.micrometer.EchoMQMetrics}
 * implements the core's {@link io.echomq.observe.Instrumentation} hook and registers per-queue state
 * gauges. See {@code docs/observability.md}.
 */
package io.echomq.micrometer;
